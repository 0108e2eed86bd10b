import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { ORIGIN_HEADER } from '../../functions/http/client-address.ts';
import { errorBody } from './gateway-errors.ts';

/** Windows AWS WAF's rate-based rules count in (EvaluationWindowSec). */
export const RATE_WINDOWS = [60, 120, 300, 600] as const;

/** Requests one client address may send in one window, per group of routes. */
export interface RateLimits {
  /** The public sign-up forms (v1 `/subscribe`, v2 `/subscriptions`). */
  readonly signUp: number;
  /** The unsubscribe page and RFC 8058 one-click; counted apart from everything else. */
  readonly unsubscribe: number;
  /** Every other request (the console's files too, at the distribution). */
  readonly api: number;
  readonly windowSeconds: (typeof RATE_WINDOWS)[number];
}

/** The request paths (stage included) each group of routes answers at. */
export interface LimitedPaths {
  readonly signUp: readonly string[];
  readonly unsubscribe: readonly string[];
}

/** What a web ACL of per-client limits is built from. */
export interface ClientLimitRulesOptions {
  readonly limits: RateLimits;
  readonly paths: LimitedPaths;
  /**
   * The header holding the client's address, for a web ACL whose peer is a proxy (the API's
   * stage, behind CloudFront: the viewer-request function writes it); none: the peer is the
   * client (the distribution's own web ACL).
   */
  readonly clientHeader?: string;
  /** Origin secrets, one of which a request must carry in ORIGIN_HEADER; none: no such rule. */
  readonly originSecrets?: readonly string[];
  /** Prefix of the rules' CloudWatch metric names (letters and digits). */
  readonly metricPrefix: string;
  /**
   * Headers of every refusal: `Access-Control-Allow-Origin` when it can be static, so a page
   * calling a public route reads why ([http.cors]).
   */
  readonly responseHeaders?: readonly { readonly name: string; readonly value: string }[];
}

/** Keys of the web ACL's custom response bodies. */
export const RESPONSE_BODIES = {
  rateLimited: 'rate_limited',
  notThroughCloudFront: 'forbidden',
} as const;

/** Names of the rules, as they appear in the template, CloudWatch and the WAF console. */
export const RULE_NAMES = {
  origin: 'OnlyThroughCloudFront',
  unsubscribe: 'OneClickUnsubscribePerClient',
  signUp: 'SignUpPerClient',
  api: 'EverythingElsePerClient',
} as const;

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

const headerIs = (name: string, value: string): CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: { singleHeader: { Name: name } },
    positionalConstraint: 'EXACTLY',
    searchString: value,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

/**
 * A request for one of `paths`: API Gateway routes `/subscribe/` to `/subscribe` too, and a
 * percent-encoded letter to the same resource, so both forms are matched after URL decoding.
 */
function pathIsOneOf(paths: readonly string[]): CfnWebACL.StatementProperty {
  const statements: CfnWebACL.StatementProperty[] = paths.flatMap((path) =>
    [path, `${path}/`].map((form) => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'EXACTLY',
        searchString: form,
        textTransformations: [{ priority: 0, type: 'URL_DECODE' }],
      },
    })),
  );
  const [only] = statements;
  return statements.length === 1 && only ? only : { orStatement: { statements } };
}

const anyOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty => {
  const [only] = statements;
  return statements.length === 1 && only ? only : { orStatement: { statements } };
};

/**
 * The rules of a web ACL of per-client limits ([http.client-limits]): first, where origin
 * secrets are given, every request without one of them is refused (403): the API answers only
 * what came through the stack's CloudFront ([http.front-door]). Then three rate-based rules,
 * each counting per client address in its own window: the unsubscribe page and one-click (its
 * own count, so nothing else a client does can refuse it), the sign-up forms, and everything
 * else but unsubscribing. A client over a limit is answered 429 in the API's error shape until
 * its rate falls below it; other clients are not affected.
 */
export function clientLimitRules(options: ClientLimitRulesOptions): CfnWebACL.RuleProperty[] {
  const { limits, paths, clientHeader, originSecrets, metricPrefix } = options;
  const responseHeaders = options.responseHeaders?.length
    ? { responseHeaders: [...options.responseHeaders] }
    : {};
  const perClient = (
    limit: number,
    scopeDown: CfnWebACL.StatementProperty,
  ): CfnWebACL.StatementProperty => ({
    rateBasedStatement: {
      limit,
      evaluationWindowSec: limits.windowSeconds,
      ...(clientHeader
        ? {
            aggregateKeyType: 'FORWARDED_IP',
            // Every request that passed the origin rule carries it (CloudFront's function
            // writes it); one without a valid address is counted as a match, never let through.
            forwardedIpConfig: { headerName: clientHeader, fallbackBehavior: 'MATCH' },
          }
        : { aggregateKeyType: 'IP' }),
      scopeDownStatement: scopeDown,
    },
  });
  const tooMany: CfnWebACL.RuleActionProperty = {
    block: {
      customResponse: {
        responseCode: 429,
        customResponseBodyKey: RESPONSE_BODIES.rateLimited,
        ...responseHeaders,
      },
    },
  };
  const rules: CfnWebACL.RuleProperty[] = [];
  if (originSecrets && originSecrets.length > 0) {
    rules.push({
      name: RULE_NAMES.origin,
      priority: 0,
      statement: {
        notStatement: {
          statement: anyOf(originSecrets.map((secret) => headerIs(ORIGIN_HEADER, secret))),
        },
      },
      action: {
        block: {
          customResponse: {
            responseCode: 403,
            customResponseBodyKey: RESPONSE_BODIES.notThroughCloudFront,
            ...responseHeaders,
          },
        },
      },
      visibilityConfig: visibility(`${metricPrefix}OnlyThroughCloudFront`),
    });
  }
  rules.push(
    {
      name: RULE_NAMES.unsubscribe,
      priority: 1,
      statement: perClient(limits.unsubscribe, pathIsOneOf(paths.unsubscribe)),
      action: tooMany,
      visibilityConfig: visibility(`${metricPrefix}OneClickUnsubscribe`),
    },
    {
      name: RULE_NAMES.signUp,
      priority: 2,
      statement: perClient(limits.signUp, pathIsOneOf(paths.signUp)),
      action: tooMany,
      visibilityConfig: visibility(`${metricPrefix}SignUp`),
    },
    {
      name: RULE_NAMES.api,
      priority: 3,
      statement: perClient(limits.api, {
        notStatement: { statement: pathIsOneOf(paths.unsubscribe) },
      }),
      action: tooMany,
      visibilityConfig: visibility(`${metricPrefix}EverythingElse`),
    },
  );
  return rules;
}

/** The web ACL's custom response bodies, in the API's error shape. */
export function clientLimitResponseBodies(): Record<string, CfnWebACL.CustomResponseBodyProperty> {
  return {
    [RESPONSE_BODIES.rateLimited]: {
      contentType: 'APPLICATION_JSON',
      content: errorBody(
        'rate_limited',
        'Too many requests from your network; please try again in a few minutes.',
      ),
    },
    [RESPONSE_BODIES.notThroughCloudFront]: {
      contentType: 'APPLICATION_JSON',
      content: errorBody(
        'forbidden',
        'This API answers only at its public address (the stack output ApiRoot).',
      ),
    },
  };
}
