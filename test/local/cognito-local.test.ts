/**
 * Cognito in the local cloud: cognito-local behind the loopback endpoint that checks every
 * signed call against the caller's role as IAM would. A function granted one admin action on
 * the pool may call that one, on that pool, and is refused any other, or the same action on
 * another pool, with Cognito's AccessDeniedException ([people.least-privilege]).
 */
import {
  AccessDeniedException,
  AdminCreateUserCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolCommand,
  ListUsersCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsEndpoint, startAwsEndpoint } from '../../infra/local/cloud/aws-endpoint.ts';
import { type CognitoLocal, startCognitoLocal } from '../../infra/local/stand-ins/cognito-local.ts';

let cognito: CognitoLocal;
let endpoint: AwsEndpoint;
let pool: string;
let other: string;

const poolArn = (id: string) => `arn:aws:cognito-idp:us-east-1:123456789012:userpool/${id}`;

beforeAll(async () => {
  cognito = await startCognitoLocal();
  endpoint = await startAwsEndpoint({
    upstreams: { 'cognito-idp': cognito.endpoint },
    facts: { isSecureParameter: () => false, queueArn: () => undefined },
  });
  const operator = new CognitoIdentityProviderClient({
    endpoint: cognito.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  pool =
    (await operator.send(new CreateUserPoolCommand({ PoolName: 'people' }))).UserPool?.Id ?? '';
  other =
    (await operator.send(new CreateUserPoolCommand({ PoolName: 'other' }))).UserPool?.Id ?? '';
  operator.destroy();
});

afterAll(async () => {
  await endpoint?.stop();
  await cognito?.stop();
});

describe('[people.least-privilege] Cognito calls through the local endpoint', () => {
  it('allows exactly the granted action on the granted pool, and refuses the rest as IAM does', async () => {
    const credentials = endpoint.register({
      name: 'people-list',
      roleArn: 'arn:aws:iam::123456789012:role/PeopleList',
      policy: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'People',
            Effect: 'Allow',
            Action: ['cognito-idp:ListUsers'],
            Resource: [poolArn(pool)],
          },
        ],
      },
    });
    const client = new CognitoIdentityProviderClient({
      endpoint: endpoint.url,
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
    });
    try {
      const listed = await client.send(new ListUsersCommand({ UserPoolId: pool }));
      expect(listed.Users).toEqual([]);
      // Not granted: another action on the same pool, the same action on another pool.
      await expect(
        client.send(
          new AdminCreateUserCommand({
            UserPoolId: pool,
            Username: 'x@example.com',
            MessageAction: 'SUPPRESS',
          }),
        ),
      ).rejects.toBeInstanceOf(AccessDeniedException);
      await expect(client.send(new ListUsersCommand({ UserPoolId: other }))).rejects.toThrow(
        /not authorized to perform: cognito-idp:ListUsers on resource: .*userpool\/local_/,
      );
    } finally {
      client.destroy();
    }
    expect(endpoint.denials.map((denial) => [denial.action, denial.resource])).toEqual([
      ['cognito-idp:AdminCreateUser', poolArn(pool)],
      ['cognito-idp:ListUsers', poolArn(other)],
    ]);
  });
});
