/**
 * Least privilege in both directions, judged against the calls a scenario really made: a grant
 * is needed when some recorded call is allowed by that grant alone, and removing it must make
 * some recorded call fail. Both questions go to the same IAM evaluator the local cloud uses
 * (iam-simulate), with one-grant and one-grant-less policies, so no policy is matched by hand.
 */
import type { RecordedCall } from '../../infra/local/cloud/aws-endpoint.ts';
import { callAllowed } from '../../infra/local/cloud/aws-requests.ts';
import type {
  DeployedFunction,
  PolicyDocument,
  PolicyStatement,
} from '../../infra/local/cloud/deployed-stack.ts';
import { evaluate } from '../../infra/local/cloud/iam-evaluator.ts';

/** One action on one resource pattern of an Allow statement (with its conditions). */
export interface Grant {
  readonly sid: string;
  readonly action: string;
  readonly resource: string;
  readonly condition?: PolicyStatement['Condition'];
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/**
 * Statements the function's code never exercises: Lambda itself writes the function's logs
 * with them (logs:CreateLogStream, logs:PutLogEvents), outside any SDK call of ours.
 */
export const SERVICE_USED_SIDS: ReadonlySet<string> = new Set(['Logs']);

/** Every grant of a policy, one per action and resource. */
export function grantsOf(policy: PolicyDocument): Grant[] {
  return policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap(
    (statement, index) =>
      list(statement.Action).flatMap((action) =>
        list(statement.Resource).map((resource) => ({
          sid: statement.Sid ?? `#${index}`,
          action,
          resource,
          ...(statement.Condition ? { condition: statement.Condition } : {}),
        })),
      ),
  );
}

const asPolicy = (grants: readonly Grant[]): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: grants.map((grant) => ({
    Sid: grant.sid.replace(/[^A-Za-z0-9]/g, '') || 'Grant',
    Effect: 'Allow',
    Action: grant.action,
    Resource: grant.resource,
    ...(grant.condition ? { Condition: grant.condition } : {}),
  })),
});

/** Whether a recorded call would be allowed under `policy` (SES: one identity suffices). */
async function allowedUnder(
  fn: DeployedFunction,
  policy: PolicyDocument,
  call: RecordedCall,
): Promise<boolean> {
  const verdicts = await Promise.all(
    call.authorizations.map(
      async (authorization) => (await evaluate(fn.roleArn, policy, authorization)).allowed,
    ),
  );
  return callAllowed(call.authorizations, verdicts);
}

/** `Sid action resource`, for messages. */
export const describeGrant = (grant: Grant): string =>
  `${grant.sid} ${grant.action} ${grant.resource}`;

/** The grants of `policy` that no call of `calls` needs. */
export async function unusedGrants(
  fn: DeployedFunction,
  policy: PolicyDocument,
  calls: readonly RecordedCall[],
): Promise<Grant[]> {
  const unused: Grant[] = [];
  for (const grant of grantsOf(policy)) {
    if (SERVICE_USED_SIDS.has(grant.sid)) continue;
    const alone = asPolicy([grant]);
    let used = false;
    for (const call of calls) {
      for (const authorization of call.authorizations) {
        if ((await evaluate(fn.roleArn, alone, authorization)).allowed) {
          used = true;
          break;
        }
      }
      if (used) break;
    }
    if (!used) unused.push(grant);
  }
  return unused;
}

/** For each grant of `policy`: the recorded calls that fail once that grant is removed. */
export async function callsFailingWithout(
  fn: DeployedFunction,
  policy: PolicyDocument,
  calls: readonly RecordedCall[],
): Promise<{ grant: Grant; failing: RecordedCall[] }[]> {
  const grants = grantsOf(policy);
  const results: { grant: Grant; failing: RecordedCall[] }[] = [];
  for (const grant of grants) {
    if (SERVICE_USED_SIDS.has(grant.sid)) continue;
    const without = asPolicy(grants.filter((other) => other !== grant));
    const failing: RecordedCall[] = [];
    for (const call of calls) {
      if (!(await allowedUnder(fn, without, call))) failing.push(call);
    }
    results.push({ grant, failing });
  }
  return results;
}
