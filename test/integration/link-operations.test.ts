import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { RecipientRecord } from '../../shared/domain/campaign/recipient.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { hashToken } from '../../shared/domain/tokens.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { checkLink, unsubscribeByLink } from '../../shared/operations/token-links.ts';
import { freshAddresses, type testDependencies, testSettings } from '../support/fixtures.ts';
import { settledService } from '../support/settled-service.ts';

/**
 * The links in mails (`check_link`, `confirm_subscription`, `unsubscribe_link`), for what the
 * mutation round of issue 23 found unchecked: a link's purpose and expiry, the statuses a link
 * may confirm, the Confirmations metric, and a confirmation that cannot build its mails.
 */

let deps: ReturnType<typeof testDependencies>;
let store: DynamoStore;
let newsletter: NewsletterOperations;
let scanAll: () => Promise<Record<string, unknown>[]>;
/** Removes what a keyless call carried from a token item, as a link minted before it was kept. */
let stripCarried: (raw: string) => Promise<void>;
const address = freshAddresses();
const PUBLIC = { trusted: false };

beforeEach(async () => {
  const service = await settledService();
  ({ store, deps, newsletter, scanAll } = service);
  const fresh = service;
  stripCarried = async (raw) => {
    await fresh.client.send(
      new UpdateCommand({
        TableName: fresh.tableName,
        Key: { pk: `TOKEN#${hashToken(raw)}`, sk: 'token' },
        UpdateExpression: 'REMOVE on_confirm',
      }),
    );
  };
});

const tokenOf = (url: string | undefined): string =>
  new URL(url ?? '').searchParams.get('token') ?? '';

/** A keyless subscribe of a new address, and the raw token of its activation link. */
async function pending(tag: string): Promise<{ email: string; token: string }> {
  const email = address(tag);
  await newsletter.subscribe({ email }, PUBLIC);
  return { email, token: tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl) };
}

/** Sets a stored subscriber's status directly, as SES feedback would. */
async function setStatus(email: string, status: 'B' | 'P'): Promise<void> {
  const record = await store.getSubscriber(email);
  if (!record) throw new Error(`${email} not stored`);
  await store.replaceSubscriber({ ...record, status, version: record.version + 1 }, record);
}

describe('[http.link-pages] a link', () => {
  it('serves its own purpose only: an activation link unsubscribes nobody', async () => {
    const { email, token } = await pending('purpose');
    expect(await newsletter.check_link({ token, purpose: 'unsubscribe' })).toBe(false);
    expect(await newsletter.unsubscribe_link({ token })).toBe('invalid');
    expect((await store.getSubscriber(email))?.status).toBe('S');
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
  });

  it('is dead from the second its token expires', async () => {
    const { token } = await pending('expiry');
    const item = (await scanAll()).find((entry) => entry.pk === `TOKEN#${hashToken(token)}`);
    const expiresMs = Number(item?.expires_at) * 1000;
    expect(expiresMs).toBeGreaterThan(deps.clock.current.getTime());
    deps.clock.current = new Date(expiresMs - 1);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
    deps.clock.current = new Date(expiresMs);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(false);
    expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
  });

  it('an activation link still shows its button once confirmed, and for a U a keyless call asked back', async () => {
    const { token } = await pending('confirmed');
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
    const back = address('back');
    await newsletter.add_subscriber({ email: back });
    await newsletter.unsubscribe({ email: back });
    await newsletter.subscribe({ email: back }, PUBLIC);
    const asked = tokenOf(deps.mailer.of('activation', back)[0]?.confirmUrl);
    expect(await newsletter.check_link({ token: asked, purpose: 'confirm' })).toBe(true);
  });

  it('[campaign.unsubscribe-link] a campaign link where no campaign store is wired is unknown', async () => {
    const link = `7.1.${'A'.repeat(43)}`;
    expect(await newsletter.check_link({ token: link, purpose: 'unsubscribe' })).toBe(false);
    expect(await newsletter.unsubscribe_link({ token: link })).toBe('invalid');
  });
});

describe('[feedback.blocked] links of a B or P subscriber', () => {
  it('an activation link confirms nothing; an unsubscribe link shows its button and leaves the status', async () => {
    deps.current.settings = testSettings({ opt_in: 'single' });
    for (const status of ['B', 'P'] as const) {
      const email = address(`blocked-${status.toLowerCase()}`);
      await newsletter.subscribe({ email });
      const unsubscribeToken = tokenOf(deps.mailer.of('welcome', email)[0]?.unsubscribeUrl);
      await newsletter.unsubscribe({ email });
      deps.clock.advance(11 * 60_000);
      await newsletter.subscribe({ email }, PUBLIC);
      const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
      expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
      await setStatus(email, status);
      const before = await store.getSubscriber(email);
      expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(false);
      expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
      expect(await newsletter.check_link({ token: unsubscribeToken, purpose: 'unsubscribe' })).toBe(
        true,
      );
      expect(await newsletter.unsubscribe_link({ token: unsubscribeToken })).toBe('unsubscribed');
      expect(await store.getSubscriber(email)).toEqual(before);
    }
    expect(deps.metrics.counts.Confirmations).toBeUndefined();
  });
});

