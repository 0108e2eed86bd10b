import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ClientLimitsAcl } from './constructs/client-limits-acl.ts';
import type { NewsletterConfig } from './newsletter-config.ts';
import { limitedPathsOf, wafCorsHeaders } from './newsletter-stack.ts';

/** Props of the edge stack: the same deployment context as the main stack's. */
export interface NewsletterEdgeStackProps extends StackProps {
  readonly config: NewsletterConfig;
}

/**
 * The distribution's web ACL for a main stack outside us-east-1: CloudFront takes web ACLs of
 * the CLOUDFRONT scope only, and they exist only in us-east-1, so a stack in another region
 * cannot make its own. Deployed there first (`cdk deploy -c edgeStack=true`, the same
 * context), its output is passed to the main stack as `-c distributionWebAclArn=...`
 * (docs/deploy.md, "Per-client limits"). The same rules and limits as the stack's own.
 */
export class NewsletterEdgeStack extends Stack {
  readonly limits: ClientLimitsAcl;

  constructor(scope: Construct, id: string, props: NewsletterEdgeStackProps) {
    super(scope, id, {
      description: "Newsletter: the console distribution's web ACL (serverless-newsletter)",
      ...props,
      env: { ...props.env, region: 'us-east-1' },
    });
    const { config } = props;
    this.limits = new ClientLimitsAcl(this, 'DistributionLimits', {
      scope: 'CLOUDFRONT',
      limits: config.clientLimits,
      paths: limitedPathsOf(config.stage),
      metricPrefix: 'NewsletterDistribution',
      responseHeaders: wafCorsHeaders(config.corsOrigins),
    });
    new CfnOutput(this, 'DistributionWebAclArn', {
      description: 'Pass it to the main stack: -c distributionWebAclArn=<this>',
      value: this.limits.acl.attrArn,
    });
  }
}
