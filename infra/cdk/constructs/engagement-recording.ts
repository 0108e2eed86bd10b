import { resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  engagementEraser,
  engagementRecorder,
} from '../../../functions/engagement/engagement-function.ts';
import { deadLetterQueue } from '../queues.ts';
import { type AccessTargets, routePolicyStatements } from '../route-access-policy.ts';
import { NewsletterFunction } from './newsletter-function.ts';

/** What the recording is built on. */
export interface EngagementRecordingProps {
  readonly projectRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly targets: AccessTargets;
  /** The topic SES publishes opens and clicks to. */
  readonly topic: Topic;
  readonly logRetention: RetentionDays;
}

/** Receives after which an event goes to the dead-letter queue. */
const MAX_RECEIVES = 5;

/**
 * Opens and clicks into the table ([engagement.batch]; docs/storage.md, "Opens and clicks"):
 * the engagement topic delivers to a queue (SNS's envelope, so its message id can tell a
 * repeated delivery), Lambda hands the queue's messages to the recorder in batches of up to
 * 100 gathered for up to 5 s, at most two invocations at once, and what keeps failing goes to a
 * dead-letter queue with an alarm. Beside it, on a schedule, the eraser of per-person opens
 * and clicks once tracking has left `individual` ([engagement.switch]).
 */
export class EngagementRecording extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fn: NewsletterFunction;
  readonly eraser: NewsletterFunction;
  readonly erasure: Rule;

  constructor(scope: Construct, id: string, props: EngagementRecordingProps) {
    super(scope, id);
    const entry = engagementRecorder;
    this.deadLetters = deadLetterQueue(
      this,
      'DeadLetters',
      'This queue is itself the dead-letter queue of the engagement queue; what lands here ' +
        'is an open or click the recorder failed to record five times.',
    );
    this.queue = new Queue(this, 'Events', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Lambda requires at least the function's timeout; twice leaves a batch time to end.
      visibilityTimeout: Duration.seconds(entry.timeoutSeconds * 2),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });
    // Adds the queue policy that lets this topic, and only it, send to the queue.
    props.topic.addSubscription(new SqsSubscription(this.queue, { rawMessageDelivery: false }));
    this.fn = new NewsletterFunction(this, 'Recorder', {
      entry: resolve(props.projectRoot, 'functions', 'engagement', `${entry.name}.ts`),
      projectRoot: props.projectRoot,
      description: entry.summary,
      environment: props.environment,
      statements: [
        ...routePolicyStatements({ key: 'none', access: entry.access }, props.targets),
        // What Lambda's poller needs, as for the campaign queues.
        new PolicyStatement({
          sid: 'QueueMapping',
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
          resources: [this.queue.queueArn],
        }),
      ],
      logRetention: props.logRetention,
      readsParameters: entry.access.settings,
      timeout: Duration.seconds(entry.timeoutSeconds),
    });
    new EventSourceMapping(this, 'FromQueue', {
      target: this.fn,
      eventSourceArn: this.queue.queueArn,
      batchSize: entry.batchSize,
      maxBatchingWindow: Duration.seconds(entry.batchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: entry.maxConcurrency,
    });
    const eraser = engagementEraser;
    this.eraser = new NewsletterFunction(this, 'Eraser', {
      entry: resolve(props.projectRoot, 'functions', 'engagement', `${eraser.name}.ts`),
      projectRoot: props.projectRoot,
      description: eraser.summary,
      environment: props.environment,
      statements: routePolicyStatements({ key: 'none', access: eraser.access }, props.targets),
      logRetention: props.logRetention,
      readsParameters: eraser.access.settings,
      timeout: Duration.seconds(eraser.timeoutSeconds),
    });
    this.erasure = new Rule(this, 'Erasure', {
      description:
        'Every ten minutes: erase per-person opens and clicks once tracking is not individual',
      schedule: Schedule.expression(eraser.schedule),
      targets: [new LambdaFunction(this.eraser, { retryAttempts: 0 })],
    });
  }
}
