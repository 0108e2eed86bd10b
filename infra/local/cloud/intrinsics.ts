/**
 * CloudFormation intrinsic functions, resolved against the local cloud. The synthesized
 * template is the source of truth for what runs locally (environment, permissions, routes),
 * so its values are resolved here instead of being restated anywhere else. An intrinsic this
 * resolver does not know fails loudly: guessing would make the local world laxer than AWS.
 */

/** What a `Ref` or `Fn::GetAtt` of a logical id resolves to in the local cloud. */
export type ResolveReference = (logicalId: string, attribute?: string) => string;

/** The account the local cloud pretends to be; a 12-digit id like a real one. */
export const LOCAL_ACCOUNT = '123456789012';
/** The region every local service and ARN uses. */
export const LOCAL_REGION = 'us-east-1';

const PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Region': LOCAL_REGION,
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::NoValue': '',
};

/** The template's `Mappings` section: map → top-level key → second-level key → value. */
export type TemplateMappings = Readonly<
  Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>
>;

/** A template value (string, number, list, object, or an intrinsic) with everything resolved. */
export type Resolved = string | number | boolean | null | Resolved[] | { [key: string]: Resolved };

/** Thrown for an intrinsic or reference the local cloud cannot resolve. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

/** The template's conditions, evaluated for the local cloud (its region, its account). */
export type TemplateConditions = Readonly<Record<string, boolean>>;

/**
 * Evaluates a template's `Conditions` section: `Fn::Equals`, `Fn::Not`, `Fn::And`, `Fn::Or`
 * and `{"Condition": name}`, over values the local cloud resolves (`AWS::Region` is
 * LOCAL_REGION). A condition function it does not know fails loudly.
 */
export function evaluateConditions(
  section: Readonly<Record<string, unknown>>,
  reference: ResolveReference,
  mappings: TemplateMappings = {},
): TemplateConditions {
  const results: Record<string, boolean> = {};
  const evaluate = (expression: unknown, seen: readonly string[]): boolean => {
    const [entry] = Object.entries((expression ?? {}) as Record<string, unknown>);
    if (!entry) throw new TemplateError('empty condition');
    const [name, argument] = entry;
    const list = (): unknown[] => (Array.isArray(argument) ? argument : []);
    switch (name) {
      case 'Condition':
        return named(String(argument), seen);
      case 'Fn::Equals': {
        const [a, b] = list().map((item) => resolveValue(item, reference, mappings, results));
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Not':
        return !evaluate(list()[0], seen);
      case 'Fn::And':
        return list().every((item) => evaluate(item, seen));
      case 'Fn::Or':
        return list().some((item) => evaluate(item, seen));
      default:
        throw new TemplateError(`the local cloud cannot evaluate the condition function ${name}`);
    }
  };
  const named = (name: string, seen: readonly string[]): boolean => {
    const known = results[name];
    if (known !== undefined) return known;
    if (seen.includes(name)) throw new TemplateError(`condition ${name} refers to itself`);
    if (!(name in section)) throw new TemplateError(`no condition ${name} in the template`);
    const result = evaluate(section[name], [...seen, name]);
    results[name] = result;
    return result;
  };
  for (const name of Object.keys(section)) named(name, []);
  return results;
}

/** Resolves every intrinsic inside `value`; `reference` answers Refs and GetAtts. */
export function resolveValue(
  value: unknown,
  reference: ResolveReference,
  mappings: TemplateMappings = {},
  conditions: TemplateConditions = {},
): Resolved {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) throw new TemplateError('undefined value in template');
    return value as string | number | boolean;
  }
  if (Array.isArray(value))
    return value.map((item) => resolveValue(item, reference, mappings, conditions));
  const entries = Object.entries(value as Record<string, unknown>);
  const [first] = entries;
  if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
    return resolveIntrinsic(first[0], first[1], reference, mappings, conditions);
  }
  return Object.fromEntries(
    entries.map(([key, item]) => [key, resolveValue(item, reference, mappings, conditions)]),
  );
}

/** Resolves `value` and insists on a string (environment values, ARNs). */
export function resolveString(
  value: unknown,
  reference: ResolveReference,
  mappings: TemplateMappings = {},
  conditions: TemplateConditions = {},
): string {
  const resolved = resolveValue(value, reference, mappings, conditions);
  if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
  if (typeof resolved !== 'string') {
    throw new TemplateError(`expected a string, got ${JSON.stringify(resolved)}`);
  }
  return resolved;
}

function resolveIntrinsic(
  name: string,
  argument: unknown,
  reference: ResolveReference,
  mappings: TemplateMappings,
  conditions: TemplateConditions,
): Resolved {
  const resolve = (item: unknown): Resolved => resolveValue(item, reference, mappings, conditions);
  const resolveText = (item: unknown): string =>
    resolveString(item, reference, mappings, conditions);
  switch (name) {
    case 'Fn::If': {
      const [condition, whenTrue, whenFalse] = argument as [string, unknown, unknown];
      const holds = conditions[condition];
      if (holds === undefined) throw new TemplateError(`Fn::If: no condition ${condition}`);
      return resolve(holds ? whenTrue : whenFalse);
    }
    case 'Ref': {
      const id = String(argument);
      return PSEUDO_PARAMETERS[id] ?? reference(id);
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = Array.isArray(argument)
        ? argument.map(String)
        : String(argument).split(/\.(.*)/s);
      if (!id || !attribute) throw new TemplateError(`malformed Fn::GetAtt ${String(argument)}`);
      return reference(id, attribute);
    }
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown[]];
      return (resolve(parts) as Resolved[]).map(String).join(separator);
    }
    case 'Fn::Select': {
      const [index, list] = argument as [unknown, unknown];
      const items = resolve(list) as Resolved[];
      const item = items[Number(resolve(index))];
      if (item === undefined) throw new TemplateError('Fn::Select index out of range');
      return item;
    }
    case 'Fn::Split': {
      const [separator, text] = argument as [string, unknown];
      return resolveText(text).split(separator);
    }
    case 'Fn::Sub': {
      const [text, variables = {}] = (Array.isArray(argument) ? argument : [argument, {}]) as [
        string,
        Record<string, unknown>,
      ];
      return text.replace(/\$\{([^}!][^}]*)\}/g, (_whole, expression: string) => {
        if (expression in variables) return resolveText(variables[expression]);
        const pseudo = PSEUDO_PARAMETERS[expression];
        if (pseudo !== undefined) return pseudo;
        const [id, attribute] = expression.split(/\.(.*)/s);
        return reference(id ?? expression, attribute || undefined);
      });
    }
    case 'Fn::FindInMap': {
      const [map, top, second] = (argument as unknown[]).map(resolveText);
      const value = mappings[map ?? '']?.[top ?? '']?.[second ?? ''];
      if (value === undefined) {
        throw new TemplateError(`Fn::FindInMap: no ${map}.${top}.${second} in the template`);
      }
      return resolve(value);
    }
    default:
      throw new TemplateError(`the local cloud cannot resolve ${name}`);
  }
}
