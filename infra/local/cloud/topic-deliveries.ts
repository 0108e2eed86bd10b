/**
 * SNS's side of the template's topics, for what publishes to them (SES's event destinations):
 * a publish is allowed only when the topic's access policy lets that service publish for that
 * source (evaluated with the same IAM evaluator), and each `lambda` subscription gets the
 * message as SNS delivers it (`Records[0].Sns.Message`, `TopicArn`, ...) only when a Lambda
 * permission lets SNS invoke the function for that topic. The invocation is asynchronous, as
 * SNS invokes Lambda: a function error is retried twice, then the event goes to the function's
 * on-failure destination, or is dropped when it has none.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type AsyncInvocation, invokeAsynchronously } from './async-invocation.ts';
import type { Denial } from './aws-endpoint.ts';
import type {
  DeployedQueue,
  DeployedTopic,
  DeployedTopicSubscription,
  InvokePermission,
} from './deployed-stack.ts';
import { evaluateServicePrincipal } from './iam-evaluator.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';

export type { FailedDelivery } from './async-invocation.ts';

/** How to run the topics; the invocations are Lambda's asynchronous ones. */
export interface TopicDeliveriesOptions extends AsyncInvocation {
  readonly topics: readonly DeployedTopic[];
  readonly subscriptions: readonly DeployedTopicSubscription[];
  /** Lambda permissions for `sns.amazonaws.com`. */
  readonly permissions: readonly InvokePermission[];
  /** A publish or an invocation refused as AWS would refuse it (the event is lost, as there). */
  readonly onDenied?: (denial: Denial) => void;
  /** A failure of the local SNS itself (a bug here, not the function's). */
  readonly onError?: (error: unknown) => void;
  /** The stack's queues (their policies decide whether SNS may send to a subscribed one). */
  readonly queues?: readonly DeployedQueue[];
  /** Puts a message on a queue of the stack, as SNS's delivery to an `sqs` subscription. */
  readonly sendToQueue?: (queueArn: string, body: string) => Promise<void>;
}

/** A subscription of a function. */
type FunctionSubscription = Extract<DeployedTopicSubscription, { functionLogicalId: string }>;
/** A subscription of a queue. */
type QueueSubscription = Extract<DeployedTopicSubscription, { queueArn: string }>;

/** Who publishes: an AWS service, and the resource it publishes for (`aws:SourceArn`). */
export interface Publisher {
  readonly servicePrincipal: string;
  readonly sourceArn: string;
}

/** The running topics. */
export interface TopicDeliveries {
  /**
   * Publishes a message to a topic of the stack, as `publisher`; the deliveries run in the
   * background (`settled` waits for them), as SNS answers a publish before delivering it.
   */
  publish(publisher: Publisher, topicArn: string, message: string): void;
  /**
   * Resolves once every message published so far has been handled by its subscribers
   * (including their retries); true when there was any to wait for.
   */
  settled(): Promise<boolean>;
  stop(): void;
}

/** `arn:…:topic` matches a permission's source ARN (exact; the stack never uses wildcards). */
const permits = (permission: InvokePermission, fn: string, topicArn: string): boolean =>
  permission.functionLogicalId === fn && permission.sourceArn === topicArn;

