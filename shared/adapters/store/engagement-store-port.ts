import type {
  EngagementEvent,
  EngagementFigures,
  EngagementOutcome,
} from '../../domain/engagement/engagement.ts';

/** One recipient's first open and first click, as the recipient record holds them. */
export interface RecipientEngagement {
  readonly opened_at?: string;
  readonly clicked_at?: string;
}

/** Where opens and clicks are recorded (docs/storage.md, "Engagement"). */
export interface EngagementStore {
  /** Records one event once; what it came to. Throws a DependencyError when DynamoDB is away. */
  record(event: EngagementEvent): Promise<EngagementOutcome>;
  /** An issue's figures: unique opens and clicks, total clicks, every link's clicks. */
  figures(newsletterId: number): Promise<EngagementFigures>;
  /**
   * Erases a deleted subscriber's events ([engagement.erase]): their first open and click on
   * every recipient record that has one, and any event of theirs that comes later is dropped.
   * How many issues' records were erased.
   */
  erase(subscriberId: number): Promise<number>;
}
