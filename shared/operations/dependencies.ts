import type { MailPort } from '../adapters/mail/mail-port.ts';
import type { Store } from '../adapters/store/store-port.ts';
import type { Settings } from '../domain/settings-schema.ts';
import type { Logger } from '../runtime/logger.ts';

/** Everything the operations need from outside; tests and handlers pass their own. */
export interface Dependencies {
  readonly store: Store;
  readonly mailer: MailPort;
  /** The current settings; cached and validated by whoever provides them. */
  readonly settings: () => Promise<Settings>;
  readonly now: () => Date;
  readonly log: Logger;
}

/** Who is calling, as far as the rules care. */
export interface CallContext {
  /**
   * Trusted callers (the function class in-process, a REST call with a valid key) may use
   * private lists, update confirmed subscribers and see full results; public callers get the
   * stricter public-form rules.
   */
  readonly trusted: boolean;
  /** `{api_root}` as the request reached us, for links in mails; settings may override it. */
  readonly apiRoot?: string;
  /** The caller's IP address, for the per-client rate limit of public calls. */
  readonly clientIp?: string;
}

/** The context of an in-process call: trusted, links from the settings. */
export const TRUSTED: CallContext = { trusted: true };
