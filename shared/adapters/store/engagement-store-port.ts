import type {
  EngagementEvent,
  EngagementFigures,
  EngagementOutcome,
  TrackingMode,
} from '../../domain/engagement/engagement.ts';

/** One recipient's first open and first click, as the recipient record holds them. */
export interface RecipientEngagement {
  readonly opened_at?: string;
  readonly clicked_at?: string;
}

/** How one event is recorded. */
export interface RecordOptions {
  /** `campaign.tracking` as the recorder read it: what may be stored ([engagement.modes]). */
  readonly mode: TrackingMode;
  /**
   * The counter shard to add to first (a recorder's lane keeps one, so its own events never
   * race each other); after a lost race, another at random.
   */
  readonly shard?: number;
}

/** Where opens and clicks are recorded (docs/storage.md, "Opens and clicks"). */
export interface EngagementStore {
  /** Records one event once; what it came to. Throws a DependencyError when DynamoDB is away. */
  record(event: EngagementEvent, options: RecordOptions): Promise<EngagementOutcome>;
  /** An issue's figures: unique opens and clicks, total clicks, every link's clicks. */
  figures(newsletterId: number): Promise<EngagementFigures>;
  /**
   * Erases a deleted subscriber's events ([engagement.erase]): their first open and click on
   * every recipient record that has one, and any event of theirs that comes later is dropped.
   * How many issues' records were erased.
   */
  erase(subscriberId: number): Promise<number>;
  /**
   * Notes, before a recorder writes anything per person (`individual`), that it may, so that a
   * later switch to `counts` or `off` knows there is something to erase ([engagement.switch]).
   */
  markPersonal(): Promise<void>;
}
