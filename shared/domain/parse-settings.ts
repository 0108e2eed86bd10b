import * as v from 'valibot';
import { type Settings, SettingsSchema } from './settings-schema.ts';

/** A settings document that cannot be used; the message names the offending field. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** Parses and validates a settings document (JSON text or an object), filling in defaults. */
export function parseSettings(document: string | unknown): Settings {
  let value: unknown = document;
  if (typeof document === 'string') {
    try {
      value = JSON.parse(document);
    } catch (error) {
      throw new SettingsError(`settings: not valid JSON (${(error as Error).message})`);
    }
  }
  const result = v.safeParse(SettingsSchema, value);
  if (result.success) return result.output;
  const problems = result.issues.slice(0, 5).map((issue) => {
    const path = v.getDotPath(issue);
    return `settings${path ? `.${path}` : ''}: ${issue.message}`;
  });
  throw new SettingsError(problems.join('; '));
}
