import {
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { parseSettings, SettingsError } from '../../domain/parse-settings.ts';
import type { Settings } from '../../domain/settings-schema.ts';

/**
 * The settings parameter as operator tooling reads and writes it. Changes are made to the
 * document as written (`document`), never to the parsed settings: writing the parsed form back
 * would freeze every default (mail texts, lifetimes) into the parameter.
 */

/** A standard parameter holds 4 KB; beyond that only the Advanced tier (8 KB) stores it. */
export const STANDARD_TIER_MAX_BYTES = 4096;
/** The most an Advanced-tier parameter holds. */
export const ADVANCED_TIER_MAX_BYTES = 8192;

/** The settings parameter as stored. */
export interface StoredSettings {
  /** The JSON text exactly as stored. */
  readonly text: string;
  /** The document as written by the operator (JSON-parsed, defaults not filled in). */
  readonly document: unknown;
  /** The document validated, defaults filled in. Throws SettingsError while reading if bad. */
  readonly settings: Settings;
  /** Parameter version; a write by someone else in between shows as a version jump. */
  readonly version: number;
}

/** What a write did. */
export interface SettingsWrite {
  readonly version: number;
  /** The tier SSM reports; an Advanced parameter stays Advanced even when the text shrinks. */
  readonly tier: string;
  readonly bytes: number;
}

/** The stored text and version of the settings parameter, or undefined when it does not exist. */
export async function readSettingsText(
  ssm: SSMClient,
  name: string,
): Promise<{ text: string; version: number } | undefined> {
  try {
    const output = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    return { text: output.Parameter?.Value ?? '', version: output.Parameter?.Version ?? 0 };
  } catch (error) {
    if (error instanceof ParameterNotFound) return undefined;
    throw error;
  }
}

/**
 * Reads and validates the settings parameter; undefined when it does not exist.
 *
 * @throws SettingsError naming the first bad fields when the stored document is invalid.
 */
export async function readSettings(
  ssm: SSMClient,
  name: string,
): Promise<StoredSettings | undefined> {
  const stored = await readSettingsText(ssm, name);
  if (!stored) return undefined;
  const settings = parseSettings(stored.text);
  return { ...stored, document: JSON.parse(stored.text) as unknown, settings };
}

/**
 * The text to store for a document: indented for people when that fits a standard parameter,
 * compact when only that fits, so the paid Advanced tier is used only when nothing else fits.
 */
export function serialiseSettings(document: unknown): string {
  const pretty = JSON.stringify(document, null, 2);
  if (Buffer.byteLength(pretty) <= STANDARD_TIER_MAX_BYTES) return pretty;
  const compact = JSON.stringify(document);
  return Buffer.byteLength(compact) <= STANDARD_TIER_MAX_BYTES ? compact : pretty;
}

/**
 * Validates a settings document and writes it as a String parameter (never SecureString: the
 * functions may decrypt only the API key). Over 4 KB it goes to the Advanced tier; under, no
 * tier is sent, so a parameter already Advanced stays so (SSM refuses to downgrade one).
 *
 * @throws SettingsError naming the bad field, or saying the document exceeds 8 KB.
 */
export async function writeSettings(
  ssm: SSMClient,
  name: string,
  document: unknown,
): Promise<SettingsWrite> {
  parseSettings(document);
  let text = serialiseSettings(document);
  let bytes = Buffer.byteLength(text);
  if (bytes > ADVANCED_TIER_MAX_BYTES) {
    text = JSON.stringify(document);
    bytes = Buffer.byteLength(text);
  }
  if (bytes > ADVANCED_TIER_MAX_BYTES) {
    throw new SettingsError(
      `settings: the document is ${bytes} bytes even without indentation; a parameter holds at most ${ADVANCED_TIER_MAX_BYTES}`,
    );
  }
  const tier = bytes > STANDARD_TIER_MAX_BYTES ? 'Advanced' : 'Standard';
  const output = await ssm.send(
    new PutParameterCommand({
      Name: name,
      Value: text,
      Type: 'String',
      Overwrite: true,
      ...(tier === 'Advanced' ? { Tier: 'Advanced' } : {}),
    }),
  );
  return { version: output.Version ?? 0, tier: output.Tier ?? tier, bytes };
}
