import type { ScheduledSend } from '../../domain/campaign/campaign-schedule.ts';

/**
 * One-time schedules that start an issue's send (EventBridge Scheduler on AWS). Unavailability
 * is thrown as an error; deleting a schedule that no longer exists is not one.
 */
export interface CampaignScheduler {
  /** Creates a schedule that fires once at `at`, passes `input` to the send, then deletes itself. */
  create(name: string, at: Date, input: ScheduledSend): Promise<void>;
  /** Deletes a schedule; one that fired (and deleted itself) or never existed is fine. */
  delete(name: string): Promise<void>;
}
