/**
 * How the local cloud reads queues, queue event source mappings and scheduled rules from a
 * template: what CloudFormation and Lambda accept becomes the local resource, and what they
 * refuse (or what the local cloud cannot run faithfully) fails loudly at start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeployedStack, type TemplateResource } from '../../infra/local/cloud/deployed-stack.ts';
import { TemplateError } from '../../infra/local/cloud/intrinsics.ts';

const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A cdk.out folder holding one stack with these resources. */
function stackOf(
  resources: Record<string, TemplateResource>,
  bundlesFrom?: DeployedStack,
): DeployedStack {
  const folder = mkdtempSync(join(tmpdir(), 'deployed-stack-'));
  folders.push(folder);
  writeFileSync(
    join(folder, 'manifest.json'),
    JSON.stringify({
      artifacts: {
        Fixture: {
          type: 'aws:cloudformation:stack',
          properties: { templateFile: 'Fixture.template.json' },
        },
      },
    }),
  );
  writeFileSync(join(folder, 'Fixture.template.json'), JSON.stringify({ Resources: resources }));
  return new DeployedStack(folder, { endpoint: 'http://127.0.0.1:1' }, bundlesFrom?.cdkOut);
}

const ROLE: TemplateResource = {
  Type: 'AWS::IAM::Role',
  Properties: { Policies: [] },
};
const fn = (timeout = 10): TemplateResource => ({
  Type: 'AWS::Lambda::Function',
  Properties: {
    Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
    Timeout: timeout,
    Handler: 'index.handler',
  },
});
const mapping = (properties: Record<string, unknown> = {}): TemplateResource => ({
  Type: 'AWS::Lambda::EventSourceMapping',
  Properties: {
    EventSourceArn: { 'Fn::GetAtt': ['Work', 'Arn'] },
    FunctionName: { Ref: 'Worker' },
    ...properties,
  },
});
const queue = (properties: Record<string, unknown> = {}): TemplateResource => ({
  Type: 'AWS::SQS::Queue',
  Properties: { VisibilityTimeout: 60, ...properties },
});

describe('queues from the template', () => {
  it('turns properties into CreateQueue attributes and finds the dead-letter queue', () => {
    const stack = stackOf({
      Dead: queue({ MessageRetentionPeriod: 1_209_600 }),
      Work: queue({
        DelaySeconds: 2,
        ReceiveMessageWaitTimeSeconds: 20,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': ['Dead', 'Arn'] },
          maxReceiveCount: 5,
        },
      }),
      Ordered: queue({ FifoQueue: true, ContentBasedDeduplication: true }),
    });
    const [dead, work, ordered] = stack.queues();
    expect(dead?.attributes).toEqual({
      MessageRetentionPeriod: '1209600',
      VisibilityTimeout: '60',
    });
    expect(work).toMatchObject({
      name: 'Fixture-Work',
      arn: 'arn:aws:sqs:us-east-1:123456789012:Fixture-Work',
      deadLetterQueueLogicalId: 'Dead',
      attributes: {
        DelaySeconds: '2',
        ReceiveMessageWaitTimeSeconds: '20',
        SqsManagedSseEnabled: 'true',
        VisibilityTimeout: '60',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:Fixture-Dead',
          maxReceiveCount: 5,
        }),
      },
    });
    // CloudFormation's name for a FIFO queue ends in .fifo, as SQS requires.
    expect(ordered?.name).toBe('Fixture-Ordered.fifo');
  });

  it('refuses a KMS-encrypted queue, whose key grants it cannot check', () => {
    const stack = stackOf({ Work: queue({ KmsMasterKeyId: 'alias/aws/sqs' }) });
    expect(() => stack.queues()).toThrow(/cannot run KmsMasterKeyId/);
  });
});

