/**
 * What the local cloud's endpoint asks IAM for an SES send, judged by the same evaluator: a send
 * that names a configuration set is authorized against the sending identity (the address or
 * its domain) and against the configuration set, as SES documents it, so a role that lacks
 * either grant is refused here as on AWS.
 */
import { describe, expect, it } from 'vitest';
import {
  authorizationsFor,
  callAllowed,
  decisiveRefusal,
  readWireCall,
  type WireCall,
} from '../../infra/local/cloud/aws-requests.ts';
import type { PolicyDocument } from '../../infra/local/cloud/deployed-stack.ts';
import { evaluate } from '../../infra/local/cloud/iam-evaluator.ts';

const ROLE = 'arn:aws:iam::123456789012:role/Mailer';
const IDENTITY = 'arn:aws:ses:us-east-1:123456789012:identity/example.com';
const SET = 'arn:aws:ses:us-east-1:123456789012:configuration-set/Newsletter-Mail';

const send = (configurationSet?: string): WireCall => ({
  service: 'ses',
  operation: 'SendRawEmail',
  input: {
    Action: 'SendRawEmail',
    Source: 'news@example.com',
    'Destinations.member.1': 'reader@example.org',
    'RawMessage.Data': Buffer.from('From: news@example.com\r\n\r\nhi').toString('base64'),
    ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
  },
});

const facts = { isSecureParameter: () => false, ssmKeyArn: '', queueArn: () => undefined };

const policy = (...resources: string[]): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'Mail',
      Effect: 'Allow',
      Action: 'ses:SendRawEmail',
      Resource: resources,
      Condition: { StringLike: { 'ses:FromAddress': '*@example.com' } },
    },
  ],
});

async function judge(call: WireCall, granted: PolicyDocument) {
  const requests = authorizationsFor(call, facts);
  const judged = await Promise.all(
    requests.map(async (request) => ({
      ...request,
      allowed: (await evaluate(ROLE, granted, request)).allowed,
    })),
  );
  return {
    allowed: callAllowed(
      judged,
      judged.map((each) => each.allowed),
    ),
    refused: decisiveRefusal(judged)?.resource,
  };
}

describe('an SES send, as the local endpoint authorizes it', () => {
  it('needs the configuration set it names besides one of the identities', async () => {
    const resources = authorizationsFor(send('Newsletter-Mail'), facts).map((each) => [
      each.resource,
      each.anyOf,
    ]);
    expect(resources).toEqual([
      ['arn:aws:ses:us-east-1:123456789012:identity/news@example.com', 'identity'],
      [IDENTITY, 'identity'],
      [SET, undefined],
    ]);
  });

  it('is refused, naming the configuration set, when only the identity is granted', async () => {
    expect(await judge(send('Newsletter-Mail'), policy(IDENTITY))).toEqual({
      allowed: false,
      refused: SET,
    });
  });

  it('is refused, naming an identity, when only the configuration set is granted', async () => {
    expect(await judge(send('Newsletter-Mail'), policy(SET))).toEqual({
      allowed: false,
      refused: 'arn:aws:ses:us-east-1:123456789012:identity/news@example.com',
    });
  });

  it('is allowed with both, and without a configuration set with the identity alone', async () => {
    expect((await judge(send('Newsletter-Mail'), policy(IDENTITY, SET))).allowed).toBe(true);
    expect((await judge(send(), policy(IDENTITY))).allowed).toBe(true);
  });

  it('is judged by its own recipients when a policy names ses:Recipients, whatever was judged before', async () => {
    const toOwnDomain: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'ses:SendRawEmail',
          Resource: IDENTITY,
          Condition: { 'ForAllValues:StringLike': { 'ses:Recipients': '*@example.org' } },
        },
      ],
    };
    const to = (address: string): WireCall => ({
      ...send(),
      input: { ...send().input, 'Destinations.member.1': address },
    });
    expect((await judge(to('reader@example.org'), toOwnDomain)).allowed).toBe(true);
    expect((await judge(to('reader@elsewhere.net'), toOwnDomain)).allowed).toBe(false);
    expect((await judge(to('other@example.org'), toOwnDomain)).allowed).toBe(true);
  });
});

const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:Work';
const sqsFacts = (queuePolicy?: PolicyDocument) => ({
  ...facts,
  queueArn: (url: string) => (url.endsWith('/Work') ? QUEUE : undefined),
  ...(queuePolicy ? { queuePolicy: () => queuePolicy } : {}),
});
const sqsCall = (operation: string, input: Record<string, unknown>): WireCall => ({
  service: 'sqs',
  operation,
  input,
});
const queueUrl = 'http://127.0.0.1:1/123456789012/Work';

/** What CDK's `enforceSSL: true` writes into a queue's policy. */
const ENFORCE_SSL: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:*',
      Resource: QUEUE,
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    },
  ],
};

async function allowedSqs(call: WireCall, granted: PolicyDocument, queuePolicy?: PolicyDocument) {
  const requests = authorizationsFor(call, sqsFacts(queuePolicy));
  const verdicts = await Promise.all(
    requests.map(async (request) => (await evaluate(ROLE, granted, request)).allowed),
  );
  return callAllowed(requests, verdicts);
}

const grant = (action: string, resource = QUEUE): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: action, Resource: resource }],
});

