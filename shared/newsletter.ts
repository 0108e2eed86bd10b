import type { MailPort } from './adapters/mail/mail-port.ts';
import { ServiceParameters } from './adapters/parameters/service-parameters.ts';
import { DynamoStore } from './adapters/store/dynamo-store.ts';
import type { NewsletterError } from './domain/errors.ts';
import type { NewsletterIssue } from './domain/newsletter-issue.ts';
import type { RawParameters } from './domain/parameters/normalise-parameters.ts';
import type { Subscriber } from './domain/subscriber.ts';
import { addSubscriber } from './operations/add-subscriber.ts';
import { type DeleteResult, deleteSubscriber } from './operations/delete-subscriber.ts';
import { type CallContext, type Dependencies, TRUSTED } from './operations/dependencies.ts';
import { listNewsletters } from './operations/list-newsletters.ts';
import { listSubscribers } from './operations/list-subscribers.ts';
import { runOperation } from './operations/run-operation.ts';
import { type PublicSubscribeResult, subscribe } from './operations/subscribe.ts';
import {
  checkLink,
  confirmByLink,
  type LinkOutcome,
  unsubscribeByLink,
} from './operations/token-links.ts';
import { unsubscribe } from './operations/unsubscribe.ts';
import { dynamoDocumentClient } from './runtime/dynamodb-client.ts';
import { readEnvironment } from './runtime/environment.ts';
import { log } from './runtime/logger.ts';

/** Stands in until a mailer is configured, so a mail-less function never loads the SES client. */
const noMailer: MailPort = {
  send: () =>
    Promise.reject(new Error('No mailer configured: call Newsletter.configure({ mailer })')),
};

/**
 * The function class: the six operations of the interface as static methods, plus the two
 * links of the subscription process. Each takes one object of named parameters and returns its
 * result or a `NewsletterError` value (check with `isNewsletterError`); nothing expected throws.
 *
 * In-process callers are trusted (no key). Dependencies come from the environment on first
 * use (see shared/runtime/environment.ts); `configure` replaces any of them.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: the published interface is a class of static methods
export class Newsletter {
  private static overrides: Partial<Dependencies> = {};
  private static resolved?: Dependencies;
  private static serviceParameters?: ServiceParameters;

  /** Replaces dependencies (store, mailer, settings, clock, log); the rest stay default. */
  static configure(overrides: Partial<Dependencies>): void {
    Newsletter.overrides = { ...Newsletter.overrides, ...overrides };
    Newsletter.resolved = undefined;
  }

  /** Drops configured and cached dependencies (tests). */
  static reset(): void {
    Newsletter.overrides = {};
    Newsletter.resolved = undefined;
    Newsletter.serviceParameters = undefined;
  }

  /** The API key and settings parameters of this container (read from the environment). */
  static parameters(): ServiceParameters {
    Newsletter.serviceParameters ??= new ServiceParameters(readEnvironment());
    return Newsletter.serviceParameters;
  }

  /** The dependencies in use, defaults built on first call. */
  static dependencies(): Dependencies {
    if (!Newsletter.resolved) {
      const o = Newsletter.overrides;
      Newsletter.resolved = {
        store: o.store ?? new DynamoStore(dynamoDocumentClient(), readEnvironment().tableName),
        mailer: o.mailer ?? noMailer,
        settings: o.settings ?? (() => Newsletter.parameters().settings()),
        now: o.now ?? (() => new Date()),
        log: o.log ?? log,
      };
    }
    return Newsletter.resolved;
  }

  /** Subscribes an address and starts the subscription process (interface 4.1). */
  static subscribe(
    params: RawParameters,
    context: CallContext = TRUSTED,
  ): Promise<Subscriber | PublicSubscribeResult | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'subscribe', () => subscribe(deps, params, context));
  }

  /** Unsubscribes an address (interface 4.2). */
  static unsubscribe(params: RawParameters): Promise<Subscriber | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'unsubscribe', () => unsubscribe(deps, params));
  }

  /** Adds a subscriber directly, no process, no mail (interface 4.3). */
  static add_subscriber(params: RawParameters): Promise<Subscriber | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'add_subscriber', () => addSubscriber(deps, params));
  }

  /** Deletes a subscriber and everything stored for it (interface 4.4). */
  static delete_subscriber(params: RawParameters): Promise<DeleteResult | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'delete_subscriber', () => deleteSubscriber(deps, params));
  }

  /** The 20 most recently created subscribers, newest first (interface 4.5). */
  static subscribers(_params: RawParameters = {}): Promise<Subscriber[] | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'subscribers', () => listSubscribers(deps));
  }

  /** The 10 most recently created newsletters, newest first (interface 4.6). */
  static newsletters(
    _params: RawParameters = {},
    context: CallContext = TRUSTED,
  ): Promise<NewsletterIssue[] | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'newsletters', () => listNewsletters(deps, context));
  }

  /** Whether an activation or unsubscribe link is live (a page's GET); changes nothing. */
  static check_link(params: {
    token?: unknown;
    purpose: 'confirm' | 'unsubscribe';
  }): Promise<boolean | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'check_link', () => checkLink(deps, params.token, params.purpose));
  }

  /** Confirms a subscription through its activation link (the page's POST). */
  static confirm_subscription(
    params: { token?: unknown },
    context: CallContext = TRUSTED,
  ): Promise<LinkOutcome | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'confirm_subscription', () =>
      confirmByLink(deps, params.token, context),
    );
  }

  /** Unsubscribes through the link in a mail (the page's POST or RFC 8058 one-click). */
  static unsubscribe_link(params: { token?: unknown }): Promise<LinkOutcome | NewsletterError> {
    const deps = Newsletter.dependencies();
    return runOperation(deps, 'unsubscribe_link', () => unsubscribeByLink(deps, params.token));
  }
}
