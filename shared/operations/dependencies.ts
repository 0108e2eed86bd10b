import type { EngagementStore } from '../adapters/store/engagement-store-port.ts';
import type { Store } from '../adapters/store/store-port.ts';
import type { JoinChannel } from '../domain/consent.ts';
import { type NewsletterError, newsletterError } from '../domain/errors.ts';
import type { Settings } from '../domain/settings-schema.ts';

/** Field values a log line may carry. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

/**
 * Structured logging, one event name and explicit fields per line: nothing serialises a
 * request or an error wholesale, which is how keys and tokens end up in logs.
 */
export interface Logger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

/** What the service counts for operators (CloudWatch metrics; docs/operations.md). */
export type MetricName =
  | 'Subscriptions'
  | 'Confirmations'
  | 'Unsubscriptions'
  | 'MailFailures'
  | 'RateLimited'
  | 'UnknownProfileFields'
  | 'Bounces'
  | 'Complaints'
  | 'CampaignMailsSent'
  | 'CampaignSkips'
  | 'CampaignFailures'
  | 'CampaignThrottles'
  | 'CampaignUnknownOutcomes'
  | 'CampaignsAutoPaused'
  | 'StalledCampaigns'
  | 'SchedulesMissed'
  | 'OverdueSchedules'
  | 'CampaignRateKept'
  | 'EngagementOpens'
  | 'EngagementClicks'
  | 'EngagementDropped';

/** What a metric may be broken down by besides the service: one campaign's figures. */
export interface MetricDimensions {
  readonly newsletter?: string;
}

/** Counts events; the runtime publishes them (EMF), tests record them. */
export interface Metrics {
  /**
   * Counts for the whole service, and with `dimensions` also under them (per campaign), so an
   * alarm watches the total and a dashboard can show one campaign.
   */
  count(name: MetricName, value?: number, dimensions?: MetricDimensions): void;
  /** A level in percent (CloudWatch's unit `Percent`), with `dimensions` as for `count`. */
  percent(name: MetricName, value: number, dimensions?: MetricDimensions): void;
}

/** Counts nothing: for callers that publish no metrics. */
export const NO_METRICS: Metrics = { count: () => undefined, percent: () => undefined };

/**
 * Everything the operations need from outside. Each composition root (a handler module, the
 * function class's default, a test) passes exactly what its operations use. None of them sends
 * mail: they queue it in the outbox, and the mailer (deliverMail) takes a MailPort of its own,
 * so a root cannot forget one.
 */
export interface Dependencies {
  readonly store: Store;
  /** The current settings; cached and validated by whoever provides them. */
  readonly settings: () => Promise<Settings>;
  readonly now: () => Date;
  readonly log: Logger;
  readonly metrics: Metrics;
  /**
   * Opens and clicks, where a deletion erases them ([engagement.erase]): every composition
   * root that deletes subscribers (the delete route, the function class) wires it.
   */
  readonly engagement?: Pick<EngagementStore, 'erase'>;
}

/** A composition root did not wire something its adapter needs: a bug, not an outage. */
export class MissingDependency extends Error {
  override readonly name = 'MissingDependency';
  constructor(readonly dependency: string) {
    super(`${dependency} is not configured`);
  }
}

/** The 500 error value of a missing dependency: it names what is not configured. */
export function misconfigured(error: MissingDependency): NewsletterError {
  return newsletterError(
    'internal_error',
    `The service is misconfigured: ${error.dependency} is not configured.`,
  );
}

/** The dependency, or MissingDependency naming it. */
export function required<T>(value: T | undefined, dependency: string): T {
  if (value === undefined) throw new MissingDependency(dependency);
  return value;
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
  /**
   * `{api_root}`'s path alone (`/api/newsletter/v1`), for links on a page that must not depend
   * on the Host header (a cacheable page).
   */
  readonly apiRootPath?: string;
  /** The caller's IP address, for the per-client rate limit and the consent evidence. */
  readonly clientIp?: string;
  /** The caller's User-Agent, for the consent evidence. */
  readonly userAgent?: string;
  /** When the request arrived, when it is applied later (a keyless request on the stream). */
  readonly receivedAt?: Date;
  /**
   * How the call reached us, recorded as consent evidence; absent: `public_form` for a keyless
   * call, `function_class` for a trusted one (an in-process caller).
   */
  readonly channel?: JoinChannel;
}

/** The channel a call is recorded under. */
export function channelOf(context: CallContext): JoinChannel {
  return context.channel ?? (context.trusted ? 'function_class' : 'public_form');
}

/** The context of an in-process call: trusted, links from the settings. */
export const TRUSTED: CallContext = { trusted: true };
