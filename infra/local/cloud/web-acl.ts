/**
 * An AWS WAF web ACL of the template, applied to local requests as AWS WAF applies it: rules
 * in priority order, the first terminating action wins, else the default action. Only the
 * statements the stack uses are known (byte matches on a header or the URI path, `And`, `Or`,
 * `Not`, rate-based rules per address or per forwarded address, with a scope-down); any other
 * fails loudly when the web ACL is read, so the local world never guesses laxer than AWS.
 *
 * Rate-based rules count every request their scope-down lets in, per aggregation key, over
 * the trailing evaluation window, and block from the first request past the limit. AWS WAF
 * checks the rates every few seconds and so lets a few more through; here the limit is exact,
 * which is at least as strict.
 */
import { isIP } from 'node:net';
import type { DeployedWebAcl } from './deployed-stack.ts';
import type { Resolved } from './intrinsics.ts';
import { TemplateError } from './intrinsics.ts';

/** What a web ACL inspects of a request. */
export interface WebAclRequest {
  /** The address of the peer that reached the protected resource. */
  readonly ip: string;
  readonly method: string;
  /** The URI path as sent, without the query string (not normalised, not decoded). */
  readonly path: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** What the web ACL does with a request. */
export type WebAclVerdict =
  | { readonly action: 'allow' }
  | {
      readonly action: 'block';
      /** The rule that blocked it, or `(default)`. */
      readonly rule: string;
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
    };

type Node = Record<string, Resolved>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  APPLICATION_JSON: 'application/json',
  TEXT_PLAIN: 'text/plain',
  TEXT_HTML: 'text/html',
};

/** A request's verdict under one statement; `undefined`: the statement does not apply. */
type Evaluate = (request: WebAclRequest, now: number) => boolean | 'fallback-match' | undefined;

/** A web ACL read from the template, with the counters of its rate-based rules. */
export class LocalWebAcl {
  readonly #rules: { name: string; statement: Evaluate; action: Node }[];
  readonly #defaultAction: Node;
  readonly #bodies: Readonly<Record<string, Node>>;

  constructor(
    readonly definition: DeployedWebAcl,
    readonly now: () => number = Date.now,
  ) {
    const p = definition.properties;
    this.#bodies = (p.CustomResponseBodies ?? {}) as Record<string, Node>;
    this.#defaultAction = (p.DefaultAction ?? { Allow: {} }) as Node;
    this.#rules = ((p.Rules ?? []) as Node[])
      .map((rule) => ({
        name: String(rule.Name),
        priority: Number(rule.Priority),
        statement: this.#compile(rule.Statement as Node, String(rule.Name)),
        action: (rule.Action ?? {}) as Node,
      }))
      .sort((a, b) => a.priority - b.priority);
  }

  /** The verdict of the web ACL on one request (counting it in its rate-based rules). */
  evaluate(request: WebAclRequest): WebAclVerdict {
    const now = this.now();
    for (const rule of this.#rules) {
      const matched = rule.statement(request, now);
      if (!matched) continue;
      if (rule.action.Block !== undefined) return this.#block(rule.name, rule.action.Block as Node);
      if (rule.action.Allow !== undefined) return { action: 'allow' };
      // Count: not terminating; the next rule decides.
    }
    if (this.#defaultAction.Block !== undefined)
      return this.#block('(default)', this.#defaultAction.Block as Node);
    return { action: 'allow' };
  }

  #block(rule: string, block: Node): WebAclVerdict {
    const custom = block.CustomResponse as Node | undefined;
    const headers: Record<string, string> = {};
    for (const header of (custom?.ResponseHeaders ?? []) as Node[])
      headers[String(header.Name)] = String(header.Value);
    const bodyKey = custom?.CustomResponseBodyKey;
    const body = bodyKey === undefined ? undefined : this.#bodies[String(bodyKey)];
    if (bodyKey !== undefined && !body)
      throw new TemplateError(`web ACL ${this.definition.logicalId}: no response body ${bodyKey}`);
    return {
      action: 'block',
      rule,
      status: Number(custom?.ResponseCode ?? 403),
      headers: {
        'Content-Type': body
          ? (CONTENT_TYPES[String(body.ContentType)] ?? 'text/plain')
          : 'text/plain',
        ...headers,
      },
      body: body ? String(body.Content) : 'Forbidden',
    };
  }

