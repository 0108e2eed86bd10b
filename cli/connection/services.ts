import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SESClient } from '@aws-sdk/client-ses';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CampaignMailer } from '../../shared/adapters/mail/campaign-mailer-port.ts';
import { SesCampaignMailer } from '../../shared/adapters/mail/ses-campaign-mailer.ts';
import {
  readSettings,
  type StoredSettings,
} from '../../shared/adapters/parameters/settings-document.ts';
import { CognitoPeopleDirectory } from '../../shared/adapters/people/cognito-people-directory.ts';
import { SqsCampaignQueue } from '../../shared/adapters/queue/sqs-campaign-queue.ts';
import { EventBridgeCampaignScheduler } from '../../shared/adapters/scheduler/eventbridge-campaign-scheduler.ts';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoEngagementStore } from '../../shared/adapters/store/dynamo-engagement-store.ts';
import { DynamoListUsage } from '../../shared/adapters/store/dynamo-list-usage.ts';
import { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { ENV } from '../../shared/runtime/environment.ts';
import { CliError } from '../cli-error.ts';
import type { Connection } from './connection.ts';

/**
 * A bulk import keeps many writes in flight: more attempts and the adaptive retry mode let the
 * SDK slow down under throttling instead of failing the run. Timeouts are long for a person
 * at a terminal, short enough that a dead endpoint is reported within seconds.
 */
const CLIENT_OPTIONS = {
  maxAttempts: 6,
  retryMode: 'adaptive',
  requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
} as const;

/** The AWS clients of one run, created on first use and closed by `close`. */
export class Services {
  #ssm?: SSMClient;
  #ses?: SESClient;
  #sqs?: SQSClient;
  #scheduler?: SchedulerClient;
  #cognito?: CognitoIdentityProviderClient;
  #dynamo?: DynamoDBClient;
  #document?: DynamoDBDocumentClient;

  constructor(readonly connection: Connection) {}

  private get clientConfig() {
    const c = this.connection;
    return {
      ...CLIENT_OPTIONS,
      ...(c.region ? { region: c.region } : {}),
      ...(c.credentials ? { credentials: c.credentials } : {}),
    };
  }

  /** The SSM client. */
  get ssm(): SSMClient {
    this.#ssm ??= new SSMClient({
      ...this.clientConfig,
      ...(this.connection.ssmEndpoint ? { endpoint: this.connection.ssmEndpoint } : {}),
    });
    return this.#ssm;
  }

  /** The SQS client (the dead-letter queue, the campaign queue), at the queue URL's own host. */
  get sqs(): SQSClient {
    const queue = this.connection.mailDeadLetters ?? this.connection.campaignQueue;
    this.#sqs ??= new SQSClient({
      ...this.clientConfig,
      ...(queue && !/amazonaws\.com/.test(queue) ? { endpoint: new URL(queue).origin } : {}),
    });
    return this.#sqs;
  }

  /** The DynamoDB document client, configured as the functions configure theirs. */
  get dynamo(): DynamoDBDocumentClient {
    this.#dynamo ??= new DynamoDBClient({
      ...this.clientConfig,
      ...(this.connection.dynamodbEndpoint ? { endpoint: this.connection.dynamodbEndpoint } : {}),
    });
    this.#document ??= DynamoDBDocumentClient.from(this.#dynamo, {
      marshallOptions: { removeUndefinedValues: true },
    });
    return this.#document;
  }

  /** The table name; throws when nothing configured one. */
  get table(): string {
    const table = this.connection.table;
    if (!table) {
      throw new CliError(
        `No table configured: pass --table NAME, set ${ENV.table}, or use --local for the service started by npm start.`,
      );
    }
    return table;
  }

  /** The store the functions use, over this run's client and table. */
  store(): DynamoStore {
    return new DynamoStore(this.dynamo, this.table);
  }

  /** The campaign store over this run's client and table. */
  campaigns(): DynamoCampaignStore {
    return new DynamoCampaignStore(this.dynamo, this.table);
  }

  /** Which issues still to be sent name a list (`lists delete`), over this run's table. */
  listUsage(): DynamoListUsage {
    return new DynamoListUsage(this.dynamo, this.table);
  }

  /** Opens and clicks (docs/storage.md, "Engagement") over this run's client and table. */
  engagement(): DynamoEngagementStore {
    return new DynamoEngagementStore(this.dynamo, this.table);
  }

  /** The campaign planner's queue; throws when nothing configured it. */
  campaignQueue(): SqsCampaignQueue {
    const plans = this.connection.campaignQueue;
    if (!plans) {
      throw new CliError(
        `No campaign queue configured: pass --campaign-queue URL, set ${ENV.campaignPlans} (the stack's CampaignQueue output), or use --local.`,
      );
    }
    return new SqsCampaignQueue(this.sqs, { plans });
  }

  /**
   * EventBridge Scheduler, with the operator's own credentials: whoever schedules creates the
   * schedule (scheduler:CreateSchedule on the group, iam:PassRole on the scheduler role); throws
   * when nothing configured it.
   */
  campaignScheduler(): EventBridgeCampaignScheduler {
    const target = this.connection.scheduler;
    if (!target) {
      throw new CliError(
        `No scheduler configured: set ${ENV.scheduleGroup}, ${ENV.scheduleTarget}, ${ENV.scheduleRole} and ${ENV.scheduleDeadLetters} (the stack's CampaignScheduleGroup, CampaignScheduleTarget, CampaignScheduleRole and CampaignScheduleDeadLetters outputs), or use --local.`,
      );
    }
    this.#scheduler ??= new SchedulerClient({
      ...this.clientConfig,
      ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    });
    return new EventBridgeCampaignScheduler(this.#scheduler, target);
  }

  /**
   * The console's user pool, with the operator's own credentials (the Cognito admin actions
   * `people` calls on the pool); throws when nothing configured it.
   */
  people(): CognitoPeopleDirectory {
    const pool = this.connection.people;
    if (!pool) {
      throw new CliError(
        `No user pool configured: set ${ENV.userPoolId} (the stack's ConsoleUserPoolId output), or use --local.`,
      );
    }
    this.#cognito ??= new CognitoIdentityProviderClient({
      ...this.clientConfig,
      ...(pool.endpoint ? { endpoint: pool.endpoint } : {}),
    });
    return new CognitoPeopleDirectory(this.#cognito, pool.userPoolId);
  }

  /** SES's quota of the account (`GetSendQuota`), for a send to say whether the issue fits. */
  sendQuota(): Pick<CampaignMailer, 'sendQuota'> {
    this.#ses ??= new SESClient({
      ...this.clientConfig,
      // A courtesy check before a send: one attempt, and a send goes on when it fails.
      maxAttempts: 1,
      ...(this.connection.sesEndpoint ? { endpoint: this.connection.sesEndpoint } : {}),
    });
    return new SesCampaignMailer(this.#ses, { withDeliveries: '', withoutDeliveries: '' });
  }

  /** The stored settings, validated; throws a CliError when the parameter does not exist. */
  async settings(): Promise<StoredSettings> {
    const stored = await readSettings(this.ssm, this.connection.settingsParameter);
    if (!stored) {
      throw new CliError(
        `The settings parameter ${this.connection.settingsParameter} does not exist in ${this.connection.description}. Create it with \`newsletter settings set --file settings.json\`.`,
      );
    }
    return stored;
  }

  /** Closes the clients' connections so the process can exit at once. */
  close(): void {
    this.#ssm?.destroy();
    this.#ses?.destroy();
    this.#sqs?.destroy();
    this.#scheduler?.destroy();
    this.#cognito?.destroy();
    this.#dynamo?.destroy();
  }
}
