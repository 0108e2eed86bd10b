import type { Settings } from '../../domain/settings-schema.ts';

/** The mails the subscription process sends. */
export type MailKind = 'activation' | 'welcome' | 'admin';

/** What a mail may say about the subscriber it concerns; all user-supplied, never trusted. */
export interface MailSubject {
  readonly email: string;
  readonly name: string;
  readonly surname: string;
  /** Names of the subscriber's lists, for the admin notification. */
  readonly listNames: readonly string[];
}

/**
 * A mail the domain decided is due. The domain picks the kind, the recipient and the links;
 * the adapter renders the operator's texts (settings) and delivers it.
 */
export interface DueMail {
  readonly kind: MailKind;
  /** Recipient address: the subscriber, or the admin for `admin`. */
  readonly to: string;
  readonly subscriber: MailSubject;
  /** Activation link; present on `activation`. */
  readonly confirmUrl?: string;
  /**
   * Unsubscribe link; present on every mail to a subscriber except `activation`, and then
   * also sent as `List-Unsubscribe` with RFC 8058 one-click.
   */
  readonly unsubscribeUrl?: string;
}

/** Delivers mail; throws when the mail service refuses or cannot be reached. */
export interface MailPort {
  send(mail: DueMail, settings: Settings): Promise<void>;
}