/** Starts SNS for the stack's topics. */
export function startTopicDeliveries(options: TopicDeliveriesOptions): TopicDeliveries {
  const inFlight = new Set<Promise<void>>();
  const subscriptionIds = new Map(
    options.subscriptions.map((subscription) => [subscription.logicalId, randomUUID()]),
  );
  let stopped = false;

  const deny = (caller: string, action: string, resource: string, why: string): void => {
    options.onDenied?.({
      caller,
      action,
      resource,
      message: `${caller} is not authorized to perform: ${action} on resource: ${resource} because ${why}`,
    });
  };

  /** The event SNS hands a subscribed function: one record per invocation. */
  const snsEvent = (subscription: FunctionSubscription, message: string) => {
    const subscriptionArn = `${subscription.topicArn}:${subscriptionIds.get(subscription.logicalId)}`;
    return {
      Records: [
        {
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          EventSubscriptionArn: subscriptionArn,
          Sns: {
            Type: 'Notification',
            MessageId: randomUUID(),
            TopicArn: subscription.topicArn,
            Subject: null,
            Message: message,
            Timestamp: new Date().toISOString(),
            SignatureVersion: '1',
            // Not a real signature: a subscribed function is invoked by Lambda on SNS's behalf
            // and has no reason to verify one (ours does not).
            Signature: randomBytes(64).toString('base64'),
            SigningCertUrl: `https://sns.${LOCAL_REGION}.amazonaws.com/SimpleNotificationService-local.pem`,
            UnsubscribeUrl: `https://sns.${LOCAL_REGION}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
            MessageAttributes: {},
          },
        },
      ],
    };
  };

  /**
   * SNS's delivery to a queue: its JSON notification (SQS spells `SigningCertURL` and
   * `UnsubscribeURL` so), or the message alone with raw delivery; only when the queue's policy
   * lets SNS send for this topic.
   */
  const toQueue = async (subscription: QueueSubscription, message: string, messageId: string) => {
    const queue = options.queues?.find((candidate) => candidate.arn === subscription.queueArn);
    const verdict = queue?.policy
      ? await evaluateServicePrincipal('sns.amazonaws.com', queue.policy, {
          action: 'sqs:SendMessage',
          resource: subscription.queueArn,
          context: {
            'aws:SourceArn': subscription.topicArn,
            'aws:SourceAccount': LOCAL_ACCOUNT,
            'aws:SecureTransport': 'true',
          },
        })
      : { allowed: false };
    if (!verdict.allowed || !options.sendToQueue) {
      deny(
        'sns.amazonaws.com',
        'sqs:SendMessage',
        subscription.queueArn,
        'no queue policy allows it',
      );
      return;
    }
    const subscriptionArn = `${subscription.topicArn}:${subscriptionIds.get(subscription.logicalId)}`;
    const body = subscription.raw
      ? message
      : JSON.stringify({
          Type: 'Notification',
          MessageId: messageId,
          TopicArn: subscription.topicArn,
          Message: message,
          Timestamp: new Date().toISOString(),
          SignatureVersion: '1',
          Signature: randomBytes(64).toString('base64'),
          SigningCertURL: `https://sns.${LOCAL_REGION}.amazonaws.com/SimpleNotificationService-local.pem`,
          UnsubscribeURL: `https://sns.${LOCAL_REGION}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
        });
    await options.sendToQueue(subscription.queueArn, body);
  };

  const deliver = async (subscription: FunctionSubscription, event: unknown) => {
    await invokeAsynchronously(
      options,
      subscription.functionLogicalId,
      event,
      subscription.topicArn,
      () => stopped,
    );
  };

  const track = (work: Promise<void>): void => {
    const settled = work.catch((error: unknown) => options.onError?.(error));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  return {
    publish: (publisher, topicArn, message) => {
      const topic = options.topics.find((candidate) => candidate.topicArn === topicArn);
      const work = (async () => {
        if (!topic) return; // SES's publish fails; the event is lost, as on AWS.
        const verdict = await evaluateServicePrincipal(publisher.servicePrincipal, topic.policy, {
          action: 'sns:Publish',
          resource: topicArn,
          context: {
            'aws:SourceArn': publisher.sourceArn,
            'aws:SourceAccount': LOCAL_ACCOUNT,
            'aws:SecureTransport': 'true',
          },
        });
        if (!verdict.allowed) {
          deny(publisher.servicePrincipal, 'sns:Publish', topicArn, 'no topic policy allows it');
          return;
        }
        // One message id per publish: each subscriber sees the same one, as on SNS.
        const messageId = randomUUID();
        for (const subscription of options.subscriptions) {
          if (subscription.topicArn !== topicArn) continue;
          if ('queueArn' in subscription) {
            track(toQueue(subscription, message, messageId));
            continue;
          }
          const fn = subscription.functionLogicalId;
          if (!options.permissions.some((permission) => permits(permission, fn, topicArn))) {
            deny(
              'sns.amazonaws.com',
              'lambda:InvokeFunction',
              fn,
              'no Lambda permission allows it',
            );
            continue;
          }
          track(deliver(subscription, snsEvent(subscription, message)));
        }
      })();
      track(work);
    },
    settled: async () => {
      let waited = false;
      while (inFlight.size > 0) {
        waited = true;
        await Promise.all([...inFlight]);
      }
      return waited;
    },
    stop: () => {
      stopped = true;
    },
  };
}
