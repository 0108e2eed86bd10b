import type { SSMClient } from '@aws-sdk/client-ssm';
import {
  readSettingsText,
  type SettingsWrite,
  writeSettings,
} from '../../adapters/parameters/settings-document.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { parseSettings, SettingsError } from '../../domain/parse-settings.ts';
import type { Settings } from '../../domain/settings-schema.ts';

/**
 * Reading and replacing the settings document ([v2.settings]): one implementation for the CLI
 * (`settings show`, `settings set`) and API v2 (`GET` and `PUT /settings`). The document is
 * kept as written (defaults stay implicit) and validated by the functions' own rules.
 */

/** Where the settings document is read and written. */
export interface SettingsDependencies {
  readonly ssm: SSMClient;
  readonly parameter: string;
}

/** The stored document as written, and whether the functions accept it. */
export interface SettingsShown {
  /** The document as stored (JSON-parsed), or the text when it is not JSON. */
  readonly settings: unknown;
  /** The parameter's version: a write by someone else in between shows as a jump. */
  readonly version: number;
  /** Why the functions refuse the stored document, or null when they accept it. */
  readonly problem: string | null;
}

/** The settings parameter as stored; an invalid document is shown with what is wrong. */
export async function showSettings(
  deps: SettingsDependencies,
): Promise<SettingsShown | NewsletterError> {
  const stored = await readSettingsText(deps.ssm, deps.parameter);
  if (!stored) return missing(deps);
  let document: unknown;
  try {
    document = JSON.parse(stored.text);
  } catch {
    return {
      settings: stored.text,
      version: stored.version,
      problem: 'settings: not valid JSON',
    };
  }
  try {
    parseSettings(document);
    return { settings: document, version: stored.version, problem: null };
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return { settings: document, version: stored.version, problem: error.message };
  }
}

/** What a replacement stored. */
export interface SettingsReplaced {
  /** The document as the functions read it, defaults filled in. */
  readonly parsed: Settings;
  readonly written: SettingsWrite;
}

/**
 * Validates a document with the functions' rules and stores it in place of the settings; a
 * document they refuse is a 400 `invalid_parameter` naming the first bad fields, and nothing
 * is written. With `expectVersion`, a document changed since that version is a 409
 * `invalid_state` (the parameter store has no conditional write: this is a read before the
 * write, which narrows the window of two editors, and cannot close it).
 */
export async function replaceSettings(
  deps: SettingsDependencies,
  document: unknown,
  expectVersion?: number,
): Promise<SettingsReplaced | NewsletterError> {
  if (typeof document === 'string') {
    // JSON text (a form field): stored as the document it holds, never as a JSON string.
    try {
      return await replaceSettings(deps, JSON.parse(document) as unknown, expectVersion);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return newsletterError('invalid_parameter', `settings: not valid JSON (${error.message})`);
    }
  }
  let parsed: Settings;
  try {
    parsed = parseSettings(document);
  } catch (error) {
    if (error instanceof SettingsError) return newsletterError('invalid_parameter', error.message);
    throw error;
  }
  if (expectVersion !== undefined) {
    const stored = await readSettingsText(deps.ssm, deps.parameter);
    if (!stored) return missing(deps);
    if (stored.version !== expectVersion)
      return newsletterError(
        'invalid_state',
        `The settings changed since version ${expectVersion} was read (now version ${stored.version}): read them again and redo the change.`,
      );
  }
  try {
    return { parsed, written: await writeSettings(deps.ssm, deps.parameter, document) };
  } catch (error) {
    // Over the size a parameter holds.
    if (error instanceof SettingsError) return newsletterError('invalid_parameter', error.message);
    throw error;
  }
}

const missing = (deps: SettingsDependencies): NewsletterError =>
  newsletterError('internal_error', `The settings parameter ${deps.parameter} does not exist.`);
