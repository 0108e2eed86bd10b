import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import {
  type ClientLimitRulesOptions,
  clientLimitResponseBodies,
  clientLimitRules,
} from '../client-limits.ts';

/** A web ACL of per-client limits, for the distribution or for the API's stage. */
export interface ClientLimitsAclProps extends ClientLimitRulesOptions {
  readonly scope: 'CLOUDFRONT' | 'REGIONAL';
  /** A regional web ACL's resource: the API's stage ARN. */
  readonly associateWith?: string;
}

/**
 * An AWS WAF web ACL that allows by default and applies clientLimitRules: per-client rate
 * limits, and at the stage the origin rule. A CloudFront-scoped one exists only in us-east-1
 * (the stack puts it under a condition); a regional one is associated with the stage.
 */
export class ClientLimitsAcl extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ClientLimitsAclProps) {
    super(scope, id);
    this.acl = new CfnWebACL(this, 'Acl', {
      scope: props.scope,
      description:
        props.scope === 'REGIONAL'
          ? 'Newsletter API stage: only requests through CloudFront, per-client limits'
          : 'Newsletter console distribution: per-client limits',
      defaultAction: { allow: {} },
      rules: clientLimitRules(props),
      customResponseBodies: clientLimitResponseBodies(),
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        sampledRequestsEnabled: true,
        metricName: `${props.metricPrefix}WebAcl`,
      },
    });
    if (props.associateWith) {
      new CfnWebACLAssociation(this, 'Association', {
        resourceArn: props.associateWith,
        webAclArn: this.acl.attrArn,
      });
    }
  }
}
