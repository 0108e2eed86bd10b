/**
 * The local SNS of the template's topics: a publish passes the topic's access policy (evaluated
 * by the IAM evaluator), a subscribed function gets the message in SNS's Lambda event shape only
 * when a Lambda permission lets SNS invoke it for that topic, and a failing function is retried
 * twice, as Lambda retries an asynchronous invocation, then the event goes to the function's
 * on-failure destination.
 */
import type { SNSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedTopic } from '../../infra/local/cloud/deployed-stack.ts';
import type { InvocationResult } from '../../infra/local/cloud/lambda-host.ts';
import {
  type FailedDelivery,
  startTopicDeliveries,
} from '../../infra/local/cloud/topic-deliveries.ts';

const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:Newsletter-FeedbackTopic';
const SET_ARN = 'arn:aws:ses:us-east-1:123456789012:configuration-set/Mail';
const SES = { servicePrincipal: 'ses.amazonaws.com', sourceArn: SET_ARN };

/** The topic as CDK's event destination leaves it: SES may publish, for this set only. */
const TOPIC: DeployedTopic = {
  logicalId: 'FeedbackTopic',
  topicArn: TOPIC_ARN,
  policy: {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'ses.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: TOPIC_ARN,
        Condition: {
          StringEquals: { 'AWS:SourceAccount': '123456789012', 'AWS:SourceArn': SET_ARN },
        },
      },
    ],
  },
};

function topicsWith(
  options: {
    topic?: DeployedTopic;
    permitted?: boolean;
    results?: InvocationResult[];
    retries?: number;
  } = {},
) {
  const invocations: SNSEvent[] = [];
  const denials: Denial[] = [];
  const gaveUp: FailedDelivery[] = [];
  const deadLettered: { functionLogicalId: string; event: unknown }[] = [];
  const results = [...(options.results ?? [])];
  const topics = startTopicDeliveries({
    topics: [options.topic ?? TOPIC],
    subscriptions: [{ logicalId: 'Sub', topicArn: TOPIC_ARN, functionLogicalId: 'Feedback' }],
    permissions:
      options.permitted === false ? [] : [{ functionLogicalId: 'Feedback', sourceArn: TOPIC_ARN }],
    invoke: async (_fn, event) => {
      invocations.push(event as SNSEvent);
      return results.shift() ?? { ok: true, result: null };
    },
    retryWaitsMs: [1, 1],
    ...(options.retries === undefined
      ? {}
      : { maximumRetryAttemptsOf: () => options.retries ?? 2 }),
    onDenied: (denial) => denials.push(denial),
    onGaveUp: (failure) => gaveUp.push(failure),
    sendToOnFailure: async (functionLogicalId, event) => {
      deadLettered.push({ functionLogicalId, event });
      return true;
    },
  });
  return { topics, invocations, denials, gaveUp, deadLettered };
}

