/**
 * Decides whether a role may make a request, with AWS's own evaluation logic as implemented by
 * `@cloud-copilot/iam-simulate` (a maintained simulator of IAM policy evaluation: actions and
 * resource types checked against AWS's service reference, wildcards, condition operators,
 * missing condition keys). We never match policies ourselves.
 *
 * The simulator is licensed AGPL-3.0; it is a development dependency used only by the local
 * cloud and the tests, never bundled into a function or shipped in the package.
 */
import {
  allowedContextKeysForRequest,
  runSimulation,
  runUnsafeSimulation,
  type Simulation,
} from '@cloud-copilot/iam-simulate';
import type { PolicyDocument } from './deployed-stack.ts';
import { LOCAL_ACCOUNT } from './intrinsics.ts';

/** What IAM authorizes: one action on one resource, with the request's condition keys. */
export interface AuthorizationRequest {
  readonly action: string;
  readonly resource: string;
  readonly context?: Readonly<Record<string, string | string[]>>;
  /**
   * The resource's own policy (a queue policy), evaluated with the identity policy as AWS does
   * within one account: either may allow, an explicit deny in either refuses.
   */
  readonly resourcePolicy?: PolicyDocument;
}

/** The verdict on one request. */
export interface Verdict {
  readonly allowed: boolean;
  /** Sids of the Allow statements that matched (empty when denied, or unknown). */
  readonly statements: readonly string[];
  /** Why the simulator refused to evaluate (an unknown action, a resource of the wrong type). */
  readonly invalid?: string;
}

