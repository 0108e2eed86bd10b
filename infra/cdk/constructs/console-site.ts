import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { consolePolicy, PREVIEW_PATH, PREVIEW_POLICY } from '../../../console/csp.ts';
import { ORIGIN_HEADER } from '../../../functions/http/client-address.ts';
import { apiViewerRequestFunctionCode } from '../api-viewer-request.ts';
import { consoleRewriteFunctionCode } from '../console-paths.ts';
import { DeploymentContextError } from '../newsletter-config.ts';

/** What the console's site needs to know. */
export interface ConsoleSiteProps {
  /** The built console (console/dist): deployed as it is. */
  readonly consoleDir: string;
  /** The REST API's id and stage: its paths are served on the console's origin. */
  readonly restApiId: string;
  readonly stage: string;
  /** The console's user pool and app client, for `/config.json`. */
  readonly userPoolId: string;
  readonly clientId: string;
  /** Keep the bucket when the stack is deleted. */
  readonly retain: boolean;
  /** How long the deployment's own logs are kept, as every function's. */
  readonly logRetention: RetentionDays;
  /** What the distribution sends the API in ORIGIN_HEADER ([http.front-door]). */
  readonly originSecret: string;
  /** The distribution's web ACL (ARN), when it has one. */
  readonly webAclId?: string;
  /** A custom domain of the distribution, with its certificate (in us-east-1). */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
}

/**
 * The web console on one origin with the API (docs/deploy.md, "The console"): a private S3
 * bucket that only this CloudFront distribution reads (origin access control), holding the
 * built console and its `/config.json`; the console's Content-Security-Policy on everything the
 * bucket serves (the preview page's own on `/preview.html`); client-side routes answered with
 * the page by a viewer-request function, on the console's paths only, so an API error is never
 * turned into the page; and `/{stage}/newsletter/*` passed to the REST API uncached, every
 * method, every header but Host (Authorization included), so the console calls the API on its
 * own origin and the keyed routes still answer no cross-origin request. It is the API's one
 * front door ([http.front-door]): it adds the origin secret the API's stage requires, and its
 * viewer-request function tells the API the viewer's address and host.
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution>.cloudfront.net/`, or the custom domain's. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    if (!existsSync(join(props.consoleDir, 'index.html'))) {
      throw new DeploymentContextError(
        `No built console in ${props.consoleDir}: run npm run build:console (npm run synth and npm run deploy do), or pass -c consoleDir=FOLDER`,
      );
    }
    const { region, urlSuffix } = Stack.of(this);
    const cognitoEndpoint = `https://cognito-idp.${region}.${urlSuffix}/`;

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const files = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const security = (name: string, policy: string) =>
      new ResponseHeadersPolicy(this, name, {
        comment: `The console's headers (${name}); console/csp.ts`,
        securityHeadersBehavior: {
          contentSecurityPolicy: { contentSecurityPolicy: policy, override: true },
          contentTypeOptions: { override: true },
          referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
          strictTransportSecurity: {
            accessControlMaxAge: Duration.days(365),
            includeSubdomains: true,
            override: true,
          },
          ...(name === 'PreviewHeaders'
            ? {}
            : { frameOptions: { frameOption: HeadersFrameOption.DENY, override: true } }),
        },
      });
    const routes = new CloudFrontFunction(this, 'Routes', {
      comment: 'Client-side routes of the console answered with /index.html',
      code: FunctionCode.fromInline(consoleRewriteFunctionCode()),
      runtime: FunctionRuntime.JS_2_0,
    });
    const apiFront = new CloudFrontFunction(this, 'ApiFront', {
      comment: "The viewer's address and host, for the API (http.front-door)",
      code: FunctionCode.fromInline(apiViewerRequestFunctionCode()),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'The newsletter console and its API on one origin',
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(props.webAclId ? { webAclId: props.webAclId } : {}),
      ...(props.customDomain
        ? {
            domainNames: [props.customDomain.domainName],
            certificate: Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.customDomain.certificateArn,
            ),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: files,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: security(
          'ConsoleHeaders',
          consolePolicy(Fn.join('', ['https://cognito-idp.', region, '.', urlSuffix])),
        ),
        functionAssociations: [{ function: routes, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [PREVIEW_PATH]: {
          origin: files,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          responseHeadersPolicy: security('PreviewHeaders', PREVIEW_POLICY),
        },
        [`/${props.stage}/newsletter/*`]: {
          origin: new HttpOrigin(`${props.restApiId}.execute-api.${region}.${urlSuffix}`, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            // Written over any header of that name a viewer sent.
            customHeaders: { [ORIGIN_HEADER]: props.originSecret },
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          functionAssociations: [
            { function: apiFront, eventType: FunctionEventType.VIEWER_REQUEST },
          ],
        },
      },
    });
    this.url = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}/`;

    new BucketDeployment(this, 'Deploy', {
      sources: [
        Source.asset(props.consoleDir),
        Source.jsonData('config.json', {
          apiBase: `/${props.stage}/newsletter/v2`,
          cognito: {
            endpoint: cognitoEndpoint,
            region,
            userPoolId: props.userPoolId,
            clientId: props.clientId,
          },
        }),
      ],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
      logGroup: new LogGroup(this, 'DeployLogs', {
        retention: props.logRetention,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    this.#acknowledge(props.customDomain !== undefined);
  }

  /** cdk-nag findings on the site, each acknowledged with the reason it stands. */
  #acknowledge(customDomain: boolean): void {
    const stack = Stack.of(this);
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'The console is for the few people who run the newsletter, wherever they are, and the ' +
          'API is for subscribers anywhere; who may sign in is decided by the user pool, and ' +
          'each client address is limited by the web ACLs, not by country.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "API calls are logged by the API's own JSON access log; the static files hold " +
          'nothing personal. Standard logs need a further bucket with ACLs enabled, which an ' +
          'operator can add (docs/deploy.md, "The console").',
      },
    );
    // With a custom domain the distribution has a certificate of its own, at TLSv1.2_2021.
    if (!customDomain)
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default *.cloudfront.net certificate, whose " +
          'minimum protocol version cannot be raised; every behaviour is HTTPS only (redirect ' +
          'or refuse), and a custom domain with its own certificate sets TLSv1.2_2021.',
      });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only this distribution reads the bucket (origin access control) and only the ' +
        "deployment writes it; it holds the console's public static files and config.json, no " +
        'personal data, so server access logs would record only CloudFront fetching them.',
    });
    // The deployment's provider is one function per stack (a singleton), outside this scope.
    const provider = stack.node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!provider) return;
    const bucketArn = stack.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const reason =
      "CDK's BucketDeployment provider, run by CloudFormation at deploy time only: it copies " +
      "the console's files from the CDK asset bucket into the console bucket (the s3 action " +
      'groups and object paths CDK grants for that copy) and invalidates the distribution ' +
      '(cloudfront:CreateInvalidation and GetInvalidation have no resource-level permissions).';
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: `${reason} Its logs go through AWS's basic execution policy, as CDK sets it.`,
      },
      ...[
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        'Resource::*',
        `Resource::<${bucketArn}.Arn>/*`,
        'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason })),
      {
        id: 'AwsSolutions-L1',
        reason:
          "The runtime of CDK's BucketDeployment provider is chosen by aws-cdk-lib (Python, " +
          'with the AWS CLI layer) and moves with its upgrades; it runs only while deploying.',
      },
    );
  }
}
