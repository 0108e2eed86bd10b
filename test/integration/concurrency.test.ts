import { beforeEach, describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { type RecordingMailer, testDependencies } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

let newsletter: NewsletterOperations;
let mailer: RecordingMailer;

beforeEach(async () => {
  const { store, client, tableName } = await freshStore();
  const deps = testDependencies(store);
  mailer = deps.mailer;
  newsletter = settling(createNewsletter(deps), streamWorker(client, tableName, deps).settle);
});

describe('races', () => {
  it('50 simultaneous subscribe calls for one address leave exactly one subscriber and one activation mail', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        newsletter.subscribe({ email: 'race@example.com', name: `N${i % 3}` }, { trusted: false }),
      ),
    );
    expect(results.filter(isNewsletterError)).toEqual([]);
    const listed = (await newsletter.subscribers()) as Subscriber[];
    expect(listed.filter((s) => s.email === 'race@example.com')).toHaveLength(1);
    expect(mailer.of('activation', 'race@example.com')).toHaveLength(1);
  });

  it('a confirm link posted many times at once confirms once and sends one welcome mail', async () => {
    await newsletter.subscribe({ email: 'twice@example.com' }, { trusted: false });
    const token = new URL(mailer.sent[0]?.confirmUrl ?? '').searchParams.get('token');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => newsletter.confirm_subscription({ token })),
    );
    expect(outcomes.filter((o) => o === 'confirmed')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'already_confirmed')).toHaveLength(9);
    expect(mailer.of('welcome')).toHaveLength(1);
    expect(mailer.of('admin')).toHaveLength(1);
  });
});