describe('[ops.metrics] confirming', () => {
  it('counts Confirmations once per confirmation, not for a link confirmed again', async () => {
    const { token } = await pending('count');
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    expect(deps.metrics.counts.Confirmations).toBe(1);
    expect(await newsletter.confirm_subscription({ token })).toBe('already_confirmed');
    expect(deps.metrics.counts.Confirmations).toBe(1);
  });
});

describe('[subscribe.in-process-links] confirming in-process', () => {
  it('without public_base_url, a confirmation that must mail is a 500 value; nothing changes or counts', async () => {
    const { email, token } = await pending('nolink');
    const before = await store.getSubscriber(email);
    deps.current.settings = testSettings({ public_base_url: '' });
    const failed = await newsletter.confirm_subscription({ token });
    expect(isNewsletterError(failed) && failed).toMatchObject({
      code: 'internal_error',
      status: 500,
    });
    expect(await store.getSubscriber(email)).toEqual(before);
    expect(deps.metrics.counts.Confirmations).toBeUndefined();
    expect(deps.mailer.of('welcome', email)).toHaveLength(0);
  });
});

describe('[subscribe.keyless-no-rewrite] an activation link that carries nothing', () => {
  it('(minted before calls were carried) confirms the record as stored, with the welcome and its consent', async () => {
    const { email, token } = await pending('legacy');
    const item = (await scanAll()).find((entry) => entry.pk === `TOKEN#${hashToken(token)}`);
    expect(item?.on_confirm).toBeDefined();
    await stripCarried(token);
    const before = await store.getSubscriber(email);
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    const after = await store.getSubscriber(email);
    expect(after?.status).toBe('C');
    expect(after?.consent?.subscribed).toEqual(before?.consent?.subscribed);
    expect(deps.mailer.of('welcome', email)).toHaveLength(1);
  });
});

/**
 * A campaign store sized to what the links call: one recipient record holding a link's hash,
 * the subscriber index, and the note that the person left through the issue.
 */
function campaignsWith(
  newsletterId: number,
  subscriberId: number,
  email: string,
  secret: string,
): CampaignStore & { left: [number, number][] } {
  const left: [number, number][] = [];
  const recipient = {
    token_hash: hashToken(secret),
    link_expires_at: Math.floor(deps.clock.current.getTime() / 1000) + 86_400,
  } as RecipientRecord;
  const fake = {
    left,
    getRecipient: async (n: number, s: number) =>
      n === newsletterId && s === subscriberId ? recipient : undefined,
    emailsOf: async (ids: readonly number[]) =>
      new Map(ids.filter((id) => id === subscriberId).map((id) => [id, email])),
    markUnsubscribed: async (n: number, s: number) => {
      left.push([n, s]);
    },
  };
  return fake as unknown as CampaignStore & { left: [number, number][] };
}

describe("[campaign.unsubscribe-link] a campaign mail's link, through the link operations", () => {
  it('shows its button when its recipient record holds its hash, and unsubscribes noting the issue', async () => {
    const email = address('campaign');
    await newsletter.add_subscriber({ email });
    const id = (await store.getSubscriber(email))?.id ?? 0;
    const secret = 'S'.repeat(43);
    const campaigns = campaignsWith(7, id, email, secret);
    const linkDeps = { ...deps, campaigns };
    const link = `7.${id}.${secret}`;
    expect(await checkLink(linkDeps, link, 'unsubscribe')).toBe(true);
    expect(await checkLink(linkDeps, `7.${id}.${'T'.repeat(43)}`, 'unsubscribe')).toBe(false);
    expect((await store.getSubscriber(email))?.status).toBe('C');
    expect(await unsubscribeByLink(linkDeps, link)).toBe('unsubscribed');
    expect((await store.getSubscriber(email))?.status).toBe('U');
    expect(campaigns.left).toEqual([[7, id]]);
  });
});

describe('[ops.metrics] a confirmation that loses a race', () => {
  it('is decided again on a fresh read: stored once, counted once, one welcome', async () => {
    const { email, token } = await pending('lost-race');
    // Someone else writes the subscriber between the confirmation's read and its write, once.
    let raced = false;
    const racing = Object.create(store) as DynamoStore;
    racing.replaceSubscriber = async (record, expected, writes) => {
      if (!raced && record.status === 'C') {
        raced = true;
        return false;
      }
      return store.replaceSubscriber(record, expected, writes);
    };
    const linkNewsletter = createNewsletter({ ...deps, store: racing });
    expect(await linkNewsletter.confirm_subscription({ token })).toBe('confirmed');
    expect(raced).toBe(true);
    expect((await store.getSubscriber(email))?.status).toBe('C');
    expect(deps.metrics.counts.Confirmations).toBe(1);
    // A call through the settling operations lets the mailer work off the outbox.
    await newsletter.check_link({ token, purpose: 'confirm' });
    expect(deps.mailer.of('welcome', email)).toHaveLength(1);
  });
});
