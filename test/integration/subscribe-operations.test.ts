import { beforeEach, describe, expect, it } from 'vitest';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import { freshAddresses, type testDependencies, testSettings } from '../support/fixtures.ts';
import { settledService } from '../support/settled-service.ts';

/**
 * The operations of `subscribe`, `unsubscribe` and the mail links, for what the mutation round
 * of issue 23 found unchecked: the metrics and log lines the rules name, the public-form rules,
 * the settling of keyless requests, and what an unsubscribe writes.
 */

let deps: ReturnType<typeof testDependencies>;
let store: DynamoStore;
let newsletter: NewsletterOperations;
/** The operations with no stream worker behind them: keyless requests stay unsettled. */
let direct: NewsletterOperations;
let scanAll: () => Promise<Record<string, unknown>[]>;
const address = freshAddresses();
const PUBLIC = { trusted: false };

beforeEach(async () => {
  ({ store, deps, direct, newsletter, scanAll } = await settledService());
});

const requestIds = async (): Promise<string[]> =>
  (await scanAll())
    .filter((item) => String(item.pk).startsWith('REQUEST#'))
    .map((item) => String(item.pk).slice('REQUEST#'.length));

describe('subscribe: public-form rules', () => {
  it('[params.privacy] a required privacy box must be ticked; unticked or false is a 400 saying so', async () => {
    deps.current.settings = testSettings({ required_public_fields: ['privacy'] });
    const email = address('privacy');
    for (const privacy of [undefined, 'off', false]) {
      const refused = await newsletter.subscribe(
        { email, ...(privacy === undefined ? {} : { privacy }) },
        PUBLIC,
      );
      expect(isNewsletterError(refused) && refused, `privacy=${privacy}`).toMatchObject({
        code: 'missing_parameter',
        status: 400,
      });
      // The form shows the message: it names the parameter and what to do.
      expect(isNewsletterError(refused) && refused.message).toMatch(/^privacy .*tick/);
    }
    expect(await scanAll()).toHaveLength(0);
    expect(await newsletter.subscribe({ email, privacy: 'on' }, PUBLIC)).toEqual({
      email,
      status: 'pending',
    });
    expect(deps.mailer.of('activation', email)).toHaveLength(1);
    // The original's checkbox name counts too.
    expect(await newsletter.subscribe({ email: address('ny'), ny: '1' }, PUBLIC)).toMatchObject({
      status: 'pending',
    });
  });

  it('[params.error-names-parameter] a private list refused to a keyless call names the parameter first', async () => {
    const refused = await newsletter.subscribe({ email: address('private'), lists: [2] }, PUBLIC);
    expect(isNewsletterError(refused) && refused.code).toBe('private_list');
    expect(isNewsletterError(refused) && refused.message).toMatch(/^lists: list 2 /);
  });
});

