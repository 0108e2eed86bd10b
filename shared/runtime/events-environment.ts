/**
 * The events' variables (docs/configuration.md), apart from ENV: an object literal is bundled
 * whole, and no API function reads these.
 */
export const EVENTS_ENV = {
  /** URL of the events queue the table's stream reader leaves events on (docs/storage.md). */
  eventsQueue: 'NEWSLETTER_EVENTS_QUEUE',
  /** Name of the stack's EventBridge bus the events are published on. */
  eventBus: 'NEWSLETTER_EVENT_BUS',
  /**
   * `1` lets webhooks go over plain http to a loopback receiver ([webhooks.ssrf]): only the local
   * cloud sets it on its functions; no synthesized stack does (the stack test checks).
   */
  webhooksLocalHttp: 'NEWSLETTER_WEBHOOKS_LOCAL_HTTP',
} as const;

/** One of the events' variables. */
export type EventsVariable = (typeof EVENTS_ENV)[keyof typeof EVENTS_ENV];

/** A variable the stack sets on the functions that need it; throws naming it when missing. */
export function readRequired(
  variable: EventsVariable,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const value = env[variable];
  if (!value) throw new Error(`Environment variable ${variable} is not set`);
  return value;
}

/** Where webhooks may go, as this function's environment says ([webhooks.ssrf]). */
export function webhookUrlPolicy(env: NodeJS.ProcessEnv = process.env): {
  readonly allowLocalHttp: boolean;
} {
  return { allowLocalHttp: env[EVENTS_ENV.webhooksLocalHttp] === '1' };
}
