import { randomBytes } from 'node:crypto';
import {
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';

/** Random bytes in a generated key: 256 bits, well past guessing. */
export const GENERATED_KEY_BYTES = 32;
/** Shortest key an operator may set by hand. */
export const MIN_KEY_LENGTH = 16;
const MAX_KEY_LENGTH = 1024;

/**
 * A new API key: 32 random bytes, base64url, so it travels in a form, JSON or a URL as is
 * ([config.key-shape]). Never one starting with `-`: on a command line it would read as an
 * option (`--value -pkCL…`), so such a draw is drawn again (one in 64 are).
 */
export function generateApiKey(random: (bytes: number) => Buffer = randomBytes): string {
  for (;;) {
    const key = random(GENERATED_KEY_BYTES).toString('base64url');
    if (!key.startsWith('-')) return key;
  }
}

/**
 * Why a hand-chosen key is unusable, or undefined when it is fine. Whitespace and control
 * characters are refused because form encoders and shells mangle them, and the caller would
 * then hold a key that never matches.
 */
export function apiKeyProblem(key: string): string | undefined {
  if (key.length < MIN_KEY_LENGTH) return `the key must be at least ${MIN_KEY_LENGTH} characters`;
  if (key.length > MAX_KEY_LENGTH) return `the key must be at most ${MAX_KEY_LENGTH} characters`;
  if (/[\s\p{Cc}]/u.test(key)) return 'the key must not contain spaces or control characters';
  return undefined;
}

/** Whether the key parameter exists (the value is not decrypted). */
export async function apiKeyExists(ssm: SSMClient, name: string): Promise<boolean> {
  try {
    await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: false }));
    return true;
  } catch (error) {
    if (error instanceof ParameterNotFound) return false;
    throw error;
  }
}

/**
 * Stores the key as a SecureString (encrypted with the account's `aws/ssm` key, which the
 * functions are allowed to decrypt), creating or overwriting it. Returns the new version.
 */
export async function writeApiKey(ssm: SSMClient, name: string, key: string): Promise<number> {
  const problem = apiKeyProblem(key);
  if (problem) throw new Error(problem);
  const output = await ssm.send(
    new PutParameterCommand({ Name: name, Value: key, Type: 'SecureString', Overwrite: true }),
  );
  return output.Version ?? 0;
}
