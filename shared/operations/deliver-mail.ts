import type { DueMail, MailPort } from '../adapters/mail/mail-port.ts';
import type { TokenRecord } from '../adapters/store/store-port.ts';
import { describeError } from '../domain/errors.ts';
import { pageLink } from '../domain/links.ts';
import { type OutboxMail, SENDABLE } from '../domain/outbox.ts';
import type { Settings } from '../domain/settings-schema.ts';
import { ownerVouchesFields, type SubscriberRecord } from '../domain/subscriber.ts';
import { mintToken, splitExpiredTokens } from '../domain/tokens.ts';
import type { Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';

/** Unsubscribe links kept alive per subscriber; older ones die first when more are minted. */
const MAX_UNSUBSCRIBE_TOKENS = 20;

/** What the mailer did with one outbox mail. */
export type DeliveryOutcome =
  /** Sent now. */
  | 'sent'
  /** Not wanted any more (left, bounced, complained, superseded, or the subscriber is gone). */
  | 'skipped'
  /** Settled earlier: a redelivered stream record, or a mail that no longer exists. */
  | 'settled';

/** A mail the mail service did not take; the stream retries it, then dead-letters it. */
export class MailNotSent extends Error {
  override readonly name = 'MailNotSent';
  constructor(
    message: string,
    /** Attempts made so far, this one included. */
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Whether the subscriber still wants the mail, as it stands now. */
function stillWanted(mail: OutboxMail, subscriber: SubscriberRecord): boolean {
  switch (mail.kind) {
    case 'activation':
      // Only the newest activation is sent; confirming or leaving ends the need for it. A `U`
      // asked to come back through a keyless call: it stays `U` until the link is confirmed.
      return (
        (subscriber.status === 'S' || subscriber.status === 'U') &&
        subscriber.activation_outbox === mail.mail_id
      );
    case 'welcome':
      return subscriber.status === 'C';
    case 'admin':
      // The operator hears of a confirmation the subscriber has not taken back meanwhile.
      return subscriber.status === 'C';
  }
}

/**
 * Sends one mail of the outbox (the mailer function's work for each stream record): re-reads
 * the mail and its subscriber, skips what is no longer wanted, mints the link's token when it
 * sends (only its hash is stored, with the subscriber, in the same write that claims the
 * attempt), sends, and marks the mail sent so that a redelivered record sends nothing again.
 * A failed send is recorded on the mail and thrown as MailNotSent, for the stream's retries.
 */
export async function deliverMail(
  deps: Pick<Dependencies, 'store' | 'settings' | 'now' | 'log' | 'metrics'> & {
    readonly mailer: MailPort;
  },
  mailId: string,
): Promise<DeliveryOutcome> {
  const settings = await deps.settings();
  const claimed = await retryOnConflict('deliver_mail', deps.log, async () => {
    const mail = await deps.store.getOutboxMail(mailId);
    if (!mail || !SENDABLE.has(mail.state)) return 'settled' as const;
    const subscriber = await deps.store.getSubscriber(mail.email);
    if (!subscriber || subscriber.id !== mail.subscriber_id) {
      // Deleted: the mail goes too, so nothing of the address stays behind.
      await deps.store.deleteMail(mail.mail_id);
      return 'skipped' as const;
    }
    if (!stillWanted(mail, subscriber)) {
      await deps.store.finishMail(mail.mail_id, 'skipped', deps.now());
      return 'skipped' as const;
    }
    const prepared = prepare(mail, subscriber, settings, deps.now());
    const claim = await deps.store.claimMail({
      mailId: mail.mail_id,
      // The admin mail carries no link: nothing of the subscriber changes.
      ...(mail.kind === 'admin'
        ? {}
        : {
            subscriber: prepared.subscriber,
            current: subscriber,
            tokens: prepared.tokens,
          }),
    });
    return claim ? { ...prepared, attempts: mail.attempts + 1 } : CONFLICT;
  });
  if (typeof claimed === 'string') return claimed;
  if ('code' in claimed) throw new MailNotSent(`mail ${mailId}: ${claimed.message}`, 1);
  try {
    await deps.mailer.send(claimed.due, settings);
  } catch (error) {
    deps.metrics.count('MailFailures');
    deps.log.error('mail_failed', {
      kind: claimed.due.kind,
      mail_id: mailId,
      cause: describeError(error),
    });
    await deps.store.failMail(mailId, describeError(error), deps.now());
    throw new MailNotSent(`mail ${mailId} was not sent`, claimed.attempts, { cause: error });
  }
  await deps.store.finishMail(mailId, 'sent', deps.now());
  return 'sent';
}

/** The subscriber with the mail's fresh token listed, the token items, and the mail itself. */
function prepare(
  mail: OutboxMail,
  subscriber: SubscriberRecord,
  settings: Settings,
  now: Date,
): {
  readonly subscriber: SubscriberRecord;
  readonly tokens: { put: TokenRecord[]; delete: string[] };
  readonly due: DueMail;
} {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { live: tokens, expired: deletes } = splitExpiredTokens(subscriber.tokens, now);
  const puts: TokenRecord[] = [];
  let confirmToken = subscriber.confirm_token;
  let link: Pick<DueMail, 'confirmUrl' | 'unsubscribeUrl'> = {};
  const base = mail.link_base ?? '';
  if (mail.kind === 'activation') {
    // Only the newest activation link confirms: this one retires the one before.
    if (confirmToken && tokens[confirmToken] !== undefined) {
      delete tokens[confirmToken];
      deletes.push(confirmToken);
    }
    const token = mintToken();
    // The link dies with a never-confirmed record that expires first.
    const expires = Math.min(
      nowSeconds + settings.activation_lifetime_hours * 3600,
      subscriber.expires_at ?? Number.POSITIVE_INFINITY,
    );
    tokens[token.hash] = expires;
    puts.push({
      hash: token.hash,
      email: mail.email,
      purpose: 'confirm',
      expires_at: expires,
      ...(mail.on_confirm ? { on_confirm: mail.on_confirm } : {}),
    });
    confirmToken = token.hash;
    link = { confirmUrl: pageLink(base, 'confirm', token.raw) };
  } else if (mail.kind === 'welcome') {
    const token = mintToken();
    const expires = nowSeconds + settings.unsubscribe_link_lifetime_days * 86_400;
    const live = Object.entries(tokens)
      .filter(([hash]) => hash !== confirmToken)
      .sort((a, b) => a[1] - b[1]);
    for (const [hash] of live.slice(0, Math.max(0, live.length - MAX_UNSUBSCRIBE_TOKENS + 1))) {
      delete tokens[hash];
      deletes.push(hash);
    }
    tokens[token.hash] = expires;
    puts.push({ hash: token.hash, email: mail.email, purpose: 'unsubscribe', expires_at: expires });
    link = { unsubscribeUrl: pageLink(base, 'unsubscribe', token.raw) };
  }
  const { confirm_token: _old, ...rest } = subscriber;
  const liveConfirm = confirmToken !== undefined && tokens[confirmToken] !== undefined;
  const next: SubscriberRecord = {
    ...rest,
    ...(liveConfirm ? { confirm_token: confirmToken } : {}),
    tokens,
    version: subscriber.version + 1,
  };
  // A mail to the subscriber quotes no caller's words until its owner stands behind them; the
  // admin mail goes to the operator, whom the fields are for.
  const quoted = mail.kind === 'admin' || ownerVouchesFields(subscriber);
  const about = {
    email: subscriber.email,
    name: quoted ? subscriber.name : '',
    surname: quoted ? subscriber.surname : '',
    listNames: settings.lists
      .filter((list) => subscriber.lists.includes(list.id))
      .map((list) => list.name),
  };
  return {
    subscriber: next,
    tokens: { put: puts, delete: deletes },
    due: {
      kind: mail.kind,
      to: mail.kind === 'admin' ? settings.admin_address : mail.email,
      subscriber: about,
      ...link,
    },
  };
}
