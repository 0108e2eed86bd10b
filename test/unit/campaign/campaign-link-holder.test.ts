/** Whose a campaign mail's unsubscribe link is: its recipient record, its expiry, its subscriber. */
import { describe, expect, it } from 'vitest';
import type {
  CampaignStore,
  ChunkLinks,
  RecordSpace,
} from '../../../shared/adapters/store/campaign-store-port.ts';
import type { Store } from '../../../shared/adapters/store/store-port.ts';
import {
  campaignLinkHash,
  chunkLinkEntry,
  mintCampaignLink,
  parseCampaignLink,
} from '../../../shared/domain/campaign/campaign-link.ts';
import type { RecipientRecord } from '../../../shared/domain/campaign/recipient.ts';
import type { SubscriberRecord } from '../../../shared/domain/subscriber.ts';
import { campaignLinkHolder } from '../../../shared/operations/campaign/campaign-links.ts';

const NOW = Date.parse('2026-12-01T09:00:00.000Z');
const EXPIRES = NOW / 1000 + 86_400;

const subscriber = (id: number, email: string): SubscriberRecord =>
  ({ id, email, status: 'C', lists: [1], profile: {}, version: 1 }) as SubscriberRecord;

/**
 * The stores a link is checked against: issue 7's recipient record of subscriber 42 holding the
 * link's hash, the id index (`emailsOf`) and the subscribers by address. Each may be changed.
 */
function world(raw: string) {
  const token = parseCampaignLink(raw);
  if (!token) throw new Error('not a campaign link');
  const recipients = new Map<string, RecipientRecord>([
    [
      '7.42',
      {
        newsletter_id: 7,
        subscriber_id: 42,
        state: 'sent',
        run: 1,
        attempts: 1,
        token_hash: campaignLinkHash(token),
        link_expires_at: EXPIRES,
      },
    ],
  ]);
  const index = new Map<number, string>([[42, 'ada@example.com']]);
  const subscribers = new Map([['ada@example.com', subscriber(42, 'ada@example.com')]]);
  const clock = { t: NOW };
  // Only what campaignLinkHolder calls; the rest of each port is never reached.
  const chunks = new Map<string, ChunkLinks>();
  const asked: RecordSpace[] = [];
  const campaigns = {
    getRecipient: async (space: RecordSpace, s: number) => {
      asked.push(space);
      return recipients.get(`${space.newsletterId}.${s}`);
    },
    chunkLinks: async (n: number, run: number, first: number) => chunks.get(`${n}.${run}.${first}`),
    emailsOf: async (ids: readonly number[]) =>
      new Map(ids.flatMap((id) => (index.has(id) ? [[id, index.get(id) ?? '']] : []))),
  } as unknown as CampaignStore;
  const store = {
    getSubscriber: async (email: string) => subscribers.get(email),
  } as unknown as Store;
  const deps = { campaigns, store, now: () => new Date(clock.t) };
  return { deps, recipients, chunks, asked, index, subscribers, clock };
}

/** A well-formed link of issue 7 for subscriber 42 (a fresh 256-bit secret). */
const link = () => mintCampaignLink(7, 42, { run: 1, first: 40 }).raw;

describe('[campaign.unsubscribe-link] whose link it is', () => {
  it('is its subscriber’s while the recipient record holds its hash, up to the second it expires', async () => {
    const raw = link();
    const { deps, clock } = world(raw);

    expect((await campaignLinkHolder(deps, raw))?.subscriber.email).toBe('ada@example.com');
    clock.t = EXPIRES * 1000 - 1;
    expect((await campaignLinkHolder(deps, raw))?.token).toMatchObject({
      newsletterId: 7,
      subscriberId: 42,
    });
    clock.t = EXPIRES * 1000;
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();
  });

  it('is nobody’s when it is no campaign link or no recipient record holds it', async () => {
    const raw = link();
    const { deps } = world(raw);

    for (const other of ['', 'abc', `7.42.${'A'.repeat(42)}`, ['7.42'], undefined])
      expect(await campaignLinkHolder(deps, other)).toBeUndefined();
    // Well formed, but issue 8 never mailed subscriber 42.
    expect(await campaignLinkHolder(deps, raw.replace(/^7\./, '8.'))).toBeUndefined();
  });

  it('dies with its subscriber, also when the address subscribes again under another id', async () => {
    const raw = link();
    const { deps, index, subscribers } = world(raw);

    // The id index still answers for the deleted id (it catches up later), but the address now
    // belongs to subscriber 43: the link of 42 must not unsubscribe them.
    subscribers.set('ada@example.com', subscriber(43, 'ada@example.com'));
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();

    subscribers.delete('ada@example.com');
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();

    index.delete(42);
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();
  });
});

describe('[campaign.every-copy-link] a link whose record does not hold it', () => {
  it('is its subscriber’s while its chunk holds its entry, until the chunk’s links expire', async () => {
    const raw = link();
    const { deps, recipients, chunks, clock } = world(raw);
    const token = parseCampaignLink(raw);
    if (!token) throw new Error('unparsed');
    // SES took the mail and its worker died before the record: only the chunk knows the link.
    recipients.delete('7.42');
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();
    chunks.set('7.1.40', {
      entries: [chunkLinkEntry(41, campaignLinkHash(token)), 'x'],
      linkExpiresAt: EXPIRES,
    });
    // Another subscriber's entry with this very hash does not make it 42's.
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();
    chunks.set('7.1.40', {
      entries: ['x', chunkLinkEntry(42, campaignLinkHash(token))],
      linkExpiresAt: EXPIRES,
    });
    expect((await campaignLinkHolder(deps, raw))?.subscriber.id).toBe(42);
    // A record of a later copy, with another hash, does not hide the chunk's entry.
    recipients.set('7.42', {
      newsletter_id: 7,
      subscriber_id: 42,
      state: 'sent',
      run: 1,
      attempts: 0,
      token_hashes: ['0'.repeat(64)],
      link_expires_at: EXPIRES,
    });
    expect((await campaignLinkHolder(deps, raw))?.subscriber.id).toBe(42);
    clock.t = EXPIRES * 1000;
    expect(await campaignLinkHolder(deps, raw)).toBeUndefined();
  });

  it('reads the record of a link from before chunks in the old partition, and of a new one in the spread ones', async () => {
    const raw = link();
    const { deps, asked } = world(raw);
    const old = raw.replace(/^7\.42\.1\.40\./, '7.42.');
    expect(parseCampaignLink(old)).toMatchObject({ newsletterId: 7, subscriberId: 42 });
    expect(parseCampaignLink(old)?.chunk).toBeUndefined();
    await campaignLinkHolder(deps, old);
    await campaignLinkHolder(deps, raw);
    expect(asked).toEqual([
      { newsletterId: 7, legacy: true },
      { newsletterId: 7, legacy: false },
    ]);
  });
});
