/**
 * Opens and clicks as deployed, against the synthesized stack under the local cloud: a
 * campaign mail goes out with a tracked configuration set, the local SES rewrites its HTML as
 * SES does (pixel, tracked links, `ses:no-track` honoured, text part and headers untouched),
 * fetching the pixel and following a link publish SES's Open and Click events to the
 * engagement topic, SNS puts them on the engagement queue, and the recorder (its own role,
 * every call IAM-checked) records them; the CLI's report shows them. In `individual` a first
 * open lands on the recipient record, and after the switch back to `counts` the eraser, fired
 * by its rule, removes it. Then the recorder's, the eraser's and the delete route's grants are
 * judged both ways against the calls they made.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedFunction } from '../../infra/local/cloud/deployed-stack.ts';
import { rawHeader, type StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { callsFailingWithout, describeGrant, unusedGrants } from '../support/grant-coverage.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { type CampaignOperator, campaignOperator } from './support/campaign-operator.ts';
import {
  BASELINE_SETTINGS,
  type LocalService,
  startLocalService,
} from './support/local-service.ts';

let service: LocalService;
let operator: CampaignOperator;

const SUBJECT = 'Engagement journey';
const READERS = ['opens@example.net', 'clicks@example.net', 'idle@example.net'];
const HTML = `<!DOCTYPE html><html><body><h1>Hello {name}</h1>
<p><a href="https://example.org/story?id=1&amp;from=mail">Read the story</a></p>
<p><a href="https://example.org/shop">Shop</a></p>
<p><a href="{unsubscription_url}">Unsubscribe</a></p></body></html>`;
let id = 0;
let mails: StoredMail[] = [];

/** The report as the operator prints it (`--json`). */
async function report(): Promise<{
  counts: { sent: number };
  engagement: {
    opened: number;
    clicked: number;
    clicks: number;
    opened_rate: number;
    links: { url: string; clicks: number }[];
    hours: { hour: string; opened: number; clicks: number }[];
    note: string;
  };
}> {
  await service.stack.settled();
  return JSON.parse(await operator.cliOk('newsletters', 'report', String(id), '--json'));
}

const mailTo = (address: string): StoredMail => {
  const mail = mails.find((each) => each.destination.to.join(',').includes(address));
  if (!mail) throw new Error(`no mail to ${address}`);
  return mail;
};

const trackingLinks = (mail: StoredMail, kind: 'open' | 'click'): string[] =>
  [...(mail.body.html ?? '').matchAll(/(?:src|href)="([^"]*\/track\/(open|click)\/[^"]+)"/g)]
    .filter((match) => match[2] === kind)
    .map((match) => match[1] as string);

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  for (const reader of READERS) await operator.add(reader, [4]);
  id = await operator.createIssue(SUBJECT, [4]);
  const file = join(tmpdir(), `engagement-${process.pid}.html`);
  await writeFile(file, HTML);
  await operator.cliOk('newsletters', 'edit', String(id), '--html', file);
  await operator.cliOk('newsletters', 'send', String(id));
  await service.stack.settled();
  mails = await operator.mailsOf(SUBJECT);
  expect(mails).toHaveLength(READERS.length);
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

