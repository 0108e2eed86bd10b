/**
 * The console's site in the template: a private bucket only the distribution reads, the
 * console's CSP on its files, client-side routes rewritten on the console's paths only (no
 * custom error responses that would turn an API error into the page), and the API's paths
 * passed through uncached with every method ([console.served], [console.distribution]).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { consolePolicy, PREVIEW_POLICY } from '../../console/csp.ts';
import { consoleObjectPath, consoleRewriteFunctionCode } from '../../infra/cdk/console-paths.ts';
import { buildApp, resourcesOfType } from './build-app.ts';

const { template, stack } = buildApp();
const [distribution] = [...resourcesOfType(template, 'AWS::CloudFront::Distribution').values()];
const config = distribution?.Properties.DistributionConfig as {
  DefaultCacheBehavior: Record<string, unknown>;
  CacheBehaviors: Record<string, unknown>[];
  Origins: {
    Id: string;
    DomainName: unknown;
    S3OriginConfig?: unknown;
    OriginAccessControlId?: unknown;
  }[];
  CustomErrorResponses?: unknown;
  DefaultRootObject?: string;
};
const headersPolicies = resourcesOfType(template, 'AWS::CloudFront::ResponseHeadersPolicy');
const cspOf = (reference: unknown): unknown => {
  const id = (reference as { Ref?: string }).Ref ?? '';
  const policy = headersPolicies.get(id)?.Properties.ResponseHeadersPolicyConfig as {
    SecurityHeadersConfig: { ContentSecurityPolicy: { ContentSecurityPolicy: unknown } };
  };
  return policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
};

describe('[console.distribution] the console site', () => {
  it('keeps the files in a private, encrypted bucket only this distribution reads', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const s3 = config.Origins.find((origin) => origin.S3OriginConfig !== undefined);
    expect(s3?.OriginAccessControlId).toBeDefined();
  });

  it('sends the console CSP on its files, the preview policy on /preview.html', () => {
    // consolePolicy with Cognito's origin in the stack's region.
    const [before, after] = consolePolicy('COGNITO').split('COGNITO');
    expect(cspOf(config.DefaultCacheBehavior.ResponseHeadersPolicyId)).toEqual({
      'Fn::Join': [
        '',
        [
          `${before}https://cognito-idp.`,
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          after,
        ],
      ],
    });
    const preview = config.CacheBehaviors.find(
      (behaviour) => behaviour.PathPattern === '/preview.html',
    );
    expect(cspOf(preview?.ResponseHeadersPolicyId)).toBe(PREVIEW_POLICY);
  });

  it('answers client-side routes with the page by a viewer-request function, never by error pages', () => {
    expect(config.CustomErrorResponses).toBeUndefined();
    expect(config.DefaultRootObject).toBe('index.html');
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: consoleRewriteFunctionCode(),
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual(
      [{ EventType: 'viewer-request', FunctionARN: Match.anyValue() as never }].map(
        (association) => ({ ...association, FunctionARN: expect.anything() }),
      ),
    );
    // The function's code applies the same rule as npm start (console-paths.ts).
    const handler = new Function(`${consoleRewriteFunctionCode()}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    for (const uri of ['/', '/issues/12', '/people', '/console.js', '/config.json', '/a.b/c']) {
      expect(handler({ request: { uri } }).uri, uri).toBe(consoleObjectPath(uri));
    }
  });

  it('passes /{stage}/newsletter/* to the REST API uncached, every method, all headers but Host', () => {
    const api = config.CacheBehaviors.find(
      (behaviour) => behaviour.PathPattern === '/api/newsletter/*',
    );
    expect(api).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // CloudFront's managed CachingDisabled and AllViewerExceptHostHeader policies.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
    });
    const origin = config.Origins.find((each) => each.Id === api?.TargetOriginId);
    expect(JSON.stringify(origin?.DomainName)).toContain('.execute-api.');
    expect(JSON.stringify(origin?.DomainName)).toContain(
      stack.getLogicalId(stack.api.restApi.node.defaultChild as never),
    );
  });

  it('deploys the built console and a config.json naming the API base and the pool', () => {
    const deployments = resourcesOfType(template, 'Custom::CDKBucketDeployment');
    expect(deployments.size).toBe(1);
    const [deployment] = [...deployments.values()];
    if (!deployment) throw new Error('no BucketDeployment');
    expect(deployment.Properties.SourceObjectKeys as unknown[]).toHaveLength(2);
    const markers = JSON.stringify(deployment.Properties.SourceMarkers);
    expect(markers).toContain(stack.getLogicalId(stack.people.userPool.node.defaultChild as never));
    expect(markers).toContain(stack.getLogicalId(stack.people.client.node.defaultChild as never));
    expect(deployment.Properties.DistributionPaths).toEqual(['/*']);
    template.hasOutput('ConsoleUrl', Match.anyValue());
  });
});
