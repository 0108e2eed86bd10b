import { describe, expect, it } from 'vitest';
import { DeploymentContextError, readNewsletterConfig } from '../../infra/cdk/newsletter-config.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';

const from = (context: Record<string, unknown>) => (key: string) => context[key];

describe('readNewsletterConfig', () => {
  it('needs only the sender identity and defaults everything else safely', () => {
    // Act
    const config = readNewsletterConfig(from({ senderIdentity: 'example.com' }));
    // Assert
    expect(config).toEqual({
      // The folder npm run build:console writes, which the stack deploys.
      consoleDir: expect.stringMatching(/\/console\/dist$/),
      stackName: 'Newsletter',
      stage: 'api',
      corsOrigins: '*',
      senderIdentity: 'example.com',
      sandboxRecipients: [],
      apiKeyParameter: ENV_DEFAULTS.apiKeyParameter,
      settingsParameter: ENV_DEFAULTS.settingsParameter,
      parameterCacheSeconds: ENV_DEFAULTS.parameterCacheSeconds,
      retain: true,
      deletionProtection: true,
      throttleRate: 50,
      throttleBurst: 100,
      logRetentionDays: 30,
      apiGatewayCloudWatchRole: true,
      streamRetryBaseMs: 1000,
      // Their own buckets for the sign-up and unsubscribe methods; per-client WAF limits.
      signUpThrottle: { rate: 20, burst: 40 },
      unsubscribeThrottle: { rate: 100, burst: 200 },
      clientLimits: { signUp: 100, unsubscribe: 1000, api: 2000, windowSeconds: 300 },
      originSecretGeneration: 1,
      // 80% of a new production account's 14 a second; the workers are derived from it.
      campaignMaxRate: 11.2,
      campaignTimeoutSeconds: 60,
    });
  });

  it('[campaign.pacing] reads the campaign workers and timeout, and names bad ones', () => {
    expect(
      readNewsletterConfig(
        from({
          senderIdentity: 'example.com',
          campaignWorkers: '4',
          campaignTimeoutSeconds: '120',
        }),
      ),
    ).toMatchObject({ campaignWorkers: 4, campaignTimeoutSeconds: 120 });
    expect(() =>
      readNewsletterConfig(from({ senderIdentity: 'example.com', campaignWorkers: '1' })),
    ).toThrow(/campaignWorkers must be a whole number from 2 to 100/);
  });

  it('[campaign.workers-sized] reads the highest campaign rate and the workers’ memory, and names bad ones', () => {
    expect(
      readNewsletterConfig(
        from({
          senderIdentity: 'example.com',
          campaignMaxRate: '250.5',
          campaignWorkerMemory: 512,
        }),
      ),
    ).toMatchObject({ campaignMaxRate: 250.5, campaignWorkerMemory: 512 });
    expect(() =>
      readNewsletterConfig(
        from({ senderIdentity: 'example.com', campaignMaxRate: '0', campaignWorkerMemory: '64' }),
      ),
    ).toThrow(
      /campaignWorkerMemory must be a whole number from 128 to 10240[\s\S]*campaignMaxRate must be a number of mails per second above 0/,
    );
  });

  it('reads an alarm topic and the mailer backoff, and names bad ones', () => {
    const config = readNewsletterConfig(
      from({
        senderIdentity: 'example.com',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
        streamRetryBaseMs: '250',
      }),
    );
    expect(config.alarmTopicArn).toBe('arn:aws:sns:eu-west-1:123456789012:ops');
    expect(config.streamRetryBaseMs).toBe(250);
    expect(() =>
      readNewsletterConfig(
        from({ senderIdentity: 'example.com', alarmTopicArn: 'ops', streamRetryBaseMs: '-1' }),
      ),
    ).toThrow(/alarmTopicArn "ops" is not an SNS topic ARN[\s\S]*streamRetryBaseMs/);
  });

  it('[http.cors] reads CORS origins: * by default, a list of origins, and names a bad one', () => {
    const listed = readNewsletterConfig(
      from({
        senderIdentity: 'example.com',
        corsOrigins: 'https://a.example.com/, http://localhost:8080',
      }),
    );
    expect(listed.corsOrigins).toEqual(['https://a.example.com', 'http://localhost:8080']);
    expect(() =>
      readNewsletterConfig(from({ senderIdentity: 'example.com', corsOrigins: 'a.example.com' })),
    ).toThrow(/corsOrigins: "a.example.com" is not an origin/);
  });

  it('refuses to synthesise without a sender identity, saying how to pass one', () => {
    expect(() => readNewsletterConfig(from({}))).toThrow(DeploymentContextError);
    expect(() => readNewsletterConfig(from({}))).toThrow(/senderIdentity is required.*-c/s);
  });

  it('reads command-line strings and cdk.json values alike', () => {
    const fromCommandLine = readNewsletterConfig(
      from({
        senderIdentity: 'news@example.com',
        retain: 'false',
        deletionProtection: 'false',
        throttleRate: '5',
        logRetentionDays: '90',
        stage: 'wp-json',
        sandboxRecipients: 'ada@example.com, bob@example.org',
      }),
    );
    const fromCdkJson = readNewsletterConfig(
      from({
        senderIdentity: 'news@example.com',
        retain: false,
        deletionProtection: false,
        throttleRate: 5,
        logRetentionDays: 90,
        stage: 'wp-json',
        sandboxRecipients: 'ada@example.com, bob@example.org',
      }),
    );
    expect(fromCommandLine).toEqual(fromCdkJson);
    expect(fromCommandLine).toMatchObject({
      retain: false,
      deletionProtection: false,
      throttleRate: 5,
      logRetentionDays: 90,
      stage: 'wp-json',
      sandboxRecipients: ['ada@example.com', 'bob@example.org'],
    });
  });

  it('takes a custom domain only with its certificate', () => {
    const withDomain = readNewsletterConfig(
      from({
        senderIdentity: 'example.com',
        domainName: 'News.Example.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
      }),
    );
    expect(withDomain.customDomain).toEqual({
      domainName: 'news.example.com',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
    });
    expect(() =>
      readNewsletterConfig(from({ senderIdentity: 'example.com', domainName: 'news.example.com' })),
    ).toThrow(/set both or neither/);
  });

  it('[http.front-door] takes the distribution certificate from us-east-1 only, and refuses trustedProxyHops', () => {
    expect(() =>
      readNewsletterConfig(
        from({
          senderIdentity: 'example.com',
          domainName: 'news.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
        }),
      ),
    ).toThrow(/in us-east-1/);
    // An operator who followed the old advice learns why, instead of a silent change.
    expect(() =>
      readNewsletterConfig(from({ senderIdentity: 'example.com', trustedProxyHops: '1' })),
    ).toThrow(/trustedProxyHops is no longer read: the API answers only what came through/);
    expect(
      readNewsletterConfig(from({ senderIdentity: 'example.com', originSecretGeneration: '4' }))
        .originSecretGeneration,
    ).toBe(4);
  });

  it('[http.client-limits] reads the per-client limits, the window, the method throttles and a distribution web ACL', () => {
    const arn =
      'arn:aws:wafv2:us-east-1:123456789012:global/webacl/NewsletterEdge/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    expect(
      readNewsletterConfig(
        from({
          senderIdentity: 'example.com',
          wafSignUpLimit: '10',
          wafUnsubscribeLimit: 20,
          wafApiLimit: '30',
          wafWindowSeconds: '600',
          signUpThrottleRate: '5',
          unsubscribeThrottleBurst: '300',
          distributionWebAclArn: arn,
        }),
      ),
    ).toMatchObject({
      clientLimits: { signUp: 10, unsubscribe: 20, api: 30, windowSeconds: 600 },
      signUpThrottle: { rate: 5, burst: 40 },
      unsubscribeThrottle: { rate: 100, burst: 300 },
      distributionWebAclArn: arn,
    });
    const refused = () =>
      readNewsletterConfig(
        from({
          senderIdentity: 'example.com',
          wafSignUpLimit: '9',
          wafWindowSeconds: '90',
          distributionWebAclArn: arn.replace('us-east-1', 'eu-west-1'),
        }),
      );
    expect(refused).toThrow(/wafSignUpLimit must be a whole number from 10 to 2000000000/);
    expect(refused).toThrow(/wafWindowSeconds must be one of 60, 120, 300, 600/);
    expect(refused).toThrow(
      /distributionWebAclArn .* is not the ARN of a CloudFront-scoped web ACL/,
    );
  });

  it('names every bad value at once', () => {
    // Arrange
    const context = from({
      senderIdentity: 'not an identity',
      stage: 'api/v1',
      apiKeyParameter: 'has spaces',
      retain: 'yes',
      throttleRate: '-1',
      logRetentionDays: '31',
      sandboxRecipients: 'a@b',
    });
    // Act
    let message = '';
    try {
      readNewsletterConfig(context);
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    // Assert
    for (const key of [
      'senderIdentity',
      'stage',
      'apiKeyParameter',
      'retain',
      'throttleRate',
      'logRetentionDays',
      'sandboxRecipients',
    ]) {
      expect(message).toContain(key);
    }
  });

  it('refuses one parameter for both the key and the settings', () => {
    expect(() =>
      readNewsletterConfig(
        from({ senderIdentity: 'example.com', settingsParameter: ENV_DEFAULTS.apiKeyParameter }),
      ),
    ).toThrow(/must be different/);
  });
});
