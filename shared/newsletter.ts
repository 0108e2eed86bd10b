import type { NewsletterError } from './domain/errors.ts';
import type { NewsletterIssue } from './domain/newsletter-issue.ts';
import type { RawParameters } from './domain/parameters/normalise-parameters.ts';
import type { Subscriber } from './domain/subscriber.ts';
import { addSubscriber } from './operations/add-subscriber.ts';
import { type DeleteResult, deleteSubscriber } from './operations/delete-subscriber.ts';
import {
  type CallContext,
  type Dependencies,
  NO_METRICS,
  TRUSTED,
} from './operations/dependencies.ts';
import { listNewsletters } from './operations/list-newsletters.ts';
import { listSubscribers } from './operations/list-subscribers.ts';
import { runOperation } from './operations/run-operation.ts';
import {
  type PublicSubscribeResult,
  subscribe as subscribeOperation,
} from './operations/subscribe.ts';
import {
  checkLink,
  confirmByLink,
  type LinkOutcome,
  unsubscribeByLink,
} from './operations/token-links.ts';
import { unsubscribe as unsubscribeOperation } from './operations/unsubscribe.ts';
import { readEnvironment } from './runtime/environment.ts';
import { createLogger } from './runtime/logger.ts';
import { serviceParameters } from './runtime/parameters.ts';
import { engagementErasure, tableStore } from './runtime/store.ts';

/**
 * The operations of the interface over one set of dependencies. Each takes one object of named
 * parameters and returns its result or a `NewsletterError` value (check with
 * `isNewsletterError`); nothing expected throws.
 */
export interface NewsletterOperations {
  /** Subscribes an address and starts the subscription process (interface 4.1). */
  subscribe(
    params: RawParameters,
    context?: CallContext,
  ): Promise<Subscriber | PublicSubscribeResult | NewsletterError>;
  /** Unsubscribes an address (interface 4.2). */
  unsubscribe(params: RawParameters): Promise<Subscriber | NewsletterError>;
  /** Adds a subscriber directly, no process, no mail (interface 4.3). */
  add_subscriber(
    params: RawParameters,
    context?: CallContext,
  ): Promise<Subscriber | NewsletterError>;
  /** Deletes a subscriber and everything stored for it (interface 4.4). */
  delete_subscriber(params: RawParameters): Promise<DeleteResult | NewsletterError>;
  /** The 20 most recently created subscribers, newest first (interface 4.5). */
  subscribers(params?: RawParameters): Promise<Subscriber[] | NewsletterError>;
  /** The 10 most recently created newsletters, newest first (interface 4.6). */
  newsletters(
    params?: RawParameters,
    context?: CallContext,
  ): Promise<NewsletterIssue[] | NewsletterError>;
  /** Whether an activation or unsubscribe link is live (a page's GET); changes nothing. */
  check_link(params: {
    token?: unknown;
    purpose: 'confirm' | 'unsubscribe';
  }): Promise<boolean | NewsletterError>;
  /** Confirms a subscription through its activation link (the page's POST). */
  confirm_subscription(
    params: { token?: unknown },
    context?: CallContext,
  ): Promise<LinkOutcome | NewsletterError>;
  /** Unsubscribes through the link in a mail (the page's POST or RFC 8058 one-click). */
  unsubscribe_link(params: { token?: unknown }): Promise<LinkOutcome | NewsletterError>;
}

/**
 * The operations over explicit dependencies: what a test, another Lambda with its own wiring,
 * or the function class's default passes. Calls without a context are trusted (in-process).
 */
