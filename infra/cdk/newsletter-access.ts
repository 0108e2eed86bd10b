/**
 * For another team's CDK app whose Lambda imports the package: the props and the grants that
 * let it call the operations it names, and nothing else. `import { newsletterFunctionProps,
 * grantNewsletterAccess } from 'serverless-newsletter/cdk'`.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction, ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import { type Route, type RouteName, routeNamed } from '../../functions/routes.ts';
import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { ENV, ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { PARAMETERS_EXTENSION } from './constructs/newsletter-function.ts';
import { type AccessTargets, routePolicyStatements } from './route-access-policy.ts';

/** The operations of the function class. */
export type OperationName =
  | 'subscribe'
  | 'unsubscribe'
  | 'add_subscriber'
  | 'delete_subscriber'
  | 'subscribers'
  | 'newsletters';

/**
 * Each operation in-process: the route whose function does the same work, and whether the
 * operation reads the settings. In-process callers are trusted: no key is read, and
 * `newsletters` lists every issue (the `recent` index only).
 */
const OPERATIONS: Readonly<
  Record<OperationName, { readonly route: RouteName; readonly settings: boolean }>
> = {
  subscribe: { route: 'subscribe', settings: true },
  unsubscribe: { route: 'unsubscribe', settings: false },
  add_subscriber: { route: 'subscribers-add', settings: true },
  delete_subscriber: { route: 'subscribers-delete', settings: false },
  subscribers: { route: 'subscribers-list', settings: false },
  newsletters: { route: 'newsletters', settings: false },
};

/** Where the service lives, as the consumer's app knows it. */
export interface NewsletterAccessProps {
  /** The operations the function calls. */
  readonly operations: readonly OperationName[];
  readonly tableName: string;
  readonly tableArn: string;
  /** The settings parameter (default `/newsletter/settings`). */
  readonly settingsParameter?: string;
  /** How long the function keeps the settings (seconds, default 300). */
  readonly parameterCacheSeconds?: number;
}

/** The route of an operation as an in-process call needs it: trusted, its own settings use. */
function inProcess(operation: OperationName): Route {
  const { route: name, settings } = OPERATIONS[operation];
  const route = routeNamed(name);
  return {
    ...route,
    key: 'none',
    access: {
      ...route.access,
      settings,
      queries: operation === 'newsletters' ? [INDEX.recent.name] : route.access.queries,
    },
  };
}

const readsSettings = (props: NewsletterAccessProps): boolean =>
  props.operations.some((operation) => OPERATIONS[operation].settings);

/**
 * Environment and layer for the consumer's function: spread into its props.
 * `new NodejsFunction(this, 'Fn', { ...newsletterFunctionProps(props), entry, ... })`.
 */
export function newsletterFunctionProps(props: NewsletterAccessProps): {
  readonly environment: Record<string, string>;
  readonly paramsAndSecrets?: ParamsAndSecretsLayerVersion;
} {
  const environment: Record<string, string> = {
    [ENV.table]: props.tableName,
    [ENV.settingsParameter]: props.settingsParameter ?? ENV_DEFAULTS.settingsParameter,
    [ENV.parameterCacheSeconds]: String(
      props.parameterCacheSeconds ?? ENV_DEFAULTS.parameterCacheSeconds,
    ),
  };
  return readsSettings(props)
    ? { environment, paramsAndSecrets: PARAMETERS_EXTENSION }
    : { environment };
}

/** The statements the operations need: the table's item actions and indexes, the settings. */
export function newsletterAccessStatements(
  scope: IFunction,
  props: NewsletterAccessProps,
): PolicyStatement[] {
  const stack = Stack.of(scope);
  const settingsParameter = props.settingsParameter ?? ENV_DEFAULTS.settingsParameter;
  const targets: AccessTargets = {
    tableArn: props.tableArn,
    indexArns: Object.fromEntries(
      Object.values(INDEX).map((index) => [index.name, `${props.tableArn}/index/${index.name}`]),
    ) as AccessTargets['indexArns'],
    // In-process calls never read the key; the ARN is never granted.
    apiKeyParameterArn: '',
    settingsParameterArn: stack.formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: settingsParameter.replace(/^\//, ''),
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
    // No operation sends mail in-process: the outbox and the stack's mailer do.
    mailIdentityArns: [],
    senderIdentity: '',
    anyKeyArn: '',
    region: stack.region,
  };
  // One statement per kind, actions and resources merged over the operations.
  const merged = new Map<string, PolicyStatement>();
  for (const operation of props.operations) {
    for (const statement of routePolicyStatements(inProcess(operation), targets)) {
      const sid = statement.sid ?? '';
      const existing = merged.get(sid);
      if (!existing) merged.set(sid, statement);
      else {
        existing.addActions(...statement.actions.filter((a) => !existing.actions.includes(a)));
        existing.addResources(
          ...statement.resources.filter((r) => !existing.resources.includes(r)),
        );
      }
    }
  }
  return [...merged.values()];
}

/** Grants the consumer's function exactly what its operations call. */
export function grantNewsletterAccess(fn: IFunction, props: NewsletterAccessProps): void {
  for (const statement of newsletterAccessStatements(fn, props)) fn.addToRolePolicy(statement);
}
