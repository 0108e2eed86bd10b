import {
  ActionAfterCompletion,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  FlexibleTimeWindowMode,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { type ScheduledSend, scheduleExpression } from '../../domain/campaign/campaign-schedule.ts';
import { DependencyError } from '../../domain/errors.ts';
import type { CampaignScheduler } from './campaign-scheduler-port.ts';

/** Where schedules go and what they invoke: the stack's CampaignSchedules output. */
export interface SchedulerTarget {
  /** The stack's schedule group. */
  readonly group: string;
  /** ARN of the function that starts a scheduled send (campaign-starter). */
  readonly functionArn: string;
  /** ARN of the role EventBridge Scheduler invokes it with (only lambda:InvokeFunction on it). */
  readonly roleArn: string;
  /**
   * ARN of the standard queue a firing goes to when the Scheduler could not deliver it after its
   * retries (the stack's CampaignScheduleDeadLetters output; the role may send to it).
   */
  readonly deadLetterArn: string;
}

/**
 * EventBridge Scheduler: a one-time `at()` schedule in UTC, no flexible window (it fires at the
 * time), deleted by the service once it completes. Delivery is retried a few times (the
 * invocation throttled, say): the starter sends only while the issue is still scheduled for
 * that time and not too late, so a repeated delivery does nothing. A delivery that still fails
 * goes to the dead-letter queue, which has an alarm ([campaign.schedule-dead-letters]).
 */
export class EventBridgeCampaignScheduler implements CampaignScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly target: SchedulerTarget,
  ) {}

  async create(name: string, at: Date, input: ScheduledSend): Promise<void> {
    await this.#send(
      new CreateScheduleCommand({
        Name: name,
        GroupName: this.target.group,
        ScheduleExpression: scheduleExpression(at),
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: FlexibleTimeWindowMode.OFF },
        ActionAfterCompletion: ActionAfterCompletion.DELETE,
        Description: `Starts sending newsletter ${input.newsletter_id}`,
        Target: {
          Arn: this.target.functionArn,
          RoleArn: this.target.roleArn,
          Input: JSON.stringify(input),
          RetryPolicy: { MaximumRetryAttempts: 3 },
          DeadLetterConfig: { Arn: this.target.deadLetterArn },
        },
      }),
    );
  }

  async delete(name: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteScheduleCommand({ Name: name, GroupName: this.target.group }),
      );
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return;
      throw new DependencyError('scheduler', { cause: error });
    }
  }

  async #send(command: CreateScheduleCommand): Promise<void> {
    try {
      await this.client.send(command);
    } catch (error) {
      throw new DependencyError('scheduler', { cause: error });
    }
  }
}