describe('queue event source mappings from the template', () => {
  const base = { Role: ROLE, Worker: fn(), Work: queue() };

  it('reads batch size, window, concurrency, partial batch responses and filters', () => {
    const stack = stackOf({
      ...base,
      Mapping: mapping({
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 2,
        ScalingConfig: { MaximumConcurrency: 5 },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        FilterCriteria: { Filters: [{ Pattern: '{"body":{"kind":["mail"]}}' }] },
      }),
    });
    expect(stack.queueMappings()).toEqual([
      {
        logicalId: 'Mapping',
        functionLogicalId: 'Worker',
        queueLogicalId: 'Work',
        queueArn: 'arn:aws:sqs:us-east-1:123456789012:Fixture-Work',
        batchSize: 100,
        maximumBatchingWindowSeconds: 2,
        maximumConcurrency: 5,
        reportBatchItemFailures: true,
        filters: [{ body: { kind: ['mail'] } }],
        enabled: true,
      },
    ]);
    // A queue's mapping is not a stream's.
    expect(stack.streamMappings()).toEqual([]);
  });

  it('refuses what Lambda refuses when the mapping is created', () => {
    const refused = [
      [mapping({ BatchSize: 11 }), /batching window/],
      [mapping({ ScalingConfig: { MaximumConcurrency: 1 } }), /between 2 and 1000/],
      [mapping({ StartingPosition: 'LATEST' }), /cannot run StartingPosition/],
    ] as const;
    for (const [resource, message] of refused) {
      expect(() => stackOf({ ...base, Mapping: resource }).queueMappings()).toThrow(message);
    }
    const slow = stackOf({ Role: ROLE, Worker: fn(90), Work: queue(), Mapping: mapping() });
    expect(() => slow.queueMappings()).toThrow(
      'Queue visibility timeout: 60 seconds is less than Function timeout: 90 seconds',
    );
  });
});