export function createNewsletter(deps: Dependencies): NewsletterOperations {
  return {
    subscribe: (params, context = TRUSTED) =>
      runOperation(deps, 'subscribe', () => subscribeOperation(deps, params, context)),
    unsubscribe: (params) =>
      runOperation(deps, 'unsubscribe', () => unsubscribeOperation(deps, params)),
    add_subscriber: (params, context = TRUSTED) =>
      runOperation(deps, 'add_subscriber', () => addSubscriber(deps, params, context)),
    delete_subscriber: (params) =>
      runOperation(deps, 'delete_subscriber', () => deleteSubscriber(deps, params)),
    subscribers: () => runOperation(deps, 'subscribers', () => listSubscribers(deps)),
    newsletters: (_params, context = TRUSTED) =>
      runOperation(deps, 'newsletters', () => listNewsletters(deps, context)),
    check_link: (params) =>
      runOperation(deps, 'check_link', () => checkLink(deps, params.token, params.purpose)),
    confirm_subscription: (params, context = TRUSTED) =>
      runOperation(deps, 'confirm_subscription', () => confirmByLink(deps, params.token, context)),
    unsubscribe_link: (params) =>
      runOperation(deps, 'unsubscribe_link', () => unsubscribeByLink(deps, params.token)),
  };
}

let environmentDeps: Dependencies | undefined;
/**
 * Dependencies from the environment (shared/runtime/environment.ts), built on first use and
 * shared by the defaults below: the table and the settings only. Mail goes through the
 * outbox: the stack's mailer function sends what `subscribe` queues.
 */
function environmentDependencies(): Dependencies {
  if (!environmentDeps) {
    const environment = readEnvironment();
    environmentDeps = {
      store: tableStore(environment),
      engagement: engagementErasure(environment),
      settings: serviceParameters(environment).settings,
      now: () => new Date(),
      log: createLogger().log,
      metrics: NO_METRICS,
    };
  }
  return environmentDeps;
}

let defaults: NewsletterOperations | undefined;
const operations = (): NewsletterOperations => {
  defaults ??= createNewsletter(environmentDependencies());
  return defaults;
};

// The six operations of the interface as functions over the environment's dependencies, for
// in-process callers, who are trusted (no key). Each reaches only what it uses, so a bundler
// keeps only the operations a caller imports.

/** Subscribes an address and starts the subscription process (interface 4.1). */
export function subscribe(params: RawParameters): Promise<Subscriber | NewsletterError> {
  // Trusted calls always answer with the subscriber (PublicSubscribeResult is keyless only).
  return operations().subscribe(params, TRUSTED) as Promise<Subscriber | NewsletterError>;
}

/** Unsubscribes an address (interface 4.2). */
export function unsubscribe(params: RawParameters): Promise<Subscriber | NewsletterError> {
  return operations().unsubscribe(params);
}

/** Adds a subscriber directly, no process, no mail (interface 4.3). */
export function add_subscriber(params: RawParameters): Promise<Subscriber | NewsletterError> {
  return operations().add_subscriber(params);
}

/** Deletes a subscriber and everything stored for it (interface 4.4). */
export function delete_subscriber(params: RawParameters): Promise<DeleteResult | NewsletterError> {
  return operations().delete_subscriber(params);
}

/** The 20 most recently created subscribers, newest first (interface 4.5). */
export function subscribers(_params: RawParameters = {}): Promise<Subscriber[] | NewsletterError> {
  return operations().subscribers();
}

/** The 10 most recently created newsletters, newest first (interface 4.6). */
export function newsletters(
  _params: RawParameters = {},
): Promise<NewsletterIssue[] | NewsletterError> {
  return operations().newsletters({}, TRUSTED);
}

/**
 * The function class of the interface: the six operations above as static methods. A thin
 * default over `createNewsletter`: the dependencies are built from the environment on the
 * first call, nothing happens on import. Sending an issue is the `Campaigns` class beside it
 * (shared/campaigns.ts), so that a bundle of this class carries none of the campaign clients;
 * a caller that needs one or two operations imports those functions instead and bundles less.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: the published interface is a class of static methods
export class Newsletter {
  static readonly subscribe = subscribe;
  static readonly unsubscribe = unsubscribe;
  static readonly add_subscriber = add_subscriber;
  static readonly delete_subscriber = delete_subscriber;
  static readonly subscribers = subscribers;
  static readonly newsletters = newsletters;
}
