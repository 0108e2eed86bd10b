import { Duration, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A queue as the on-failure destination of a function (a stream mapping's or its asynchronous
 * invocations'), granting only SendMessage, not the wider grant of CDK's SqsDlq and
 * SqsDestination: the Lambda service sends the failure record with the function's role and
 * does nothing else with the queue.
 */
export function sendOnlyDestination(queue: Queue): {
  bind(
    scope: unknown,
    target: { addToRolePolicy(statement: PolicyStatement): void },
  ): {
    destination: string;
  };
} {
  return {
    bind: (_scope, target) => {
      target.addToRolePolicy(
        new PolicyStatement({
          sid: 'DeadLetters',
          effect: Effect.ALLOW,
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
        }),
      );
      return { destination: queue.queueArn };
    },
  };
}

/** An encrypted, TLS-only queue that keeps what a function gave up on for 14 days. */
export function deadLetterQueue(
  scope: Construct,
  id: string,
  whyNoQueueOfItsOwn: string,
  { fifo = false }: { fifo?: boolean } = {},
): Queue {
  const queue = new Queue(scope, id, {
    ...(fifo ? { fifo: true } : {}),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: whyNoQueueOfItsOwn });
  return queue;
}
