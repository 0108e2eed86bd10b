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
});