  #compile(statement: Node | undefined, rule: string): Evaluate {
    const [entry] = Object.entries(statement ?? {});
    if (!entry) throw new TemplateError(`web ACL rule ${rule}: empty statement`);
    const [kind, value] = entry as [string, Node];
    switch (kind) {
      case 'ByteMatchStatement':
        return byteMatch(value, rule);
      case 'NotStatement': {
        const inner = this.#compile(value.Statement as Node, rule);
        return (request, now) => {
          const result = inner(request, now);
          return result === undefined ? undefined : !result;
        };
      }
      case 'AndStatement': {
        const parts = (value.Statements as Node[]).map((part) => this.#compile(part, rule));
        return (request, now) => parts.every((part) => part(request, now) === true);
      }
      case 'OrStatement': {
        const parts = (value.Statements as Node[]).map((part) => this.#compile(part, rule));
        return (request, now) => parts.some((part) => part(request, now) === true);
      }
      case 'RateBasedStatement':
        return rateBased(
          value,
          value.ScopeDownStatement
            ? this.#compile(value.ScopeDownStatement as Node, rule)
            : undefined,
          rule,
        );
      default:
        throw new TemplateError(`web ACL rule ${rule}: the local cloud cannot run ${kind}`);
    }
  }
}

/** The part of the request a statement inspects. */
function fieldOf(field: Node, rule: string): (request: WebAclRequest) => string | undefined {
  if (field.UriPath !== undefined) return (request) => request.path;
  if (field.SingleHeader !== undefined) {
    const name = String((field.SingleHeader as Node).Name).toLowerCase();
    return (request) => request.headers[name];
  }
  if (field.Method !== undefined) return (request) => request.method;
  throw new TemplateError(
    `web ACL rule ${rule}: the local cloud cannot inspect ${Object.keys(field)}`,
  );
}

/** AWS WAF's text transformations the stack uses, applied in priority order. */
function transform(transformations: Node[], rule: string): (text: string) => string {
  const steps = [...transformations]
    .sort((a, b) => Number(a.Priority) - Number(b.Priority))
    .map((step) => {
      switch (step.Type) {
        case 'NONE':
          return (text: string) => text;
        case 'LOWERCASE':
          return (text: string) => text.toLowerCase();
        case 'URL_DECODE':
          // Lenient, as AWS WAF's: a `%` that starts no escape stays as it is.
          return (text: string) =>
            text.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) =>
              String.fromCharCode(Number.parseInt(hex, 16)),
            );
        default:
          throw new TemplateError(
            `web ACL rule ${rule}: the local cloud cannot apply ${step.Type}`,
          );
      }
    });
  return (text) => steps.reduce((current, step) => step(current), text);
}

function byteMatch(statement: Node, rule: string): Evaluate {
  const field = fieldOf(statement.FieldToMatch as Node, rule);
  const clean = transform((statement.TextTransformations ?? []) as Node[], rule);
  const wanted = String(statement.SearchString);
  const test: (text: string) => boolean = (() => {
    switch (statement.PositionalConstraint) {
      case 'EXACTLY':
        return (text: string) => text === wanted;
      case 'STARTS_WITH':
        return (text: string) => text.startsWith(wanted);
      case 'ENDS_WITH':
        return (text: string) => text.endsWith(wanted);
      case 'CONTAINS':
        return (text: string) => text.includes(wanted);
      default:
        throw new TemplateError(
          `web ACL rule ${rule}: the local cloud cannot match ${String(statement.PositionalConstraint)}`,
        );
    }
  })();
  return (request) => {
    const value = field(request);
    // A header that is absent matches nothing.
    return value === undefined ? false : test(clean(value));
  };
}

function rateBased(statement: Node, scopeDown: Evaluate | undefined, rule: string): Evaluate {
  const limit = Number(statement.Limit);
  const windowMs = Number(statement.EvaluationWindowSec ?? 300) * 1000;
  const aggregate = String(statement.AggregateKeyType);
  if (aggregate !== 'IP' && aggregate !== 'FORWARDED_IP')
    throw new TemplateError(
      `web ACL rule ${rule}: the local cloud cannot aggregate by ${aggregate}`,
    );
  const forwarded = statement.ForwardedIPConfig as Node | undefined;
  const header = forwarded ? String(forwarded.HeaderName).toLowerCase() : undefined;
  const fallbackMatches = forwarded?.FallbackBehavior === 'MATCH';
  const seen = new Map<string, number[]>();
  return (request, now) => {
    if (scopeDown && scopeDown(request, now) !== true) return false;
    let key = request.ip;
    if (aggregate === 'FORWARDED_IP') {
      const value = header ? request.headers[header] : undefined;
      // Without the header AWS WAF does not apply the rule at all.
      if (value === undefined) return undefined;
      // Only the first address of the header is read.
      const first = value.split(',')[0]?.trim() ?? '';
      if (isIP(first) === 0) return fallbackMatches ? 'fallback-match' : false;
      key = first;
    }
    const times = (seen.get(key) ?? []).filter((at) => now - at < windowMs);
    times.push(now);
    seen.set(key, times);
    return times.length > limit;
  };
}