/** The key policy of an AWS managed key (aws/ssm): it delegates to the account's IAM policies. */
const MANAGED_KEY_POLICY = {
  __validated: true,
  errors: [],
  metadata: { name: 'aws/ssm key policy' },
  policyDocument: {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${LOCAL_ACCOUNT}:root` },
        Action: 'kms:*',
        Resource: '*',
      },
    ],
  },
};

const isKmsKey = (resource: string): boolean => /^arn:aws:kms:[^:]*:[^:]*:key\//.test(resource);

/**
 * Verdicts already reached, per identity policy (the template's documents, never changed while
 * they are in use): the same role asking the same thing gets the same answer, and a worker
 * asks the same thing thousands of times (every GetItem on the table, every receive of its
 * queue). Bounded, so requests that never repeat cannot grow it.
 */
const verdicts = new WeakMap<PolicyDocument, Map<string, Promise<Verdict>>>();
const resourcePolicyIds = new WeakMap<PolicyDocument, number>();
const MAX_VERDICTS_PER_POLICY = 5_000;
/** Each policy document's text in lower case, to see which condition keys it names. */
const policyTexts = new WeakMap<PolicyDocument, string>();

/**
 * Evaluates `request` for the role `roleArn` whose identity policy is `policy`, as AWS would
 * for a same-account request, with the resource's own policy if the request carries one.
 */
export function evaluate(
  roleArn: string,
  policy: PolicyDocument,
  request: AuthorizationRequest,
): Promise<Verdict> {
  let known = verdicts.get(policy);
  if (!known) {
    known = new Map();
    verdicts.set(policy, known);
  }
  const key = JSON.stringify([
    roleArn,
    request.action,
    request.resource,
    contextKey(request, policy),
    request.resourcePolicy ? idOf(request.resourcePolicy) : 0,
  ]);
  const cached = known.get(key);
  if (cached) return cached;
  if (known.size >= MAX_VERDICTS_PER_POLICY) known.clear();
  const verdict = evaluateOnce(roleArn, policy, request);
  known.set(key, verdict);
  // A failure is not an answer to keep.
  verdict.catch(() => known.delete(key));
  return verdict;
}

/**
 * The request's condition keys as far as they can change the verdict: every key's name (the
 * simulator checks the names against the action), and the value only of a key that one of the
 * policies names, in a condition or as a `${variable}`. IAM reads a value nowhere else, so an
 * SES send's recipients, which no policy of ours names, no longer make every send a new
 * evaluation, while a policy that does name `ses:Recipients` still sees each send's own.
 */
function contextKey(
  request: AuthorizationRequest,
  policy: PolicyDocument,
): (string | [string, string | readonly string[]])[] {
  const texts = [
    textOf(policy),
    ...(request.resourcePolicy ? [textOf(request.resourcePolicy)] : []),
  ];
  return Object.entries(request.context ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) =>
      texts.some((text) => text.includes(name.toLowerCase())) ? [name, value] : name,
    );
}

function textOf(document: PolicyDocument): string {
  let text = policyTexts.get(document);
  if (text === undefined) {
    text = JSON.stringify(document).toLowerCase();
    policyTexts.set(document, text);
  }
  return text;
}

let lastPolicyId = 0;
/** A number per resource policy document, for the cache's keys. */
function idOf(document: PolicyDocument): number {
  let id = resourcePolicyIds.get(document);
  if (id === undefined) {
    lastPolicyId += 1;
    id = lastPolicyId;
    resourcePolicyIds.set(document, id);
  }
  return id;
}

async function evaluateOnce(
  roleArn: string,
  policy: PolicyDocument,
  request: AuthorizationRequest,
): Promise<Verdict> {
  const context = { ...request.context };
  const simulation: Simulation = {
    request: {
      principal: roleArn,
      action: request.action,
      resource: { resource: request.resource, accountId: LOCAL_ACCOUNT },
      contextVariables: context,
    },
    identityPolicies: [{ name: 'role', policy }],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(isKmsKey(request.resource)
      ? { resourcePolicy: MANAGED_KEY_POLICY }
      : request.resourcePolicy
        ? { resourcePolicy: request.resourcePolicy }
        : {}),
  } as Simulation;
  const outcome = await runSimulation(simulation, { simulationMode: 'Strict' });
  if (outcome.resultType === 'error') {
    return { allowed: false, statements: [], invalid: outcome.errors.message };
  }
  const results = outcome.resultType === 'single' ? [outcome.result] : outcome.results;
  const ignored = results.flatMap((result) => result.ignoredContextKeys ?? []);
  // iam-simulate 0.1.173 drops condition keys with a variable part after a colon
  // (`kms:EncryptionContext:PARAMETER_ARN`) as unknown, so a condition on them can never match.
  // When such a key is one the action really supports, evaluate again without dropping it.
  const [service = '', action = ''] = request.action.split(':');
  const variableKeyPrefixes = ignored.length
    ? (await allowedContextKeysForRequest(service, action, request.resource, false, undefined))
        .filter((key) => /:\$\{[^}]+\}$/.test(key))
        .map((key) => key.replace(/\$\{[^}]+\}$/, '').toLowerCase())
    : [];
  const wronglyIgnored = ignored.filter((key) =>
    variableKeyPrefixes.some((prefix) => key.toLowerCase().startsWith(prefix)),
  );
  if (wronglyIgnored.length > 0) {
    const keep = Object.fromEntries(
      Object.entries(context).filter(
        ([key]) => !ignored.includes(key) || wronglyIgnored.includes(key),
      ),
    );
    const result = runUnsafeSimulation(
      { ...simulation, request: { ...simulation.request, contextVariables: keep } },
      {},
    );
    return { allowed: result === 'Allowed', statements: [] };
  }
  const statements = results.flatMap((result) =>
    (result.analysis.identityAnalysis?.allowStatements ?? []).map(
      (match) => match.statement.sid() ?? `#${match.statement.index()}`,
    ),
  );
  return { allowed: outcome.overallResult === 'Allowed', statements: [...new Set(statements)] };
}

/**
 * Evaluates `request` made by an AWS service (`ses.amazonaws.com` publishing to a topic, say)
 * against the target's resource policy alone, as AWS does for a service principal: allowed
 * only when the resource policy allows it and nothing denies it.
 */
export async function evaluateServicePrincipal(
  servicePrincipal: string,
  resourcePolicy: PolicyDocument | undefined,
  request: AuthorizationRequest,
): Promise<Verdict> {
  if (!resourcePolicy) return { allowed: false, statements: [] };
  const simulation: Simulation = {
    request: {
      principal: servicePrincipal,
      action: request.action,
      resource: { resource: request.resource, accountId: LOCAL_ACCOUNT },
      contextVariables: { ...request.context },
    },
    identityPolicies: [],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy,
  };
  const outcome = await runSimulation(simulation, { simulationMode: 'Strict' });
  if (outcome.resultType === 'error') {
    return { allowed: false, statements: [], invalid: outcome.errors.message };
  }
  return { allowed: outcome.overallResult === 'Allowed', statements: [] };
}
