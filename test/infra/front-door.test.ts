/**
 * The API's front door in the template: the origin secret CloudFront sends and the stage's web
 * ACL requires ([http.front-door]), its rotation, the viewer-request function that names the
 * client, and the per-client limits at the distribution and at the stage with the per-method
 * throttles ([http.client-limits]), in the main stack and in the edge stack for another region.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, inject, it } from 'vitest';
import { ORIGIN_SECRETS_ENV } from '../../functions/http/client-address.ts';
import { type Route, routes } from '../../functions/routes.ts';
import { apiViewerRequestFunctionCode } from '../../infra/cdk/api-viewer-request.ts';
import { RULE_NAMES } from '../../infra/cdk/client-limits.ts';
import { createNewsletterEdgeApp } from '../../infra/cdk/newsletter-app.ts';
import { buildApp, resourcesOfType, type TemplateResource } from './build-app.ts';

const built = buildApp();
const { stack, template } = built;
const resources = template.toJSON().Resources as Record<string, TemplateResource>;
const idOf = (element: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);

/** CloudFormation's dynamic reference to a secret of the template, by logical id. */
const secretReference = (secretId: string) => ({
  'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
});

const aclsOf = (of: Template, scope: string) =>
  [...resourcesOfType(of, 'AWS::WAFv2::WebACL').entries()].filter(
    ([, acl]) => acl.Properties.Scope === scope,
  );

interface Rule {
  readonly Name: string;
  readonly Priority: number;
  readonly Statement: Record<string, Record<string, unknown>>;
  readonly Action: { Block?: { CustomResponse?: { ResponseCode: number } } };
}
const rulesOf = (acl: TemplateResource): Rule[] => acl.Properties.Rules as Rule[];
const rule = (acl: TemplateResource, name: string): Rule => {
  const found = rulesOf(acl).find((each) => each.Name === name);
  if (!found) throw new Error(`no rule ${name}`);
  return found;
};

/** The paths a rate rule's scope-down matches, as written (after URL decoding). */
function scopedPaths(statement: Record<string, unknown>): string[] {
  const matches = JSON.stringify(statement).match(/"SearchString":"([^"]+)"/g) ?? [];
  return matches.map((match) => match.slice('"SearchString":"'.length, -1)).sort();
}

/** `/{stage}/newsletter/{version}{path}` and its trailing-slash form, for the routes of a class. */
function pathsOf(traffic: Route['traffic']): string[] {
  return (routes as readonly Route[])
    .filter((route) => route.traffic === traffic)
    .flatMap((route) => {
      const path = `/api/newsletter/${route.version ?? 'v1'}${route.path}`;
      return [path, `${path}/`];
    })
    .sort();
}

const distribution = () => {
  const found = [...resourcesOfType(template, 'AWS::CloudFront::Distribution').entries()];
  const [entry] = found;
  if (!entry || found.length !== 1) throw new Error('expected one distribution');
  return entry;
};
const apiBehaviour = () => {
  const config = distribution()[1].Properties.DistributionConfig as {
    CacheBehaviors: Record<string, unknown>[];
    Origins: Record<string, unknown>[];
  };
  const behaviour = config.CacheBehaviors.find((each) => each.PathPattern === '/api/newsletter/*');
  const origin = config.Origins.find((each) => each.Id === behaviour?.TargetOriginId);
  if (!behaviour || !origin) throw new Error('no API behaviour');
  return { behaviour, origin };
};