describe('an SQS call, as the local endpoint authorizes it', () => {
  it('authorizes a batch call as its single action on the queue of the URL', () => {
    const actions = [
      'SendMessageBatch',
      'DeleteMessageBatch',
      'ChangeMessageVisibilityBatch',
      'ReceiveMessage',
      'PurgeQueue',
    ].map((operation) =>
      authorizationsFor(sqsCall(operation, { QueueUrl: queueUrl }), sqsFacts()).map(
        (each) => `${each.action} ${each.resource}`,
      ),
    );
    expect(actions).toEqual([
      [`sqs:SendMessage ${QUEUE}`],
      [`sqs:DeleteMessage ${QUEUE}`],
      [`sqs:ChangeMessageVisibility ${QUEUE}`],
      [`sqs:ReceiveMessage ${QUEUE}`],
      [`sqs:PurgeQueue ${QUEUE}`],
    ]);
  });

  it('authorizes GetQueueUrl on the queue the name (and owner) names', () => {
    const [request] = authorizationsFor(sqsCall('GetQueueUrl', { QueueName: 'Work' }), sqsFacts());
    expect(request?.resource).toBe(QUEUE);
    const [other] = authorizationsFor(
      sqsCall('GetQueueUrl', { QueueName: 'Work', QueueOwnerAWSAccountId: '210987654321' }),
      sqsFacts(),
    );
    expect(other?.resource).toBe('arn:aws:sqs:us-east-1:210987654321:Work');
  });

  it('needs sqs:SendMessage for SendMessageBatch, and nothing grants a batch action by its name', async () => {
    const batch = sqsCall('SendMessageBatch', { QueueUrl: queueUrl, Entries: [] });
    expect(await allowedSqs(batch, grant('sqs:SendMessage'))).toBe(true);
    expect(await allowedSqs(batch, grant('sqs:ReceiveMessage'))).toBe(false);
  });

  it("lets enforceSSL's deny pass, since SDK calls go over TLS on AWS, but applies any other deny of the queue policy", async () => {
    const send = sqsCall('SendMessage', { QueueUrl: queueUrl, MessageBody: 'x' });
    expect(await allowedSqs(send, grant('sqs:SendMessage'), ENFORCE_SSL)).toBe(true);
    const denyRole: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Deny', Principal: { AWS: ROLE }, Action: 'sqs:SendMessage', Resource: QUEUE },
      ],
    };
    expect(await allowedSqs(send, grant('sqs:SendMessage'), denyRole)).toBe(false);
  });
});

describe("SES's account-level calls", () => {
  it('authorizes GetSendQuota on "*", the only resource IAM knows for it', async () => {
    const call: WireCall = { service: 'ses', operation: 'GetSendQuota', input: {} };
    const requests = authorizationsFor(call, facts);
    expect(requests).toEqual([{ action: 'ses:GetSendQuota', resource: '*' }]);
    expect((await evaluate(ROLE, grant('ses:GetSendQuota', '*'), requests[0]!)).allowed).toBe(true);
  });
});

describe("EventBridge Scheduler's calls, as a function that schedules makes them", () => {
  const SCHEDULE =
    'arn:aws:scheduler:us-east-1:123456789012:schedule/Sends/newsletter-7-20261201T090000Z';
  const SCHEDULER_ROLE = 'arn:aws:iam::123456789012:role/SchedulerRole';
  const scheduling: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        Resource: 'arn:aws:scheduler:us-east-1:123456789012:schedule/Sends/newsletter-*',
      },
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: SCHEDULER_ROLE,
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ],
  };
  const allowedUnder = async (call: WireCall, granted: PolicyDocument) => {
    const requests = authorizationsFor(call, facts);
    const verdicts = await Promise.all(
      requests.map(async (request) => (await evaluate(ROLE, granted, request)).allowed),
    );
    return callAllowed(requests, verdicts);
  };

  it('reads CreateSchedule (POST, group in the body) and DeleteSchedule (DELETE, group in the query)', () => {
    const body = Buffer.from(
      JSON.stringify({ GroupName: 'Sends', Target: { RoleArn: SCHEDULER_ROLE } }),
    );
    const create = readWireCall('scheduler', {}, '/schedules/newsletter-7-20261201T090000Z', body);
    const remove = readWireCall(
      'scheduler',
      {},
      '/schedules/newsletter-7-20261201T090000Z?groupName=Sends&clientToken=x',
      Buffer.alloc(0),
      'DELETE',
    );
    expect(create && authorizationsFor(create, facts)).toEqual([
      { action: 'scheduler:CreateSchedule', resource: SCHEDULE },
      {
        action: 'iam:PassRole',
        resource: SCHEDULER_ROLE,
        context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      },
    ]);
    expect(remove && authorizationsFor(remove, facts)).toEqual([
      { action: 'scheduler:DeleteSchedule', resource: SCHEDULE },
    ]);
    expect(readWireCall('scheduler', {}, '/schedules', Buffer.alloc(0), 'GET')).toBeUndefined();
  });

  it('creates a schedule only with both grants: the schedule in the group, and passing the role', async () => {
    const create: WireCall = {
      service: 'scheduler',
      operation: 'CreateSchedule',
      input: {
        Name: 'newsletter-7-20261201T090000Z',
        GroupName: 'Sends',
        Target: { RoleArn: SCHEDULER_ROLE },
      },
    };
    expect(await allowedUnder(create, scheduling)).toBe(true);
    const withoutPassRole = { ...scheduling, Statement: scheduling.Statement.slice(0, 1) };
    expect(await allowedUnder(create, withoutPassRole)).toBe(false);
    // Another group, another name, another role: refused.
    for (const input of [
      { ...create.input, GroupName: 'default' },
      { ...create.input, Name: 'someone-else' },
      { ...create.input, Target: { RoleArn: 'arn:aws:iam::123456789012:role/Admin' } },
    ])
      expect(await allowedUnder({ ...create, input }, scheduling)).toBe(false);
  });
});
