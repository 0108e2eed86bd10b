/**
 * Composition roots (issue 13): the operations take their dependencies explicitly, and one a
 * root forgot is a 500 that names it, before anything is stored; not a 503 that invites a
 * retry of something that will never work.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createNewsletter } from '../../shared/newsletter.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
import { testDependencies } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';

describe('a dependency the composition root did not wire', () => {
  it('is a 500 naming the mailer when a subscribe needs mail, and nothing is stored', async () => {
    const fresh = await freshStore();
    const { mailer: _mailer, ...withoutMailer } = testDependencies(fresh.store);
    const deps: Dependencies = withoutMailer;
    const result = await createNewsletter(deps).subscribe({ email: 'ada@example.com' });
    expect(isNewsletterError(result) && result).toMatchObject({
      code: 'internal_error',
      status: 500,
    });
    expect(isNewsletterError(result) && result.message).toMatch(/mailer is not configured/);
    const items = await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }));
    // Only the id counter may have moved; no subscriber, no token.
    expect((items.Items ?? []).filter((item) => !String(item.pk).startsWith('COUNTER#'))).toEqual(
      [],
    );
    expect(withoutMailer.logger.lines.map((line) => line.event)).toContain('operation_failed');
  });

  it('is not needed by the operations that send no mail', async () => {
    const fresh = await freshStore();
    const { mailer: _mailer, ...withoutMailer } = testDependencies(fresh.store);
    const newsletter = createNewsletter(withoutMailer);
    const added = await newsletter.add_subscriber({ email: 'ada@example.com', status: 'C' });
    expect(isNewsletterError(added)).toBe(false);
    expect(isNewsletterError(await newsletter.unsubscribe({ email: 'ada@example.com' }))).toBe(
      false,
    );
    expect(isNewsletterError(await newsletter.subscribers())).toBe(false);
    expect(
      isNewsletterError(await newsletter.delete_subscriber({ email: 'ada@example.com' })),
    ).toBe(false);
  });
});
