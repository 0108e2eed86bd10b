import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from './build-app.ts';

/** Every acknowledgement recorded in the tree: finding id → reason. */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.set(id.replace(/^annotation::/i, ''), reason);
      }
    }
  }
  return found;
}

/** Finding ids cdk-nag reports for the app, acknowledged or not. */
function allFindings(built: BuiltApp): string[] {
  // cdk-nag exposes no switch to ignore acknowledgements, so shadow its private check on this
  // one instance. If a cdk-nag update renames it, the "is used" test below fails loudly.
  const unfiltered = Object.assign(Object.create(built.nag), { isAcknowledged: () => false });
  const report = (unfiltered as typeof built.nag).validateScope(built.app);
  return report.violations.map((violation) => violation.ruleName);
}

describe.each([
  ['default deployment', {}],
  [
    'custom domain, account role managed elsewhere',
    {
      domainName: 'news.example.com',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
      apiGatewayCloudWatchRole: 'false',
    },
  ],
])('cdk-nag AwsSolutions, %s', (_name, context) => {
  const built = buildApp(context);

  it('reports no unacknowledged error or warning', () => {
    // Act
    const report = built.nag.validateScope(built.app);
    // Assert: the message lists rule and resource, to say what to fix.
    const open = report.violations.map(
      (violation) =>
        `${violation.ruleName} (${violation.severity}) at ` +
        violation.violatingResources.map((resource) => resource.constructPath).join(', '),
    );
    expect(open).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges each finding with a reason a reviewer can check', () => {
    const reasons = acknowledgements(built.app);
    expect(reasons.size).toBeGreaterThan(0);
    for (const [id, reason] of reasons) {
      expect(id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(reason.length, id).toBeGreaterThan(80);
    }
  });

  it('acknowledges only findings that exist (no stale acknowledgement)', () => {
    const findings = new Set(allFindings(built));
    expect(findings.size).toBeGreaterThan(0);
    for (const id of acknowledgements(built.app).keys()) {
      expect(findings.has(id), `${id} is acknowledged but never reported`).toBe(true);
    }
  });
});
