import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import type { CampaignMailer } from '../../adapters/mail/campaign-mailer-port.ts';
import { renderCampaign, type TagFallbacks } from '../../domain/campaign/render-campaign.ts';
import { webVersionUrlOf } from '../../domain/campaign/web-version.ts';
import { MAX_TEST_ADDRESSES, type TestMessage } from '../../domain/campaign/work-messages.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { pageLink } from '../../domain/links.ts';
import { emailAddress } from '../../domain/parameters/email-address.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type { CallContext } from '../dependencies.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';

/** What the subject of a test mail starts with, so nobody takes it for the real one. */
export const TEST_MARKER = '[TEST]';

/** The token of a test mail's unsubscribe link: no recipient holds it, so it unsubscribes nobody. */
const TEST_LINK_TOKEN = 'test-send';

const Addresses = v.pipe(
  v.array(emailAddress('to')),
  v.minLength(1, 'to: give at least one address'),
  v.maxLength(MAX_TEST_ADDRESSES, `to: a test goes to at most ${MAX_TEST_ADDRESSES} addresses`),
);

/**
 * Sends an issue as a test ([campaign.test-send]) to at most five addresses: queued to the
 * planner, which hands it to the workers, so it goes through the same renderer, headers and
 * SES configuration set as the real send. It creates no recipient record and changes no count;
 * the issue may be in any status that has content.
 */
export async function testNewsletter(
  deps: CampaignDependencies,
  id: number,
  to: readonly unknown[],
  context: Pick<CallContext, 'apiRoot'> = {},
): Promise<{ readonly newsletter_id: number; readonly to: string[] } | NewsletterError> {
  const addresses = v.safeParse(Addresses, [...to]);
  if (!addresses.success)
    return newsletterError('invalid_parameter', addresses.issues[0]?.message ?? 'to is not valid');
  const campaign = await deps.campaigns.getCampaign(id);
  if (!campaign) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
  if (!(await deps.campaigns.getContent(id)))
    return newsletterError('invalid_state', `Newsletter ${id} has no content to test yet.`);
  const base = (await deps.settings()).public_base_url || context.apiRoot;
  if (!base)
    return newsletterError(
      'invalid_parameter',
      'Links in campaign mails cannot be built: set public_base_url in the settings.',
    );
  const unique = [...new Set(addresses.output)];
  await deps.queue.plan({
    kind: 'test',
    newsletter_id: id,
    to: unique,
    nonce: randomUUID(),
    link_base: base,
  });
  return { newsletter_id: id, to: unique };
}

/**
 * Values that are plainly not a person's, so a test to a non-subscriber shows where tags go; a
 * tag with a fallback in the settings gets none (it renders as its fallback), so the test shows
 * what a subscriber who left that value empty will read ([campaign.empty-values]).
 */
function sampleValues(
  email: string,
  profileFields: readonly { readonly id: string; readonly name: string }[],
  fallbacks: TagFallbacks,
): Pick<SubscriberRecord, 'email' | 'name' | 'surname' | 'profile'> {
  const sample = (tag: string, value: string): string =>
    Object.hasOwn(fallbacks, tag) ? '' : value;
  return {
    email,
    name: sample('name', 'Sample-Name'),
    surname: sample('surname', 'Sample-Surname'),
    profile: Object.fromEntries(
      profileFields.map((field) => [
        field.id,
        sample(`profile_${field.id}`, `Sample ${field.name}`),
      ]),
    ),
  };
}

/**
 * The worker's side of a test send: each address gets the mail rendered with its subscriber's
 * values when it is one (any status: the operator tests what that person would see, fallbacks
 * included), clearly fake sample values otherwise (the settings' fallback for a tag that has one), the subject marked as a test, and an unsubscribe link that
 * leads nowhere. Nothing is recorded.
 */
export async function sendTestMail(
  deps: Pick<CampaignDependencies, 'campaigns' | 'settings' | 'log'> & {
    readonly mailer: Pick<CampaignMailer, 'send'>;
  },
  message: TestMessage,
): Promise<{ readonly sent: number }> {
  const campaign = await deps.campaigns.getCampaign(message.newsletter_id);
  const content = await deps.campaigns.getContent(message.newsletter_id);
  if (!campaign || !content) return { sent: 0 };
  const settings = await deps.settings();
  const subscribers = await deps.campaigns.subscribersByEmail(message.to);
  const unsubscribeUrl = pageLink(message.link_base, 'unsubscribe', TEST_LINK_TOKEN);
  // As in the real mail, so the operator can follow it (it is a 404 until the issue is sent).
  const webVersionUrl = webVersionUrlOf(campaign, message.link_base);
  let sent = 0;
  for (const to of message.to) {
    const fallbacks = settings.campaign.tag_fallbacks;
    const values = subscribers.get(to) ?? sampleValues(to, settings.profile_fields, fallbacks);
    const rendered = renderCampaign(
      { subject: `${TEST_MARKER} ${campaign.subject}`, html: content.html, text: content.text },
      values,
      { unsubscribeUrl, ...(webVersionUrl ? { webVersionUrl } : {}) },
      fallbacks,
    );
    await deps.mailer.send(
      {
        to,
        ...rendered,
        unsubscribeUrl,
        tags: { newsletter: String(campaign.id), test: 'true' },
        reportDelivery: false,
      },
      settings.sender,
    );
    sent += 1;
  }
  deps.log.info('campaign_test_sent', { newsletter_id: campaign.id, mails: sent });
  return { sent };
}
