/**
 * Opens and clicks as the synthesized template has them ([engagement.tracking],
 * [engagement.batch]): the tracked configuration sets publish opens and clicks, and keep
 * bounces and complaints; nothing else tracks; the engagement topic feeds a queue that only it
 * may send to; the recorder reads that queue in batches with exactly the grants it uses; the
 * eraser runs on a schedule. Every oracle is the template or a literal from AWS's documentation.
 */
import { describe, expect, it } from 'vitest';
import { buildApp, resourcesOfType, type TemplateResource } from './build-app.ts';

const { template, stack } = buildApp();
const resources = template.toJSON().Resources as Record<string, TemplateResource>;

const logicalId = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);

const destinations = [
  ...resourcesOfType(template, 'AWS::SES::ConfigurationSetEventDestination').values(),
].map((destination) => ({
  set: (destination.Properties.ConfigurationSetName as { Ref: string }).Ref,
  ...(destination.Properties.EventDestination as {
    MatchingEventTypes: string[];
    SnsDestination: { TopicARN: { Ref: string } };
  }),
}));

const engagementTopicId = logicalId(stack.feedback.engagementTopic);
const trackedIds = [
  logicalId(stack.feedback.trackedConfigurationSet),
  logicalId(stack.feedback.trackedDeliveriesConfigurationSet),
];

