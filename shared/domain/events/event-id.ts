import { createHash } from 'node:crypto';

/**
 * An event's id from what identifies the change and what the event says about it: the same
 * change, derived again (a stream record delivered twice), makes the same id.
 */
export function eventId(...parts: readonly string[]): string {
  return `evt_${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)}`;
}

/** Digits a sequence is written with, so that sequences also sort as strings. */
const SEQUENCE_DIGITS = 40;

/** A sequence (a version, or a stream record's sequence number) as the events carry it. */
export function sequenceOf(value: number | string): string {
  return String(value).padStart(SEQUENCE_DIGITS, '0');
}
