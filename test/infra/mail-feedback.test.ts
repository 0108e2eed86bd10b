/**
 * The feedback loop as the synthesized template has it: the mailer sends with a configuration
 * set, the configuration set publishes bounces, complaints and deliveries to a topic that only
 * SES may publish to, the feedback function is subscribed to it with nothing but the grants it
 * uses, and the account's SES reputation is alarmed on. Every oracle is the template itself or
 * a literal from AWS's documentation, never the code's own tables.
 */
import { describe, expect, it } from 'vitest';
import { buildApp, resourcesOfType, type TemplateResource } from './build-app.ts';

const { template } = buildApp();
const resources = template.toJSON().Resources as Record<string, TemplateResource>;

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The one resource of a type: its logical id and properties. */
function single(type: string): [string, TemplateResource] {
  const found = [...resourcesOfType(template, type)];
  expect(found, type).toHaveLength(1);
  return found[0] as [string, TemplateResource];
}

/** The one subscription of a function to a topic (the engagement queue's is an `sqs` one). */
function lambdaSubscription(): [string, TemplateResource] {
  const found = [...resourcesOfType(template, 'AWS::SNS::Subscription')].filter(
    ([, each]) => each.Properties.Protocol === 'lambda',
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, TemplateResource];
}

/** The resource with this logical id; throws when there is none. */
function resourceNamed(logicalId: string): TemplateResource {
  const resource = resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId}`);
  return resource;
}

/** The statements of a function's role (its inline policies). */
function statementsOf(functionId: string): Statement[] {
  const role = resourceNamed(functionId).Properties.Role as { 'Fn::GetAtt': [string] };
  const roleId = role['Fn::GetAtt'][0];
  return (
    (resources[roleId]?.Properties.Policies ?? []) as {
      PolicyDocument: { Statement: Statement[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
}

/** The feedback topic (the other one, opens and clicks, is test/infra/engagement.test.ts's). */
const [topicId] = [...resourcesOfType(template, 'AWS::SNS::Topic')].find(([, topic]) =>
  String(topic.Properties.DisplayName).includes('bounces'),
) ?? [''];
const [tableId] = single('AWS::DynamoDB::Table');

/** Each function's environment variables, by logical id (suffix of 8 hex digits dropped). */
const environments = new Map(
  [...resourcesOfType(template, 'AWS::Lambda::Function')].map(([id, fn]) => [
    id.replace(/[0-9A-F]{8}$/, ''),
    (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
  ]),
);
/** The configuration set a variable of a function names (`{ Ref }` of the set). */
function setNamedBy(functionName: string, variable: string): string {
  const value = environments.get(functionName)?.[variable] as { Ref?: string } | undefined;
  if (!value?.Ref) throw new Error(`${functionName} names no set in ${variable}`);
  return value.Ref;
}
/** The stack's set, which the outbox's mailer names; the campaign set, which only the sender does. */
const configurationSetId = setNamedBy('Mailer', 'NEWSLETTER_SES_CONFIGURATION_SET');
const campaignSetId = setNamedBy(
  'CampaignsCampaignSender',
  'NEWSLETTER_SES_CAMPAIGN_CONFIGURATION_SET',
);

/** `arn:…:ses:<region>:<account>:configuration-set/<the set>`, as CloudFormation joins it. */
const arnOfSet = (setId: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ses:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':configuration-set/',
      { Ref: setId },
    ],
  ],
});
const configurationSetArn = arnOfSet(configurationSetId);

/** The function subscribed to the feedback topic. */
function feedbackFunctionId(): string {
  const [, subscription] = lambdaSubscription();
  const endpoint = subscription.Properties.Endpoint as { 'Fn::GetAtt': [string, string] };
  return endpoint['Fn::GetAtt'][0];
}

describe('the mailer sends with the configuration set', () => {
  it('names it in the environment of exactly the functions that may send mail', () => {
    const functions = [...resourcesOfType(template, 'AWS::Lambda::Function')];
    const naming = functions.filter(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .NEWSLETTER_SES_CONFIGURATION_SET !== undefined,
    );
    const sending = functions.filter(([id]) =>
      statementsOf(id).some((statement) =>
        list(statement.Action).some((action) => action === 'ses:SendRawEmail'),
      ),
    );
    expect(naming.map(([id]) => id)).toEqual(sending.map(([id]) => id));
    // The outbox's mailer and the campaign sender.
    expect(naming.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'CampaignsCampaignSender',
      'Mailer',
    ]);
    for (const [, fn] of naming) {
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .NEWSLETTER_SES_CONFIGURATION_SET,
      ).toEqual({ Ref: configurationSetId });
    }
  });

  it('[campaign.feedback-cost] gives the campaign sender, and only it, a second set', () => {
    // The stack's, the campaign's, and the two tracked ones ([engagement.tracking]).
    expect([...resourcesOfType(template, 'AWS::SES::ConfigurationSet')]).toHaveLength(4);
    expect(campaignSetId).not.toBe(configurationSetId);
    const naming = [...environments]
      .filter(([, variables]) => variables.NEWSLETTER_SES_CAMPAIGN_CONFIGURATION_SET !== undefined)
      .map(([name]) => name);
    expect(naming).toEqual(['CampaignsCampaignSender']);
  });

  it('may send only as the identity and with its configuration sets (SES checks both)', () => {
    const mailOf = (functionName: string) => {
      const [id] = [...resourcesOfType(template, 'AWS::Lambda::Function')].find(
        ([each]) => each.replace(/[0-9A-F]{8}$/, '') === functionName,
      ) ?? [''];
      return statementsOf(id).filter((statement) =>
        list(statement.Action).includes('ses:SendRawEmail'),
      );
    };
    const [mailer, ...otherMailer] = mailOf('Mailer');
    const [sender, ...otherSender] = mailOf('CampaignsCampaignSender');
    expect([...otherMailer, ...otherSender]).toEqual([]);
    const resourcesOf = (statement: Statement | undefined) => list(statement?.Resource);
    expect(resourcesOf(mailer)).toHaveLength(2);
    expect(resourcesOf(mailer)).toContainEqual(configurationSetArn);
    // Identity, the stack's set, the campaign set and the two tracked sets.
    expect(resourcesOf(sender)).toHaveLength(5);
    expect(resourcesOf(sender)).toContainEqual(configurationSetArn);
    expect(resourcesOf(sender)).toContainEqual(arnOfSet(campaignSetId));
    for (const statement of [mailer, sender])
      expect(JSON.stringify(resourcesOf(statement))).toContain(':identity/example.com');
  });
});

describe('the configuration sets report back', () => {
  const destinations = [
    ...resourcesOfType(template, 'AWS::SES::ConfigurationSetEventDestination').values(),
  ].map((destination) => ({
    set: (destination.Properties.ConfigurationSetName as { Ref: string }).Ref,
    ...(destination.Properties.EventDestination as {
      Enabled: boolean;
      MatchingEventTypes: string[];
      SnsDestination: unknown;
    }),
  }));

  it('the stack’s set publishes bounces, complaints and deliveries, and nothing else, to the topic', () => {
    const ofSet = destinations.filter((each) => each.set === configurationSetId);
    expect(ofSet).toHaveLength(1);
    expect(ofSet[0]?.Enabled).toBe(true);
    expect([...(ofSet[0]?.MatchingEventTypes ?? [])].sort()).toEqual([
      'bounce',
      'complaint',
      'delivery',
    ]);
    expect(ofSet[0]?.SnsDestination).toEqual({ TopicARN: { Ref: topicId } });
  });

  it('[campaign.feedback-cost] the campaign set publishes bounces and complaints, no deliveries, to the same topic', () => {
    const ofSet = destinations.filter((each) => each.set === campaignSetId);
    expect(ofSet).toHaveLength(1);
    expect(ofSet[0]?.Enabled).toBe(true);
    expect([...(ofSet[0]?.MatchingEventTypes ?? [])].sort()).toEqual(['bounce', 'complaint']);
    expect(ofSet[0]?.SnsDestination).toEqual({ TopicARN: { Ref: topicId } });
    // Besides: the tracked sets' feedback and their opens and clicks (engagement.test.ts).
    expect(destinations).toHaveLength(6);
  });

  it('lets only SES, for these configuration sets, publish to the topic, and only over TLS', () => {
    const [, policy] = [...resourcesOfType(template, 'AWS::SNS::TopicPolicy')].find(
      ([, each]) => JSON.stringify(each.Properties.Topics) === JSON.stringify([{ Ref: topicId }]),
    ) ?? ['', { Type: '', Properties: {} as Record<string, unknown> }];
    const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    // The stack's set, the campaign set and the two tracked sets.
    expect(allows).toHaveLength(4);
    for (const setId of [configurationSetId, campaignSetId]) {
      expect(allows).toContainEqual(
        expect.objectContaining({
          Action: 'sns:Publish',
          Principal: { Service: 'ses.amazonaws.com' },
          Resource: { Ref: topicId },
          Condition: {
            StringEquals: {
              'AWS:SourceAccount': { Ref: 'AWS::AccountId' },
              'AWS:SourceArn': arnOfSet(setId),
            },
          },
        }),
      );
    }
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('subscribes one function, which SNS alone may invoke, for this topic only', () => {
    const [, subscription] = lambdaSubscription();
    expect(subscription.Properties).toEqual({
      Protocol: 'lambda',
      TopicArn: { Ref: topicId },
      Endpoint: { 'Fn::GetAtt': [feedbackFunctionId(), 'Arn'] },
    });
    const fromSns = [...resourcesOfType(template, 'AWS::Lambda::Permission').values()].filter(
      (permission) => permission.Properties.Principal === 'sns.amazonaws.com',
    );
    expect(fromSns.map((permission) => permission.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [feedbackFunctionId(), 'Arn'] },
        Principal: 'sns.amazonaws.com',
        SourceArn: { Ref: topicId },
      },
    ]);
  });
});

describe('the feedback function', () => {
  it("may read, put, update and delete table items (a campaign recipient's outcome, list index entries) and read the settings, nothing else", () => {
    const logging = resourceNamed(feedbackFunctionId()).Properties.LoggingConfig as {
      LogGroup: { Ref: string };
    };
    const logGroupId = logging.LogGroup.Ref;
    const settingsArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ssm:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':parameter/newsletter/settings',
        ],
      ],
    };
    expect(statementsOf(feedbackFunctionId())).toEqual([
      {
        Sid: 'Logs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
      },
      {
        Sid: 'Table',
        Effect: 'Allow',
        Action: [
          'dynamodb:DeleteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ],
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
      },
      {
        Sid: 'Parameters',
        Effect: 'Allow',
        Action: 'ssm:GetParameter',
        Resource: settingsArn,
      },
    ]);
  });

  it('sends an event it failed on after Lambda’s two retries to its own queue, not to nowhere', () => {
    const configs = [...resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').values()];
    expect(configs.map((config) => config.Properties)).toEqual([
      {
        FunctionName: { Ref: feedbackFunctionId() },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 2,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] } },
        },
      },
    ]);
    const queue = resourceNamed(deadLettersId()).Properties;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    // The role may only send to it: the one statement anywhere that names the queue.
    const naming = [...resourcesOfType(template, 'AWS::IAM::Policy').values()]
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
      )
      .filter((statement) => JSON.stringify(statement.Resource).includes(deadLettersId()));
    expect(naming).toEqual([
      {
        Sid: 'DeadLetters',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] },
      },
    ]);
    // Watched like the other dead-letter queues.
    const watched = [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()].filter(
      (alarm) => JSON.stringify(alarm.Properties.Dimensions ?? []).includes(deadLettersId()),
    );
    expect(watched).toHaveLength(1);
  });
});

/** The logical id of the feedback function's on-failure queue. */
function deadLettersId(): string {
  const ids = [...resourcesOfType(template, 'AWS::SQS::Queue').keys()].filter((id) =>
    id.startsWith('SesFeedbackDeadLetters'),
  );
  if (ids.length !== 1) throw new Error(`expected one feedback queue, found ${ids.join(', ')}`);
  return ids[0] as string;
}

describe('[feedback.alarms] SES reputation alarms', () => {
  const reputation = (metricName: string) =>
    [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()].filter(
      (alarm) =>
        alarm.Properties.Namespace === 'AWS/SES' && alarm.Properties.MetricName === metricName,
    );

  it('fire at half of the rates at which SES reviews an account (5% bounces, 0.1% complaints)', () => {
    for (const [metricName, threshold] of [
      ['Reputation.BounceRate', 0.025],
      ['Reputation.ComplaintRate', 0.0005],
    ] as const) {
      const alarms = reputation(metricName);
      expect(alarms, metricName).toHaveLength(1);
      expect(alarms[0]?.Properties).toMatchObject({
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Statistic: 'Average',
        EvaluationPeriods: 1,
      });
      // Account-wide: SES publishes these metrics without dimensions.
      expect(alarms[0]?.Properties.Dimensions).toBeUndefined();
    }
  });

  it('notify the same topic as every other alarm', () => {
    const topic = 'arn:aws:sns:eu-west-1:123456789012:newsletter-alarms';
    const { template: notifying } = buildApp({ alarmTopicArn: topic });
    const alarms = [...resourcesOfType(notifying, 'AWS::CloudWatch::Alarm')].map(
      ([, alarm]) => alarm,
    );
    const ses = alarms.filter((alarm) => alarm.Properties.Namespace === 'AWS/SES');
    expect(ses).toHaveLength(2);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
    }
  });
});