describe('the local SNS', () => {
  it("delivers SES's message to the subscribed function as SNS's Lambda event", async () => {
    const { topics, invocations, denials } = topicsWith();
    topics.publish(SES, TOPIC_ARN, '{"eventType":"Bounce"}');
    expect(await topics.settled()).toBe(true);
    expect(denials).toEqual([]);
    expect(invocations).toHaveLength(1);
    const [record] = invocations[0]?.Records ?? [];
    expect(record).toMatchObject({
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      EventSubscriptionArn: expect.stringMatching(`^${TOPIC_ARN}:`),
      Sns: {
        Type: 'Notification',
        TopicArn: TOPIC_ARN,
        Message: '{"eventType":"Bounce"}',
        MessageId: expect.any(String),
        Timestamp: expect.any(String),
      },
    });
    expect(await topics.settled()).toBe(false);
  });

  it('refuses a publisher the topic policy does not allow, and delivers nothing', async () => {
    const { topics, invocations, denials } = topicsWith();
    topics.publish({ ...SES, sourceArn: `${SET_ARN}-other` }, TOPIC_ARN, '{}');
    topics.publish({ ...SES, servicePrincipal: 'events.amazonaws.com' }, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toEqual([]);
    expect(denials.map((denial) => [denial.caller, denial.action])).toEqual([
      ['ses.amazonaws.com', 'sns:Publish'],
      ['events.amazonaws.com', 'sns:Publish'],
    ]);
  });

  it('refuses SES on a topic without a policy, as AWS does', async () => {
    const { topics, invocations, denials } = topicsWith({
      topic: { logicalId: 'Bare', topicArn: TOPIC_ARN },
    });
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toEqual([]);
    expect(denials).toHaveLength(1);
  });

  it('does not invoke a function no Lambda permission lets SNS invoke', async () => {
    const { topics, invocations, denials } = topicsWith({ permitted: false });
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toEqual([]);
    expect(denials.map((denial) => [denial.caller, denial.action])).toEqual([
      ['sns.amazonaws.com', 'lambda:InvokeFunction'],
    ]);
  });

  it('retries a failing function twice, then hands the event to its on-failure destination and says so', async () => {
    const failure: InvocationResult = {
      ok: false,
      error: { errorType: 'Error', errorMessage: 'table away', trace: [] },
    };
    const { topics, invocations, gaveUp, deadLettered } = topicsWith({
      results: [failure, failure, failure],
    });
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toHaveLength(3);
    // The event itself goes to the function's on-failure destination, as Lambda sends it.
    expect(deadLettered).toEqual([{ functionLogicalId: 'Feedback', event: invocations[0] }]);
    expect(gaveUp).toEqual([
      {
        sourceArn: TOPIC_ARN,
        functionLogicalId: 'Feedback',
        attempts: 3,
        error: 'Error: table away',
      },
    ]);
  });

  it("retries as often as the function's asynchronous invocation config says", async () => {
    const failure: InvocationResult = {
      ok: false,
      error: { errorType: 'Error', errorMessage: 'down', trace: [] },
    };
    const { topics, invocations, gaveUp } = topicsWith({
      results: [failure, failure, failure],
      retries: 0,
    });
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toHaveLength(1);
    expect(gaveUp.map((each) => each.attempts)).toEqual([1]);
  });

  it('stops retrying once one attempt succeeds', async () => {
    const failure: InvocationResult = {
      ok: false,
      error: { errorType: 'Error', errorMessage: 'once', trace: [] },
    };
    const { topics, invocations, gaveUp } = topicsWith({ results: [failure] });
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(invocations).toHaveLength(2);
    expect(gaveUp).toEqual([]);
  });
});

describe('the local SNS to a subscribed queue ([engagement.batch])', () => {
  const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:Engagement';
  /** The queue as CDK's SqsSubscription leaves it: this topic may send, nothing else. */
  const queue = (sourceArn: string) => ({
    logicalId: 'Engagement',
    name: 'Engagement',
    arn: QUEUE_ARN,
    attributes: {},
    policy: {
      Version: '2012-10-17' as const,
      Statement: [
        {
          Effect: 'Allow' as const,
          Principal: { Service: 'sns.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: QUEUE_ARN,
          Condition: { ArnEquals: { 'aws:SourceArn': sourceArn } },
        },
      ],
    },
  });

  function toQueue(sourceArn: string, raw = false) {
    const sent: { queueArn: string; body: string }[] = [];
    const denials: Denial[] = [];
    const topics = startTopicDeliveries({
      topics: [TOPIC],
      subscriptions: [{ logicalId: 'ToQueue', topicArn: TOPIC_ARN, queueArn: QUEUE_ARN, raw }],
      permissions: [],
      queues: [queue(sourceArn)],
      sendToQueue: async (queueArn, body) => {
        sent.push({ queueArn, body });
      },
      invoke: async () => ({ ok: true, result: null }),
      onDenied: (denial) => denials.push(denial),
      sendToOnFailure: async () => false,
    });
    return { topics, sent, denials };
  }

  it('puts SNS’s notification (its message id included) on the queue the policy opens', async () => {
    const { topics, sent, denials } = toQueue(TOPIC_ARN);
    topics.publish(SES, TOPIC_ARN, '{"eventType":"Open"}');
    await topics.settled();
    expect(denials).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({
      Type: 'Notification',
      MessageId: expect.any(String),
      TopicArn: TOPIC_ARN,
      Message: '{"eventType":"Open"}',
    });
  });

  it('with raw delivery, the message alone', async () => {
    const { topics, sent } = toQueue(TOPIC_ARN, true);
    topics.publish(SES, TOPIC_ARN, '{"eventType":"Click"}');
    await topics.settled();
    expect(sent.map((each) => each.body)).toEqual(['{"eventType":"Click"}']);
  });

  it('refuses a queue whose policy lets another topic send', async () => {
    const { topics, sent, denials } = toQueue(`${TOPIC_ARN}-other`);
    topics.publish(SES, TOPIC_ARN, '{}');
    await topics.settled();
    expect(sent).toEqual([]);
    expect(denials.map((denial) => [denial.caller, denial.action])).toEqual([
      ['sns.amazonaws.com', 'sqs:SendMessage'],
    ]);
  });
});
