/**
 * Composition roots (issue 13) after the outbox (issue 14): the API's operations take the
 * table, the settings, a clock, a logger and metrics, and no mailer; mail they start waits in
 * the outbox for the mailer, which takes its MailPort explicitly.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createNewsletter } from '../../shared/newsletter.ts';
import { deliverMail } from '../../shared/operations/deliver-mail.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
import { RecordingMailer, testDependencies } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';

describe('dependencies of the operations', () => {
  it('subscribe needs no mailer: its activation mail waits in the outbox for the one that has it', async () => {
    const fresh = await freshStore();
    const { mailer: _unused, ...rest } = testDependencies(fresh.store);
    const deps: Dependencies = rest;
    const subscriber = await createNewsletter(deps).subscribe({ email: 'ada@example.com' });
    expect(isNewsletterError(subscriber)).toBe(false);
    const items =
      (await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }))).Items ?? [];
    const mails = items.filter((item) => String(item.pk).startsWith('OUTBOX#'));
    expect(mails).toMatchObject([
      { kind: 'activation', state: 'queued', email: 'ada@example.com' },
    ]);
    const mailer = new RecordingMailer();
    expect(await deliverMail({ ...deps, mailer }, String(mails[0]?.mail_id))).toBe('sent');
    expect(mailer.of('activation', 'ada@example.com')).toHaveLength(1);
  });
});