describe('[http.front-door] the origin secret', () => {
  const [secretId] = [...resourcesOfType(template, 'AWS::SecretsManager::Secret').keys()];
  const reference = secretReference(String(secretId));

  it('is drawn by Secrets Manager, never written in the template', () => {
    const secrets = [...resourcesOfType(template, 'AWS::SecretsManager::Secret').values()];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]?.Properties.GenerateSecretString).toEqual({
      ExcludePunctuation: true,
      IncludeSpace: false,
      PasswordLength: 48,
    });
    expect(secrets[0]?.Properties).not.toHaveProperty('SecretString');
  });

  it('is what CloudFront adds to every API request, and what the stage and every API function accept', () => {
    expect(apiBehaviour().origin.OriginCustomHeaders).toEqual([
      { HeaderName: 'x-newsletter-origin', HeaderValue: reference },
    ]);
    const [, stageAcl] = aclsOf(template, 'REGIONAL')[0] ?? [];
    if (!stageAcl) throw new Error('no regional web ACL');
    const origin = rule(stageAcl, RULE_NAMES.origin);
    expect(origin.Priority).toBe(0);
    expect(origin.Action.Block?.CustomResponse?.ResponseCode).toBe(403);
    expect(JSON.stringify(origin.Statement.NotStatement)).toContain(JSON.stringify(reference));
    for (const route of routes) {
      const fn = resources[idOf(stack.functions.get(route.name) as never)];
      if (!fn) throw new Error(`no function for ${route.name}`);
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables[ORIGIN_SECRETS_ENV], route.name).toEqual(reference);
    }
  });

  it('the stage web ACL is associated with the stage', () => {
    const [aclId] = aclsOf(template, 'REGIONAL')[0] ?? [];
    const associations = [...resourcesOfType(template, 'AWS::WAFv2::WebACLAssociation').values()];
    expect(associations).toHaveLength(1);
    expect(associations[0]?.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(JSON.stringify(associations[0]?.Properties.ResourceArn)).toContain(
      idOf(stack.api.restApi.deploymentStage as never),
    );
  });

  it('rotates by generation: CloudFront sends the new one, the stage and the functions accept both, and CloudFront changes last', () => {
    const { template: rotated, stack: rotatedStack } = buildApp({ originSecretGeneration: '3' });
    const secretIds = [...resourcesOfType(rotated, 'AWS::SecretsManager::Secret').keys()];
    expect(secretIds.map((id) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'OriginSecretGeneration2',
      'OriginSecretGeneration3',
    ]);
    const newest = secretIds.find((id) => id.startsWith('OriginSecretGeneration3')) ?? '';
    const config = [...resourcesOfType(rotated, 'AWS::CloudFront::Distribution').values()][0]
      ?.Properties.DistributionConfig as { Origins: { OriginCustomHeaders?: unknown }[] };
    expect(config.Origins.flatMap((origin) => origin.OriginCustomHeaders ?? [])).toEqual([
      { HeaderName: 'x-newsletter-origin', HeaderValue: secretReference(newest) },
    ]);
    const [, stageAcl] = aclsOf(rotated, 'REGIONAL')[0] ?? [];
    const accepted = JSON.stringify(rule(stageAcl as TemplateResource, RULE_NAMES.origin));
    for (const id of secretIds) expect(accepted).toContain(JSON.stringify({ Ref: id }));
    // Deployed in this order, a request through CloudFront is never refused mid-rotation.
    const distributionId = rotatedStack.getLogicalId(
      rotatedStack.console.distribution.node.defaultChild as CfnElement,
    );
    const dependsOn = (rotated.toJSON().Resources[distributionId].DependsOn ?? []) as string[];
    expect(dependsOn).toContain(
      rotatedStack.getLogicalId(rotatedStack.apiLimits.acl as unknown as CfnElement),
    );
    for (const fn of rotatedStack.functions.values()) {
      expect(dependsOn).toContain(rotatedStack.getLogicalId(fn.node.defaultChild as CfnElement));
    }
  });

  it("the API behaviour's viewer-request function writes the viewer's address and host", () => {
    const association = (
      apiBehaviour().behaviour.FunctionAssociations as Record<string, unknown>[]
    )[0];
    expect(association?.EventType).toBe('viewer-request');
    const functionId = (association?.FunctionARN as { 'Fn::GetAtt': string[] } | undefined)?.[
      'Fn::GetAtt'
    ][0];
    expect(resources[functionId ?? '']?.Properties.FunctionCode).toBe(
      apiViewerRequestFunctionCode(),
    );
  });
});

