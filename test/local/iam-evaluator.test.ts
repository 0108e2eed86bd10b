/**
 * The local cloud's IAM verdicts are remembered per policy. A condition key's value is part of
 * what is remembered only when a policy names the key: an SES send's recipients, which no
 * policy of ours names, must not make every send a fresh simulation (the local cloud's
 * heaviest work per campaign mail), and a policy that names them must still see each send's.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const simulations = vi.hoisted(() => ({ count: 0 }));
vi.mock('@cloud-copilot/iam-simulate', async (original) => {
  const real = await original<typeof import('@cloud-copilot/iam-simulate')>();
  return {
    ...real,
    runSimulation: (...args: Parameters<typeof real.runSimulation>) => {
      simulations.count += 1;
      return real.runSimulation(...args);
    },
  };
});

const { evaluate } = await import('../../infra/local/cloud/iam-evaluator.ts');
type PolicyDocument = Parameters<typeof evaluate>[1];

const ROLE = 'arn:aws:iam::123456789012:role/Mailer';
const IDENTITY = 'arn:aws:ses:us-east-1:123456789012:identity/example.com';
const sendTo = (recipient: string) => ({
  action: 'ses:SendRawEmail',
  resource: IDENTITY,
  context: { 'ses:FromAddress': 'news@example.com', 'ses:Recipients': [recipient] },
});

describe('the local IAM verdicts', () => {
  beforeEach(() => {
    simulations.count = 0;
  });

  it('are simulated once for requests that differ only in a key no policy names', async () => {
    const policy: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ses:SendRawEmail', Resource: IDENTITY }],
    };
    const verdicts = [];
    for (const reader of ['a@example.org', 'b@example.org', 'c@elsewhere.net'])
      verdicts.push((await evaluate(ROLE, policy, sendTo(reader))).allowed);
    expect(verdicts).toEqual([true, true, true]);
    expect(simulations.count).toBe(1);
  });

  it('are simulated for each value of a key a policy names', async () => {
    const policy: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'ses:SendRawEmail',
          Resource: IDENTITY,
          Condition: { 'ForAllValues:StringLike': { 'SES:recipients': '*@example.org' } },
        },
      ],
    };
    const verdicts = [];
    for (const reader of ['a@example.org', 'b@example.org', 'c@elsewhere.net', 'a@example.org'])
      verdicts.push((await evaluate(ROLE, policy, sendTo(reader))).allowed);
    expect(verdicts).toEqual([true, true, false, true]);
    expect(simulations.count).toBe(3);
  });
});
