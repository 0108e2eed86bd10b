/**
 * The local service as every suite that drives it over HTTP starts it: the bundles and
 * template of this run's `cdk synth` (see global-setup.ts), each function with its own role,
 * every AWS call checked against it. A call the template does not allow fails the way AWS
 * fails it, and `stop()` then fails the test file, naming the function, action and resource.
 */
import { inject } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import type { FailedDelivery } from '../../infra/local/cloud/topic-deliveries.ts';
import {
  type LocalStack,
  type LocalStackOptions,
  startLocalStack,
} from '../../infra/local/local-stack.ts';
import {
  type SesLocal,
  type StoredMail,
  startSesLocal,
} from '../../infra/local/stand-ins/ses-local.ts';
import { runDynamoLocalEndpoint } from './run-dynamo.ts';

/** The local service with what a test looks at and pulls. */
export interface TestStack extends LocalStack {
  /** Every line the functions wrote, in order (JSON log lines, mostly). */
  readonly logLines: string[];
  /**
   * The SES stand-in currently serving (a new one after `restartSes`); its `messages()` waits
   * for the outbox to be worked off first.
   */
  readonly liveSes: SesLocal;
  /** Stops the SES stand-in: sends fail as when SES cannot be reached. */
  stopSes(): Promise<void>;
  /** Starts a new SES stand-in on a fresh port and sends go there (stored mail survives). */
  restartSes(): Promise<void>;
  /**
   * Waits until the stream's consumers have processed everything written so far: keyless
   * requests settled, outbox mails sent (or failed). Mails arrive asynchronously, as deployed.
   */
  settled(): Promise<void>;
  /** Failures of the event source mappings' pollers (none in a healthy run). */
  readonly streamErrors: readonly unknown[];
  /** Topic messages whose function failed every attempt (none in a healthy run). */
  readonly deliveryFailures: readonly FailedDelivery[];
  /** The mailbox as it is this moment, without waiting for the outbox (during an outage). */
  mailboxNow(): Promise<StoredMail[]>;
}

/** Thrown by `stop()` when a function made a call its role does not allow. */
export class AccessDeniedInTest extends Error {
  override readonly name = 'AccessDeniedInTest';
  constructor(denials: readonly Denial[]) {
    super(
      `${denials.length} AWS call(s) were refused as AWS would refuse them:\n${denials
        .map((denial) => `  ${denial.caller}: ${denial.action} on ${denial.resource}`)
        .join('\n')}`,
    );
  }
}

/** Starts the service of this run's synth on free ports, in memory, seeded. */
export async function startTestStack(options: Partial<LocalStackOptions> = {}): Promise<TestStack> {
  const logLines: string[] = [];
  const streamErrors: unknown[] = [];
  const deliveryFailures: FailedDelivery[] = [];
  const show = Boolean(process.env.NEWSLETTER_TEST_LOGS);
  const stack = await startLocalStack({
    port: 0,
    mailPort: 0,
    seed: true,
    // The suites make their own subscribers; the demo ones are for a person trying it out.
    demoSubscribers: false,
    cdkOut: inject('cdkOut'),
    // The run's DynamoDB Local, unless the test keeps data in a folder (and stops it); the
    // stack puts its own strict front before it, in the functions' process.
    ...(options.dataDir === undefined ? { sharedDynamoDb: runDynamoLocalEndpoint() } : {}),
    onLog: (line, fn) => {
      logLines.push(line);
      if (show) process.stderr.write(`${fn.logicalId} ${line}\n`);
    },
    onStreamError: (error) => {
      streamErrors.push(error);
      if (show) process.stderr.write(`event source mapping: ${String(error)}\n`);
    },
    // Lambda's asynchronous retries after a fraction of the deployed wait, as the stream's.
    asyncRetryWaitsMs: [50, 100],
    onDeliveryGaveUp: (failure) => {
      deliveryFailures.push(failure);
      if (show) process.stderr.write(`topic delivery gave up: ${failure.error}\n`);
    },
    ...options,
  });
  let ses = stack.ses;
  let sesStopped = false;
  // A test reads the mailbox after the outbox has been worked off, as a person reads theirs
  // after the mailer ran: `messages()` first waits for the stream's consumers to settle.
  const settledView = (stored: SesLocal): SesLocal => ({
    ...stored,
    messages: async () => {
      await stack.cloud.settled();
      return stored.messages();
    },
  });
  return {
    ...stack,
    logLines,
    streamErrors,
    deliveryFailures,
    settled: () => stack.cloud.settled(),
    mailboxNow: () => ses.messages(),
    get liveSes() {
      return settledView(ses);
    },
    stopSes: async () => {
      sesStopped = true;
      await ses.stop();
    },
    restartSes: async () => {
      if (!sesStopped) await ses.stop();
      ses = await startSesLocal({ publish: stack.sesPublisher });
      sesStopped = false;
      stack.cloud.endpoint.setUpstream('ses', ses.endpoint);
    },
    stop: async () => {
      await stack.stop();
      if (ses !== stack.ses) await ses.stop();
      if (stack.denials.length > 0) throw new AccessDeniedInTest(stack.denials);
    },
  };
}
