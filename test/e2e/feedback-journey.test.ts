/**
 * The feedback loop as it runs deployed, against the synthesized stack under the local cloud:
 * a subscribe sends the activation mail with the mailer's configuration set, the local SES
 * plays SES's mailbox simulator and publishes the events to the stack's topic, SNS invokes the
 * feedback function (its own role, every call IAM-checked), and the subscriber's status in the
 * table changes. Then nothing reaches the address any more. Oracles: the stored item and the
 * mails the local SES captured.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../support/local-dynamo.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  service = await startLocalService();
  db = documentClient(service.stack.dynamo.endpoint);
});

afterAll(async () => {
  db?.destroy();
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

/** The subscriber item as stored, once the stream and the feedback topic are quiet. */
async function stored(email: string): Promise<Record<string, unknown> | undefined> {
  await service.stack.settled();
  const output = await db.send(
    new GetCommand({
      TableName: service.stack.tableName,
      Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
      ConsistentRead: true,
    }),
  );
  return output.Item;
}

/**
 * Calls that mail a pending address again: the resend cooldown is made to have passed (as an
 * operator would, in the table; time passing does the same), then a keyless and a keyed
 * subscribe, and a keyed one under single opt-in.
 */
async function tryToMailAgain(email: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: service.stack.tableName,
      Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
      UpdateExpression: 'SET activation_sent_at = :long_ago, #version = #version + :one',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':long_ago': Date.now() - 24 * 3600 * 1000, ':one': 1 },
    }),
  );
  expect((await service.post('/subscribe', { email })).status).toBe(200);
  expect((await service.post('/subscribe', { email, api_key: service.apiKey })).status).toBe(200);
  service.setSettings({ opt_in: 'single' });
  expect((await service.post('/subscribe', { email, api_key: service.apiKey })).status).toBe(200);
}

describe('[feedback.blocked] SES mailbox simulator addresses, through the deployed loop', () => {
  it.each([
    ['[feedback.bounce] a hard bounce', 'bounce@simulator.amazonses.com', 'B'],
    ['[feedback.complaint] a complaint', 'complaint@simulator.amazonses.com', 'P'],
    ['[feedback.bounce] SES suppression', 'suppressionlist@simulator.amazonses.com', 'B'],
  ])('%s: %s ends as %s and receives no further mail', async (_rule, email, status) => {
    // Act: a keyless subscribe; its activation mail goes out through SES, which reports back.
    expect((await service.post('/subscribe', { email, name: 'Sim' })).status).toBe(200);

    // Assert: one mail went out, and SES's report set the status.
    expect(await service.mails(email)).toHaveLength(1);
    const item = await stored(email);
    expect(item?.status).toBe(status);
    expect(item?.updated).not.toBe(item?.created);

    await tryToMailAgain(email);
    expect(await service.mails(email)).toHaveLength(1);
    expect((await stored(email))?.status).toBe(status);
  });

  it('a delivered address (success@) stays pending, and the same calls mail it again', async () => {
    // The control for the test above: what B and P are spared reaches anyone else.
    const email = 'success@simulator.amazonses.com';
    await service.post('/subscribe', { email });
    expect((await stored(email))?.status).toBe('S');
    await tryToMailAgain(email);
    expect((await service.mails(email)).length).toBeGreaterThan(1);
  });

  it('[feedback.complaint] a hard bounce arriving after a complaint leaves it P', async () => {
    const email = 'complaint+late@simulator.amazonses.com';
    await service.post('/subscribe', { email });
    expect((await stored(email))?.status).toBe('P');
    // A late hard bounce for the same address does not turn the complaint into a bounce.
    publishAsSes({
      eventType: 'Bounce',
      mail: { messageId: `late-${randomUUID()}`, destination: [email] },
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: email }],
      },
    });
    expect((await stored(email))?.status).toBe('P');
  });
});

/** Publishes an SES event to the stack's feedback topic, as SES's event destination does. */
function publishAsSes(event: unknown): void {
  const [set] = service.stack.cloud.stack.configurationSets();
  const [destination] = set?.destinations ?? [];
  if (!set || !destination) throw new Error('the stack has no configuration set destination');
  service.stack.cloud.publishSesEvent({
    configurationSet: set.name,
    topicArn: destination.topicArn,
    message: JSON.stringify(event),
  });
}

const softBounce = (email: string) => ({
  eventType: 'Bounce',
  mail: { messageId: `soft-${randomUUID()}`, destination: [email] },
  bounce: {
    bounceType: 'Transient',
    bounceSubType: 'MailboxFull',
    bouncedRecipients: [{ emailAddress: email, status: '4.2.2', action: 'failed' }],
  },
});

describe('[feedback.transient] soft bounces reported by SES', () => {
  it('are counted, cleared by a delivery, and block at the limit', async () => {
    const email = `full-${randomUUID().slice(0, 8)}@example.com`;
    service.setSettings({ transient_bounce_limit: 2 });
    await service.post('/subscribe', { email });
    // The activation mail was delivered: nothing counted.
    expect((await stored(email))?.transient_bounces).toBeUndefined();

    publishAsSes(softBounce(email));
    expect((await stored(email))?.transient_bounces).toBe(1);
    publishAsSes({
      eventType: 'Delivery',
      mail: { messageId: `ok-${randomUUID()}`, destination: [email] },
      delivery: { recipients: [email] },
    });
    expect((await stored(email))?.transient_bounces).toBeUndefined();

    publishAsSes(softBounce(email));
    expect((await stored(email))?.status).toBe('S');
    publishAsSes(softBounce(email));
    const item = await stored(email);
    expect(item?.status).toBe('B');
    expect(item?.transient_bounces).toBeUndefined();
  });
});

describe('[feedback.malformed] what is not an SES event', () => {
  it('is logged and dropped once, without retries, and changes nothing', async () => {
    const from = service.logLines.length;
    publishAsSes('not an event at all');
    service.stack.cloud.publishSesEvent({
      configurationSet: service.stack.cloud.stack.configurationSets()[0]?.name ?? '',
      topicArn: service.stack.cloud.stack.topics()[0]?.topicArn ?? '',
      message: '{ broken json',
    });
    await service.stack.settled();
    const lines = service.logLines
      .slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.message === 'feedback_malformed')).toHaveLength(2);
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
    expect(service.stack.deliveryFailures).toEqual([]);
  });
});