describe('[engagement.local] the local SES tracks as SES does', () => {
  it('adds the pixel and rewrites the links, but not the unsubscribe or web-version link', () => {
    const mail = mailTo('opens@example.net');
    expect(trackingLinks(mail, 'open')).toHaveLength(1);
    expect(trackingLinks(mail, 'click')).toHaveLength(2);
    const html = mail.body.html ?? '';
    expect(html).not.toContain('https://example.org/story');
    expect(html).not.toContain('https://example.org/shop');
    // [engagement.no-track]: the unsubscribe link is left as the service wrote it.
    const unsubscribe = /<a [^>]*href="([^"]*\/unsubscribe[^"]*)"[^>]*>/.exec(html);
    expect(unsubscribe?.[0]).toContain('ses:no-track');
    expect(unsubscribe?.[1]).not.toContain('/track/');
  });

  it('leaves the text part and every header alone', () => {
    const mail = mailTo('opens@example.net');
    expect(mail.body.text).toContain('https://example.org/story?id=1&from=mail');
    expect(mail.body.text).not.toContain('/track/');
    const [listUnsubscribe] = rawHeader(mail, 'List-Unsubscribe');
    expect(listUnsubscribe).toMatch(/^<http:\/\/[^>]+\/unsubscribe\?token=/);
    expect(listUnsubscribe).not.toContain('/track/');
  });

  it('the pixel answers with an image, a tracked link with a redirect to its real address', async () => {
    const pixel = await fetch(trackingLinks(mailTo('opens@example.net'), 'open')[0] ?? '');
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    await pixel.arrayBuffer();
    const [story] = trackingLinks(mailTo('clicks@example.net'), 'click');
    const click = await fetch(story ?? '', { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://example.org/story?id=1&from=mail');
    const unknown = await fetch(`${service.ses.endpoint}/track/click/AAAAAAAAAAAAAAAAAAAAAA`);
    expect(unknown.status).toBe(404);
  });
});

describe('[engagement.recording] through topic, queue and recorder to the report', () => {
  it('counts one open and one click with its link; a repeat adds a click, not a clicker', async () => {
    expect((await report()).engagement).toMatchObject({ opened: 1, clicked: 1, clicks: 1 });
    const [story] = trackingLinks(mailTo('clicks@example.net'), 'click');
    await (await fetch(story ?? '', { redirect: 'manual' })).arrayBuffer();
    await (await fetch(trackingLinks(mailTo('opens@example.net'), 'open')[0] ?? '')).arrayBuffer();
    const read = await report();
    expect(read.counts.sent).toBe(3);
    expect(read.engagement).toMatchObject({
      opened: 1,
      clicked: 1,
      clicks: 2,
      opened_rate: 33.3,
      links: [{ url: 'https://example.org/story?id=1&from=mail', clicks: 2 }],
    });
    // [engagement.hours] the same first open and clicks, in the hours they happened (now).
    const hours = read.engagement.hours;
    expect(hours.reduce((sum, hour) => sum + hour.opened, 0)).toBe(1);
    expect(hours.reduce((sum, hour) => sum + hour.clicks, 0)).toBe(2);
    for (const { hour } of hours) {
      expect(hour).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
      expect(Date.now() - Date.parse(hour)).toBeLessThan(2 * 3_600_000);
    }
    expect(service.stack.denials).toEqual([]);
  });

  it('[engagement.report] the CLI prints opened and clicked with their rates, the top links and the note', async () => {
    await service.stack.settled();
    const printed = await operator.cliOk('newsletters', 'report', String(id));
    expect(printed).toMatch(/opened \(approximate\)\s+1 \(33\.3% of sent\)/);
    expect(printed).toMatch(/clicked\s+1 \(33\.3% of sent\)/);
    expect(printed).toContain('https://example.org/story?id=1&from=mail');
    expect(printed).toContain('Apple Mail Privacy Protection');
  });
});

describe('[engagement.erase] a deleted subscriber, through the API', () => {
  it('their events are erased and a later one is dropped', async () => {
    const answer = await service.post('/subscribers/delete', {
      api_key: service.apiKey,
      email: 'clicks@example.net',
    });
    expect(answer.status, answer.text).toBe(200);
    const [shop] = trackingLinks(mailTo('clicks@example.net'), 'click').slice(1);
    await (await fetch(shop ?? '', { redirect: 'manual' })).arrayBuffer();
    const read = await report();
    // The click on the shop link came after the deletion: dropped.
    expect(read.engagement.links.map((link) => link.url)).toEqual([
      'https://example.org/story?id=1&from=mail',
    ]);
    expect(service.logLines.some((line) => line.includes('"engagement_dropped"'))).toBe(true);
  });
});

describe('[engagement.switch] individual, then counts: the eraser as deployed', () => {
  it('a first open in individual lands on the record; after the switch the eraser removes it', async () => {
    const db = documentClient(service.stack.dynamo.endpoint);
    const table = service.stack.tableName;
    const { id: idle } = (await service.subscriber('idle@example.net')) ?? { id: 0 };
    const openedAt = async (): Promise<unknown> =>
      (
        await db.send(
          new GetCommand({ TableName: table, Key: keys.recipient(id, idle), ConsistentRead: true }),
        )
      ).Item?.opened_at;
    const eraser = service.stack.cloud.stack
      .scheduleRules()
      .find((rule) => rule.logicalId.includes('Erasure'));
    if (!eraser) throw new Error('no erasure rule');
    const erase = async (): Promise<unknown> =>
      (await service.stack.cloud.fireRule(eraser.logicalId)).map(({ result }) =>
        result?.ok ? result.result : result,
      );
    try {
      service.setSettings({ campaign: { ...BASELINE_SETTINGS.campaign, tracking: 'individual' } });
      await (await fetch(trackingLinks(mailTo('idle@example.net'), 'open')[0] ?? '')).arrayBuffer();
      await report();
      expect(await openedAt()).toEqual(expect.any(String));

      service.setSettings({ campaign: { ...BASELINE_SETTINGS.campaign, tracking: 'counts' } });
      expect(await erase()).toEqual([{ status: 'waiting', records: 0 }]);
      // As if the switch were long ago: no recorder can still hold `individual`.
      await db.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.personalEngagement(),
          UpdateExpression: 'SET away_since = :then',
          ExpressionAttributeValues: { ':then': '2026-01-01T00:00:00.000Z' },
        }),
      );
      expect(await erase()).toEqual([{ status: 'erased', records: 1 }]);
      expect(await openedAt()).toBeUndefined();
      expect((await report()).engagement.opened).toBe(2);
      expect(service.stack.denials).toEqual([]);
    } finally {
      db.destroy();
      service.resetSettings();
    }
  });
});

describe('least privilege in both directions', () => {
  const callsOf = (fn: DeployedFunction): RecordedCall[] =>
    service.stack.cloud.endpoint.calls.filter(
      (call) =>
        call.caller === fn.functionName ||
        call.caller === `${fn.functionName} (event source mapping)`,
    );
  const fnOf = (entry: string): DeployedFunction => {
    const fn = service.stack.cloud.stack.functions().find((each) => each.entry === entry);
    if (!fn) throw new Error(`no ${entry}`);
    return fn;
  };

  it.each([
    'functions/engagement/engagement-recorder.ts',
    'functions/engagement/engagement-eraser.ts',
    'functions/subscribers-delete.ts',
  ])('%s: every grant is used, and removing any one refuses a call', async (entry) => {
    const fn = fnOf(entry);
    const calls = callsOf(fn);
    expect(calls.length).toBeGreaterThan(0);
    expect((await unusedGrants(fn, fn.policy, calls)).map(describeGrant)).toEqual([]);
    const harmless = (await callsFailingWithout(fn, fn.policy, calls))
      .filter(({ failing }) => failing.length === 0)
      .map(({ grant }) => describeGrant(grant));
    expect(harmless).toEqual([]);
  });
});
