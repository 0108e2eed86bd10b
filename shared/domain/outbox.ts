import { randomUUID } from 'node:crypto';
import type { MailKind } from '../adapters/mail/mail-port.ts';
import type { Consent } from './consent.ts';
import type { SubscribeParameters, SubscriberFields } from './parameters/parse-parameters.ts';

/**
 * Where a mail of the outbox stands. `queued`: waiting for the mailer (also after a failed
 * attempt); `requeued`: an operator asked for another try (`npx newsletter mail retry`);
 * `sending`: an attempt claimed it; `sent`; `skipped`: the subscriber no longer wants it (left,
 * bounced, complained, confirmed elsewhere, or a newer activation superseded it).
 */
export type OutboxState = 'queued' | 'requeued' | 'sending' | 'sent' | 'skipped';

/**
 * A mail the subscription process decided to send, written in the same transaction as the
 * change that caused it; the mailer function sends it from the table's stream. It carries no
 * token: the mailer mints the link's token when it sends and stores only its hash.
 */
export interface OutboxMail {
  readonly mail_id: string;
  readonly kind: MailKind;
  /** The subscriber it is about (and the recipient, except for `admin`); removed once settled. */
  readonly email: string;
  /** Which life of the address: a deleted and re-created address has another id. */
  readonly subscriber_id: number;
  /** Where links point: the settings' public base URL or the API root the request reached. */
  readonly link_base?: string;
  readonly state: OutboxState;
  /** Attempts that claimed it; a redelivered stream record finds them counted. */
  readonly attempts: number;
  readonly created: string;
  readonly last_error?: string;
  readonly sent_at?: string;
  /** Of an activation: what its confirmation applies. */
  readonly on_confirm?: OnConfirm;
}

/** States in which the mailer may still send a mail. */
export const SENDABLE: ReadonlySet<OutboxState> = new Set(['queued', 'requeued', 'sending']);

/** A new outbox mail for `kind`. */
export function outboxMail(
  kind: MailKind,
  subscriber: { readonly email: string; readonly id: number },
  linkBase: string | undefined,
  now: Date,
  onConfirm?: OnConfirm,
): OutboxMail {
  return {
    mail_id: randomUUID(),
    kind,
    email: subscriber.email,
    subscriber_id: subscriber.id,
    ...(linkBase ? { link_base: linkBase } : {}),
    state: 'queued',
    attempts: 0,
    created: now.toISOString(),
    ...(onConfirm ? { on_confirm: onConfirm } : {}),
  };
}

/**
 * A keyless subscribe as the API received it, stored with constant work so that the answer
 * takes the same time whoever the address belongs to; the stream processor applies the rules.
 */
export interface SubscribeRequest {
  readonly request_id: string;
  readonly params: SubscribeParameters;
  /** `{api_root}` as the request reached us, for links. */
  readonly api_root?: string;
  readonly client_ip?: string;
  readonly user_agent?: string;
  readonly received_at: string;
}

/**
 * What confirming an activation applies, carried by the activation's outbox item and then by
 * its token: a keyless call changes nothing stored until the person confirms, so its fields,
 * its welcome choice and its consent evidence travel with the link instead.
 */
export interface OnConfirm {
  /** Fields of a keyless call on an existing address; applied at confirmation. */
  readonly fields?: SubscriberFields;
  /** `send_emails=false` on a keyless call suppresses the welcome mail, not the activation. */
  readonly welcome: boolean;
  /** The subscribe request's evidence, for an existing address (a new one stores it at once). */
  readonly consent?: Consent;
}
