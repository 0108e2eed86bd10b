import { resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { type EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webhookDeliverer, webhookRetrier } from '../../../functions/events/event-functions.ts';
import { EVENT_SOURCE } from '../../../shared/domain/events/event-catalogue.ts';
import { deadLetterQueue } from '../queues.ts';
import { type AccessTargets, routePolicyStatements } from '../route-access-policy.ts';
import { NewsletterFunction } from './newsletter-function.ts';

/** What the webhooks are delivered from. */
export interface WebhookDeliveryProps {
  readonly projectRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly targets: AccessTargets;
  readonly logRetention: RetentionDays;
  readonly bus: EventBus;
}

/**
 * Webhooks out ([webhooks.delivery]): a rule on the stack's bus leaves every event of the
 * service on a queue, whose consumer signs and sends it to the endpoints that take it; a rule
 * on a schedule runs the retry sweep every minute. A queue between the bus and the function,
 * not the function as the rule's target: EventBridge's asynchronous invocation gives up after
 * its retries, while a message waits in the queue until it is delivered or dead-lettered.
 */
export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly deliverer: NewsletterFunction;
  readonly retrier: NewsletterFunction;
  readonly rule: Rule;
  readonly sweep: Rule;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(
      this,
      'DeadLetters',
      'This queue is itself the dead-letter queue of the webhook queue; what lands here is an ' +
        'event whose deliveries could not be logged, to move back with an SQS redrive.',
    );
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(webhookDeliverer.timeoutSeconds * 2),
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: webhookDeliverer.maxReceives },
    });
    this.rule = new Rule(this, 'Events', {
      description: "Every event of the service to the webhooks' queue",
      eventBus: props.bus,
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [new SqsQueue(this.queue)],
    });
    this.deliverer = new NewsletterFunction(this, 'Deliverer', {
      entry: resolve(props.projectRoot, 'functions', 'events', `${webhookDeliverer.name}.ts`),
      projectRoot: props.projectRoot,
      description: webhookDeliverer.summary,
      environment: props.environment,
      statements: [
        ...routePolicyStatements({ key: 'none', access: webhookDeliverer.access }, props.targets),
        // What Lambda's poller needs, as for the events queue.
        new PolicyStatement({
          sid: 'QueueMapping',
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
          resources: [this.queue.queueArn],
        }),
      ],
      logRetention: props.logRetention,
      readsParameters: webhookDeliverer.access.settings,
      timeout: Duration.seconds(webhookDeliverer.timeoutSeconds),
    });
    new EventSourceMapping(this, 'FromQueue', {
      target: this.deliverer,
      eventSourceArn: this.queue.queueArn,
      batchSize: webhookDeliverer.batchSize,
      maxBatchingWindow: Duration.seconds(webhookDeliverer.batchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: webhookDeliverer.maxConcurrency,
    });
    this.retrier = new NewsletterFunction(this, 'Retrier', {
      entry: resolve(props.projectRoot, 'functions', 'events', `${webhookRetrier.name}.ts`),
      projectRoot: props.projectRoot,
      description: webhookRetrier.summary,
      environment: props.environment,
      statements: routePolicyStatements(
        { key: 'none', access: webhookRetrier.access },
        props.targets,
      ),
      logRetention: props.logRetention,
      readsParameters: webhookRetrier.access.settings,
      timeout: Duration.seconds(webhookRetrier.timeoutSeconds),
    });
    this.sweep = new Rule(this, 'RetrySchedule', {
      description: 'Every minute: the webhook retry sweep',
      schedule: Schedule.expression(webhookRetrier.schedule),
      // A sweep that failed is the next minute's: the due items stay until attempted.
      targets: [new LambdaFunction(this.retrier, { retryAttempts: 0 })],
    });
  }
}
