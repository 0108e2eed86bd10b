/**
 * The events' variables (docs/configuration.md), apart from ENV: an object literal is bundled
 * whole, and no API function reads these.
 */
export const EVENTS_ENV = {
  /** URL of the events queue the table's stream reader leaves events on (docs/storage.md). */
  eventsQueue: 'NEWSLETTER_EVENTS_QUEUE',
  /** Name of the stack's EventBridge bus the events are published on. */
  eventBus: 'NEWSLETTER_EVENT_BUS',
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
