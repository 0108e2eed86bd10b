import { resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { eventPublisher } from '../../../functions/events/event-functions.ts';
import { EVENTS_ENV } from '../../../shared/runtime/events-environment.ts';
import { deadLetterQueue } from '../queues.ts';
import { type AccessTargets, routePolicyStatements } from '../route-access-policy.ts';
import { NewsletterFunction } from './newsletter-function.ts';

/** What the events are built on. */
export interface EventPublishingProps {
  readonly projectRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly targets: AccessTargets;
  readonly logRetention: RetentionDays;
}

/**
 * Events out (docs/storage.md, "Events"): the stream's reader leaves each event on the events
 * queue; the publisher puts them on the stack's own EventBridge bus, once each, and what keeps
 * failing for a day goes to a dead-letter queue with an alarm. Rules on the bus (the webhooks',
 * an operator's) take it from there.
 */
export class EventPublishing extends Construct {
  readonly bus: EventBus;
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fn: NewsletterFunction;

  constructor(scope: Construct, id: string, props: EventPublishingProps) {
    super(scope, id);
    const entry = eventPublisher;
    this.bus = new EventBus(this, 'Bus', {
      description: 'Changes of subscribers and issues (docs/api.md, "Events")',
    });
    this.deadLetters = deadLetterQueue(
      this,
      'DeadLetters',
      'This queue is itself the dead-letter queue of the events queue; what lands here is an ' +
        'event the bus refused for a day, to move back with an SQS redrive.',
    );
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Lambda requires at least the function's timeout; twice leaves a batch time to end.
      visibilityTimeout: Duration.seconds(entry.timeoutSeconds * 2),
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: entry.maxReceives },
    });
    this.fn = new NewsletterFunction(this, 'Publisher', {
      entry: resolve(props.projectRoot, 'functions', 'events', `${entry.name}.ts`),
      projectRoot: props.projectRoot,
      description: entry.summary,
      environment: { ...props.environment, [EVENTS_ENV.eventBus]: this.bus.eventBusName },
      statements: [
        ...routePolicyStatements({ key: 'none', access: entry.access }, props.targets),
        new PolicyStatement({
          sid: 'Bus',
          actions: ['events:PutEvents'],
          resources: [this.bus.eventBusArn],
        }),
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
  }
}