describe('subscribe: what the operator sees', () => {
  it('[ops.metrics] RateLimited counts each keyless call refused by the rate limit', async () => {
    deps.current.settings = testSettings({
      public_rate_limit: { max_requests: 1, window_minutes: 10 },
    });
    const from = { trusted: false, clientIp: '203.0.113.77' };
    expect(isNewsletterError(await newsletter.subscribe({ email: address('rl') }, from))).toBe(
      false,
    );
    expect(deps.metrics.counts.RateLimited).toBeUndefined();
    await newsletter.subscribe({ email: address('rl') }, from);
    await newsletter.subscribe({ email: address('rl') }, from);
    expect(deps.metrics.counts.RateLimited).toBe(2);
  });

  it('[params.unknown-profile-field] a trusted subscribe names the ignored fields in its answer, warns with the id-shaped names and counts them all', async () => {
    const email = address('unknown');
    const answer = (await newsletter.subscribe({
      email,
      profile_company: 'ACME',
      profile_9: 'x',
      'profile[shoe]': '42',
      profile: { 'a@b.example': 'y' },
    })) as Subscriber & { ignored_profile_fields?: string[] };
    expect(answer.profile).toEqual({ company: 'ACME' });
    const ignored = answer.ignored_profile_fields ?? [];
    expect([...ignored].sort()).toEqual(['profile_9', 'profile_a@b.example', 'profile_shoe']);
    const warnings = deps.logger.lines.filter(
      (line) => line.event === 'unknown_profile_fields_ignored',
    );
    expect(warnings).toHaveLength(1);
    const fields = warnings[0]?.fields as { fields: string; other_names?: number };
    expect(fields.fields.split(',').sort()).toEqual(['profile_9', 'profile_shoe']);
    // The name that could carry an address is only counted.
    expect(fields.other_names).toBe(1);
    expect(JSON.stringify(deps.logger.lines)).not.toContain('a@b.example');
    expect(deps.metrics.counts.UnknownProfileFields).toBe(3);
  });

  it('[params.unknown-profile-field] only id-shaped names: no count of others; no unknown field: no warning, no metric, no ignored_profile_fields', async () => {
    await newsletter.subscribe({ email: address('shaped'), profile_9: 'x' }, PUBLIC);
    expect(deps.logger.lines.filter((line) => line.level === 'warn')).toEqual([
      { level: 'warn', event: 'unknown_profile_fields_ignored', fields: { fields: 'profile_9' } },
    ]);
    expect(deps.metrics.counts.UnknownProfileFields).toBe(1);
    deps.logger.lines.length = 0;
    const clean = await newsletter.subscribe({ email: address('clean'), profile_company: 'X' });
    expect(clean).not.toHaveProperty('ignored_profile_fields');
    expect(deps.logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
    expect(deps.metrics.counts.UnknownProfileFields).toBe(1);
  });

  it('[ops.metrics] Subscriptions counts a new subscriber and a U coming back, not an update, nor a U a keyless call leaves U', async () => {
    const email = address('counted');
    await newsletter.subscribe({ email, name: 'First' });
    expect(deps.metrics.counts.Subscriptions).toBe(1);
    // An update of an existing subscriber (S, then C) is no new subscription.
    await newsletter.subscribe({ email, name: 'Second' });
    expect(deps.metrics.counts.Subscriptions).toBe(1);
    const confirmed = address('counted-c');
    await newsletter.add_subscriber({ email: confirmed });
    const before = deps.metrics.counts.Subscriptions;
    await newsletter.subscribe({ email: confirmed, name: 'Changed', lists: [4] });
    expect(deps.metrics.counts.Subscriptions).toBe(before);
    await newsletter.unsubscribe({ email });
    // A keyless call leaves the U as it is until the link is confirmed: not counted yet.
    deps.clock.advance(11 * 60_000);
    await newsletter.subscribe({ email }, PUBLIC);
    expect(deps.mailer.of('activation', email)).toHaveLength(2);
    expect((await store.getSubscriber(email))?.status).toBe('U');
    expect(deps.metrics.counts.Subscriptions).toBe(1);
    // A trusted call brings it back (U → S): counted.
    await newsletter.subscribe({ email });
    expect((await store.getSubscriber(email))?.status).toBe('S');
    expect(deps.metrics.counts.Subscriptions).toBe(2);
  });
});

describe('subscribe: settling a keyless request', () => {
  it('[subscribe.public-base-url] a keyless call without public_base_url links to the api_root it came in on', async () => {
    deps.current.settings = testSettings({ public_base_url: '' });
    const email = address('root');
    const context = { trusted: false, apiRoot: 'https://abc.execute-api.example.com/v1' };
    expect(await newsletter.subscribe({ email }, context)).toEqual({ email, status: 'pending' });
    expect(deps.mailer.of('activation', email)[0]?.confirmUrl).toMatch(
      /^https:\/\/abc\.execute-api\.example\.com\/v1\/subscription\/confirm\?token=/,
    );
  });

  it('[subscribe.keyless-async] settling applies the request and deletes it with the change; a redelivery finds it gone and does nothing', async () => {
    const email = address('settle');
    await direct.subscribe({ email, name: 'Ann' }, PUBLIC);
    const [id] = await requestIds();
    if (id === undefined) throw new Error('no request recorded');
    expect(await store.getSubscriber(email)).toBeUndefined();
    expect(await settleSubscribeRequest(deps, id)).toBe('settled');
    expect(await store.getSubscriber(email)).toMatchObject({ name: 'Ann', status: 'S' });
    // The request went in the same commit as the subscriber.
    expect(await store.getSubscribeRequest(id)).toBeUndefined();
    const after = await scanAll();
    expect(await settleSubscribeRequest(deps, id)).toBe('gone');
    expect(await scanAll()).toEqual(after);
  });

  it('[subscribe.keyless-async] a request that is not what the API writes is left to the retries, never guessed at', async () => {
    for (const params of [{ name: 'No address' }, undefined]) {
      const id = `malformed-${params === undefined ? 'empty' : 'noemail'}`;
      await store.putSubscribeRequest({
        request_id: id,
        ...(params === undefined ? {} : { params }),
        received_at: deps.clock.now().toISOString(),
      } as Parameters<DynamoStore['putSubscribeRequest']>[0]);
      await expect(settleSubscribeRequest(deps, id)).rejects.toThrow(
        `subscribe request ${id} is malformed`,
      );
      expect(await store.getSubscribeRequest(id)).toBeDefined();
    }
    expect((await scanAll()).some((item) => String(item.pk).startsWith('SUBSCRIBER#'))).toBe(false);
  });
});

describe('subscribe: racing trusted calls', () => {
  it('[ops.metrics] two trusted subscribes of one new address at once: one subscriber, both answered, one Subscriptions', async () => {
    const email = address('race');
    const answers = await Promise.all([
      newsletter.subscribe({ email, name: 'One', send_emails: false }),
      newsletter.subscribe({ email, surname: 'Two', send_emails: false }),
    ]);
    expect(answers.filter(isNewsletterError)).toEqual([]);
    expect(answers.map((answer) => (answer as Subscriber).email)).toEqual([email, email]);
    expect(await store.getSubscriber(email)).toMatchObject({ name: 'One', surname: 'Two' });
    expect(deps.metrics.counts.Subscriptions).toBe(1);
  });
});

describe('subscribe: a write that loses a race', () => {
  it('[ops.metrics] is decided again on a fresh read: one subscriber, the answer, one Subscriptions', async () => {
    const email = address('lost-race');
    // Another writer wins the first create: the store refuses it once, as its condition would.
    let raced = false;
    const racing = Object.create(store) as DynamoStore;
    racing.createSubscriber = async (record, writes) => {
      if (!raced) {
        raced = true;
        return false;
      }
      return store.createSubscriber(record, writes);
    };
    const answer = await createNewsletter({ ...deps, store: racing }).subscribe({
      email,
      name: 'Late',
      send_emails: false,
    });
    expect(raced).toBe(true);
    expect(isNewsletterError(answer) ? answer : (answer as Subscriber).email).toBe(email);
    expect(await store.getSubscriber(email)).toMatchObject({ name: 'Late', status: 'S' });
    expect(deps.metrics.counts.Subscriptions).toBe(1);
  });
});