describe('[engagement.tracking] which mail SES tracks', () => {
  it('only the two tracked sets publish opens and clicks, to the engagement topic', () => {
    const tracking = destinations.filter((each) =>
      each.MatchingEventTypes.some((type) => type === 'open' || type === 'click'),
    );
    expect(tracking.map((each) => each.set).sort()).toEqual([...trackedIds].sort());
    for (const each of tracking) {
      expect([...each.MatchingEventTypes].sort()).toEqual(['click', 'open']);
      expect(each.SnsDestination.TopicARN).toEqual({ Ref: engagementTopicId });
    }
  });

  it('the tracked sets keep bounces and complaints (and deliveries for the one with them)', () => {
    const feedback = (setId: string) =>
      destinations
        .filter(
          (each) => each.set === setId && each.SnsDestination.TopicARN.Ref !== engagementTopicId,
        )
        .flatMap((each) => each.MatchingEventTypes)
        .sort();
    expect(feedback(trackedIds[0] as string)).toEqual(['bounce', 'complaint']);
    expect(feedback(trackedIds[1] as string)).toEqual(['bounce', 'complaint', 'delivery']);
  });

  it('[engagement.untracked-mail] the mailer of subscription mail names no tracked set', () => {
    const variables = [...resourcesOfType(template, 'AWS::Lambda::Function')]
      .filter(([id]) => id.startsWith('Mailer'))
      .map(
        ([, fn]) => (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      );
    expect(variables).toHaveLength(1);
    const named = JSON.stringify(variables[0]);
    for (const id of trackedIds) expect(named).not.toContain(id);
  });

  it('a custom redirect domain goes on both tracked sets, HTTPS required', () => {
    const { template: custom } = buildApp({ trackingDomain: 'track.example.com' });
    const sets = [...resourcesOfType(custom, 'AWS::SES::ConfigurationSet').values()];
    const withDomain = sets.filter((set) => set.Properties.TrackingOptions !== undefined);
    expect(withDomain).toHaveLength(2);
    for (const set of withDomain)
      expect(set.Properties.TrackingOptions).toEqual({
        CustomRedirectDomain: 'track.example.com',
        HttpsPolicy: 'REQUIRE',
      });
    expect(() => buildApp({ trackingDomain: 'not a domain' })).toThrow(/trackingDomain/);
  });
});

describe('[engagement.batch] events reach the recorder through a queue', () => {
  const queueId = logicalId(stack.engagement.queue);
  const recorderId = logicalId(stack.engagement.fn);

  it('the engagement topic has one subscriber: the queue, with SNS’s envelope (not raw)', () => {
    const subscriptions = [...resourcesOfType(template, 'AWS::SNS::Subscription').values()].filter(
      (each) =>
        JSON.stringify(each.Properties.TopicArn) === JSON.stringify({ Ref: engagementTopicId }),
    );
    expect(subscriptions.map((each) => each.Properties)).toEqual([
      {
        Protocol: 'sqs',
        RawMessageDelivery: false,
        TopicArn: { Ref: engagementTopicId },
        Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] },
      },
    ]);
  });

  it('only SNS, for this topic, may send to the queue', () => {
    const policies = [...resourcesOfType(template, 'AWS::SQS::QueuePolicy').values()].filter(
      (each) => JSON.stringify(each.Properties.Queues).includes(queueId),
    );
    const allows = policies
      .flatMap(
        (each) =>
          (each.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
      )
      .filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Principal: { Service: 'sns.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: engagementTopicId } } },
      }),
    ]);
  });

  it('Lambda reads it in batches of up to 100 gathered for 5 s, two invocations at most', () => {
    const mappings = [
      ...resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').values(),
    ].filter((each) => JSON.stringify(each.Properties.EventSourceArn).includes(queueId));
    expect(mappings.map((each) => each.Properties)).toEqual([
      expect.objectContaining({
        FunctionName: { Ref: recorderId },
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 5,
        ScalingConfig: { MaximumConcurrency: 2 },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      }),
    ]);
    const queue = resources[queueId]?.Properties ?? {};
    // Lambda requires a visibility timeout of at least the function's timeout.
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(
      Number(resources[recorderId]?.Properties.Timeout),
    );
    expect(queue.RedrivePolicy).toMatchObject({ maxReceiveCount: 5 });
  });

  it('the recorder may read, put and update table items, read the settings and poll its queue, nothing else', () => {
    const statements = statementsOf(recorderId);
    expect(statements.map((statement) => [statement.Sid, statement.Action])).toEqual([
      ['Logs', ['logs:CreateLogStream', 'logs:PutLogEvents']],
      ['Table', ['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
      ['Parameters', 'ssm:GetParameter'],
      ['QueueMapping', ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage']],
    ]);
    expect(statements[3]?.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
  });
});

/** The statements of a function's role. */
function statementsOf(functionId: string): Record<string, unknown>[] {
  const fn = resources[functionId];
  if (!fn) throw new Error(`no ${functionId}`);
  const role = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return (
    (resources[role]?.Properties.Policies ?? []) as {
      PolicyDocument: { Statement: Record<string, unknown>[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
}

describe('[engagement.switch] the eraser runs every ten minutes, invoked by its rule only', () => {
  const eraserId = logicalId(stack.engagement.eraser);
  const ruleId = logicalId(stack.engagement.erasure);

  it('has a rate(10 minutes) rule targeting it, and a permission for exactly that rule', () => {
    const rule = resources[ruleId]?.Properties ?? {};
    expect(rule.ScheduleExpression).toBe('rate(10 minutes)');
    expect(rule.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [eraserId, 'Arn'] } }),
    ]);
    const permissions = [...resourcesOfType(template, 'AWS::Lambda::Permission').values()].filter(
      (each) => JSON.stringify(each.Properties.FunctionName).includes(eraserId),
    );
    expect(permissions.map((each) => each.Properties)).toEqual([
      expect.objectContaining({
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      }),
    ]);
  });

  it('may read and update table items, query the table and `recent`, read the settings; nothing else', () => {
    const statements = statementsOf(eraserId);
    expect(statements.map((statement) => [statement.Sid, statement.Action])).toEqual([
      ['Logs', ['logs:CreateLogStream', 'logs:PutLogEvents']],
      ['Table', ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']],
      ['TableIndexes', 'dynamodb:Query'],
      ['Parameters', 'ssm:GetParameter'],
    ]);
    // Its runs are bounded well inside the timeout: the walk is saved after every page.
    expect(resources[eraserId]?.Properties.Timeout).toBe(300);
  });
});