describe('[http.client-limits] per-client limits', () => {
  it('at the stage: per viewer address as CloudFront names it, unsubscribing counted apart, the defaults', () => {
    const [, stageAcl] = aclsOf(template, 'REGIONAL')[0] ?? [];
    if (!stageAcl) throw new Error('no regional web ACL');
    const rate = (name: string) =>
      rule(stageAcl, name).Statement.RateBasedStatement as Record<string, unknown>;
    expect(rate(RULE_NAMES.signUp)).toMatchObject({
      Limit: 100,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'FORWARDED_IP',
      ForwardedIPConfig: { HeaderName: 'x-newsletter-viewer-ip', FallbackBehavior: 'MATCH' },
    });
    expect(rate(RULE_NAMES.unsubscribe)).toMatchObject({ Limit: 1000 });
    expect(rate(RULE_NAMES.api)).toMatchObject({ Limit: 2000 });
    expect(
      scopedPaths(rate(RULE_NAMES.signUp).ScopeDownStatement as Record<string, unknown>),
    ).toEqual(pathsOf('sign-up'));
    expect(
      scopedPaths(rate(RULE_NAMES.unsubscribe).ScopeDownStatement as Record<string, unknown>),
    ).toEqual(pathsOf('unsubscribe'));
    expect(
      (rate(RULE_NAMES.api).ScopeDownStatement as Record<string, Record<string, unknown>>)
        .NotStatement,
    ).toBeDefined();
    for (const name of [RULE_NAMES.signUp, RULE_NAMES.unsubscribe, RULE_NAMES.api]) {
      expect(rule(stageAcl, name).Action.Block?.CustomResponse?.ResponseCode).toBe(429);
    }
  });

  it('at the distribution: the same rules per peer address, created where CloudFront takes them (us-east-1)', () => {
    const edge = aclsOf(template, 'CLOUDFRONT');
    expect(edge).toHaveLength(1);
    const [aclId, acl] = edge[0] ?? [];
    expect(acl?.Condition).toBe('InUsEast1');
    expect(template.toJSON().Conditions.InUsEast1).toEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'],
    });
    expect(rulesOf(acl as TemplateResource).map((each) => each.Name)).toEqual([
      RULE_NAMES.unsubscribe,
      RULE_NAMES.signUp,
      RULE_NAMES.api,
    ]);
    expect(
      JSON.stringify(rulesOf(acl as TemplateResource).map((each) => each.Statement)),
    ).not.toContain('FORWARDED_IP');
    const config = distribution()[1].Properties.DistributionConfig as { WebACLId: unknown };
    expect(config.WebACLId).toEqual({
      'Fn::If': ['InUsEast1', { 'Fn::GetAtt': [aclId, 'Arn'] }, { Ref: 'AWS::NoValue' }],
    });
  });

  it('takes its limits from context, and a distribution web ACL made in us-east-1 instead of its own', () => {
    const arn =
      'arn:aws:wafv2:us-east-1:123456789012:global/webacl/NewsletterEdge/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const { template: custom } = buildApp({
      wafSignUpLimit: '50',
      wafUnsubscribeLimit: '500',
      wafApiLimit: '600',
      wafWindowSeconds: '60',
      distributionWebAclArn: arn,
    });
    expect(aclsOf(custom, 'CLOUDFRONT')).toHaveLength(0);
    const config = [...resourcesOfType(custom, 'AWS::CloudFront::Distribution').values()][0]
      ?.Properties.DistributionConfig as { WebACLId: unknown };
    expect(config.WebACLId).toBe(arn);
    const [, stageAcl] = aclsOf(custom, 'REGIONAL')[0] ?? [];
    const limits = rulesOf(stageAcl as TemplateResource)
      .filter((each) => each.Statement.RateBasedStatement)
      .map((each) => [
        each.Name,
        each.Statement.RateBasedStatement?.Limit,
        each.Statement.RateBasedStatement?.EvaluationWindowSec,
      ]);
    expect(limits).toEqual([
      [RULE_NAMES.unsubscribe, 500, 60],
      [RULE_NAMES.signUp, 50, 60],
      [RULE_NAMES.api, 600, 60],
    ]);
  });

  it('throttles the sign-up and the unsubscribe methods in buckets of their own', () => {
    const stage = [...resourcesOfType(template, 'AWS::ApiGateway::Stage').values()][0];
    const settings = ((stage?.Properties.MethodSettings ?? []) as Record<string, unknown>[]).map(
      (setting) =>
        `${String(setting.HttpMethod)} ${String(setting.ResourcePath)} ${String(setting.ThrottlingRateLimit)}/${String(setting.ThrottlingBurstLimit)}`,
    );
    expect(settings.sort()).toEqual(
      [
        '* /* 50/100',
        'POST /~1newsletter~1v1~1subscribe 20/40',
        'POST /~1newsletter~1v2~1subscriptions 20/40',
        'GET /~1newsletter~1v1~1subscription~1unsubscribe 100/200',
        'POST /~1newsletter~1v1~1subscription~1unsubscribe 100/200',
      ].sort(),
    );
  });
});

describe('[http.client-limits] the edge stack, for a main stack in another region', () => {
  const cdkJson = JSON.parse(
    readFileSync(resolve(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8'),
  ) as { context: Record<string, unknown> };
  const edgeApp = createNewsletterEdgeApp({
    context: {
      ...cdkJson.context,
      'aws:cdk:bundling-stacks': [],
      senderIdentity: 'example.com',
      consoleDir: inject('consoleDir'),
      edgeStack: 'true',
    },
  });
  const edge = Template.fromStack(edgeApp.edge);

  it('lives in us-east-1 and holds the distribution web ACL with the main stack rules', () => {
    expect(edgeApp.edge.region).toBe('us-east-1');
    const acls = [...resourcesOfType(edge, 'AWS::WAFv2::WebACL').values()];
    expect(acls).toHaveLength(1);
    expect(acls[0]?.Properties.Scope).toBe('CLOUDFRONT');
    const [, mine] = aclsOf(template, 'CLOUDFRONT')[0] ?? [];
    expect(acls[0]?.Properties.Rules).toEqual(mine?.Properties.Rules);
    edge.hasOutput('DistributionWebAclArn', {
      Value: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
    });
  });

  it('passes cdk-nag', () => {
    const report = edgeApp.nag.validateScope(edgeApp.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