describe('scheduled rules from the template', () => {
  const base = { Role: ROLE, Ticker: fn() };

  it('reads the schedule, the state and function targets with their input', () => {
    const stack = stackOf({
      ...base,
      Tick: {
        Type: 'AWS::Events::Rule',
        Properties: {
          ScheduleExpression: 'rate(5 minutes)',
          State: 'DISABLED',
          Targets: [{ Arn: { 'Fn::GetAtt': ['Ticker', 'Arn'] }, Id: 'T', Input: '{"job":"due"}' }],
        },
      },
    });
    expect(stack.scheduleRules()).toEqual([
      {
        logicalId: 'Tick',
        name: 'Fixture-Tick',
        arn: 'arn:aws:events:us-east-1:123456789012:rule/Fixture-Tick',
        scheduleExpression: 'rate(5 minutes)',
        enabled: false,
        targets: [{ id: 'T', functionLogicalId: 'Ticker', input: { job: 'due' } }],
      },
    ]);
  });

  it('refuses a target that is no function of the stack and a dead-letter queue; an event-pattern rule is no scheduled rule', () => {
    const rule = (properties: Record<string, unknown>): TemplateResource => ({
      Type: 'AWS::Events::Rule',
      Properties: properties,
    });
    const target = { Arn: { 'Fn::GetAtt': ['Ticker', 'Arn'] }, Id: 'T' };
    // A rule on a pattern is the bus's to run (patternRules), with what it may hold.
    const patterned = stackOf({
      ...base,
      Rule: rule({ EventPattern: { source: ['aws.s3'] }, Targets: [target] }),
    });
    expect(patterned.scheduleRules()).toEqual([]);
    expect(patterned.patternRules().map((each) => each.logicalId)).toEqual(['Rule']);
    expect(() =>
      stackOf({
        ...base,
        Rule: rule({
          EventPattern: { source: ['aws.s3'] },
          Targets: [{ ...target, InputTransformer: { InputTemplate: '"x"' } }],
        }),
      }).patternRules(),
    ).toThrow(TemplateError);
    for (const properties of [
      {
        ScheduleExpression: 'rate(1 hour)',
        Targets: [{ Arn: 'arn:aws:sns:us-east-1:1:t', Id: 'T' }],
      },
      {
        ScheduleExpression: 'rate(1 hour)',
        Targets: [{ ...target, DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:1:q' } }],
      },
    ]) {
      expect(() => stackOf({ ...base, Rule: rule(properties) }).scheduleRules()).toThrow(
        TemplateError,
      );
    }
  });
});

describe('function code from the template', () => {
  /** A function as `cdk synth` writes it: bundled into the assembly, or bundling skipped. */
  const withCode = (entry: string, assetPath: string): TemplateResource => ({
    ...fn(),
    Metadata: {
      'aws:asset:path': assetPath,
      'aws:asset:is-bundled': true,
      'newsletter:entry': entry,
    },
  });

  it('runs the bundle staged in the assembly, and none when bundling was skipped', () => {
    const bundled = stackOf({ Role: ROLE, Worker: withCode('functions/a.ts', 'asset.abc') });
    expect(bundled.function('Worker').codeDir).toBe(join(bundled.cdkOut, 'asset.abc'));
    const skipped = stackOf({ Role: ROLE, Worker: withCode('functions/a.ts', '/project') });
    expect(skipped.function('Worker').codeDir).toBeUndefined();
  });

  it('takes a skipped bundle from bundlesFrom, only of the same logical id and entry', () => {
    const bundles = stackOf({ Role: ROLE, Worker: withCode('functions/a.ts', 'asset.abc') });
    const template = (entry: string, id = 'Worker') =>
      stackOf({ Role: ROLE, [id]: withCode(entry, '/project') }, bundles);
    expect(template('functions/a.ts').function('Worker').codeDir).toBe(
      join(bundles.cdkOut, 'asset.abc'),
    );
    expect(() => template('functions/b.ts').function('Worker')).toThrow(TemplateError);
    expect(() => template('functions/a.ts', 'Other').function('Other')).toThrow(TemplateError);
    // Its own bundle wins: bundlesFrom only fills in what the synth skipped.
    const own = stackOf({ Role: ROLE, Worker: withCode('functions/a.ts', 'asset.own') }, bundles);
    expect(own.function('Worker').codeDir).toBe(join(own.cdkOut, 'asset.own'));
  });
});

describe('[http.front-door] conditions and generated secrets from the template', () => {
  /** A cdk.out folder with conditions beside the resources; secrets by ARN as drawn. */
  function withConditions(
    template: Record<string, unknown>,
    secrets?: ReadonlyMap<string, string>,
  ): DeployedStack {
    const folder = mkdtempSync(join(tmpdir(), 'deployed-stack-'));
    folders.push(folder);
    writeFileSync(
      join(folder, 'manifest.json'),
      JSON.stringify({
        artifacts: {
          Fixture: {
            type: 'aws:cloudformation:stack',
            properties: { templateFile: 'Fixture.template.json' },
          },
        },
      }),
    );
    writeFileSync(join(folder, 'Fixture.template.json'), JSON.stringify(template));
    return new DeployedStack(folder, secrets ? { secrets } : {});
  }
  const reference = (id: string) => ({
    'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: id }, ':SecretString:::}}']],
  });
  const template = {
    Conditions: {
      InUsEast1: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] },
      Elsewhere: { 'Fn::Not': [{ Condition: 'InUsEast1' }] },
    },
    Resources: {
      Secret: {
        Type: 'AWS::SecretsManager::Secret',
        Properties: { GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true } },
      },
      Here: { Type: 'AWS::SQS::Queue', Condition: 'InUsEast1', Properties: {} },
      There: { Type: 'AWS::SQS::Queue', Condition: 'Elsewhere', Properties: {} },
    },
  };

  it('creates only what its conditions hold for in the local region, and resolves Fn::If by them', () => {
    const deployed = withConditions(template);
    expect(deployed.conditions).toEqual({ InUsEast1: true, Elsewhere: false });
    expect(deployed.ofType('AWS::SQS::Queue').map(([id]) => id)).toEqual(['Here']);
    expect(deployed.resolve({ 'Fn::If': ['Elsewhere', 'there', { Ref: 'AWS::NoValue' }] })).toBe(
      '',
    );
  });

  it('resolves a dynamic reference to a secret it drew, and nothing else', () => {
    const bare = withConditions(template);
    const [secret] = bare.generatedSecrets();
    expect(secret).toMatchObject({ logicalId: 'Secret', length: 48, excludePunctuation: true });
    expect(() => bare.resolveString(reference('Secret'))).toThrow(TemplateError);
    const drawn = withConditions(template, new Map([[secret?.arn ?? '', 'drawn-value']]));
    expect(drawn.resolveString(reference('Secret'))).toBe('drawn-value');
    expect(() =>
      drawn.resolveString(`{{resolve:secretsmanager:${secret?.arn}:SecretString:password::}}`),
    ).toThrow(/whole secrets only/);
    expect(() => drawn.resolveString('{{resolve:ssm:/some/parameter}}')).toThrow(TemplateError);
  });
});
