import { DependencyError } from '../../domain/errors.ts';
import type { ParameterSource } from './parameter-source.ts';

/** Attempts per name when SSM throttles or the extension fails for now. */
const ATTEMPTS = 3;

/** What a failed read says about retrying it. */
type Failure = { readonly retry: boolean; readonly error: Error };

/**
 * SSM parameters through the AWS Parameters and Secrets Lambda Extension: a GET to its
 * localhost endpoint per name (in parallel), authenticated with the function's session token.
 * The extension calls SSM GetParameter (with decryption) as the function's role, so a function
 * needs no SSM client in its bundle. Its own cache is turned off by the stack; CachedParameters
 * decides how long a value lives. The extension answers an SSM error with SSM's status and the
 * error's name in the body: ParameterNotFound is an absent parameter, AccessDenied a
 * deployment bug, throttling and 5xx are retried a few times, then a DependencyError (503).
 */
export function extensionParameterSource(env: NodeJS.ProcessEnv = process.env): ParameterSource {
  const port = env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT || '2773';
  const once = async (name: string): Promise<string | undefined | Failure> => {
    const url = `http://localhost:${port}/systemsmanager/parameters/get?name=${encodeURIComponent(name)}&withDecryption=true`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { 'X-Aws-Parameters-Secrets-Token': env.AWS_SESSION_TOKEN ?? '' },
        signal: AbortSignal.timeout(3_000),
      });
    } catch (error) {
      return { retry: true, error: error instanceof Error ? error : new Error(String(error)) };
    }
    const text = await response.text();
    if (response.ok) {
      return (JSON.parse(text) as { Parameter?: { Value?: string } }).Parameter?.Value;
    }
    if (/ParameterNotFound/.test(text)) return undefined;
    // The role lacks a grant: a deployment bug that retrying will not mend.
    if (/AccessDenied/.test(text)) throw new Error(`SSM refused ${name}: access denied`);
    return {
      retry:
        response.status === 429 || response.status >= 500 || /Throttl|Rate exceeded/i.test(text),
      error: new Error(`extension answered ${response.status}: ${text.slice(0, 200)}`),
    };
  };
  const read = async (name: string): Promise<string | undefined> => {
    for (let attempt = 1; ; attempt += 1) {
      const result = await once(name);
      if (typeof result !== 'object') return result;
      if (!result.retry || attempt >= ATTEMPTS) {
        throw new DependencyError('ssm', { cause: result.error });
      }
      // Jittered backoff, as the SDK's standard retry would: 25–50 ms, then 50–100 ms.
      const base = 25 * 2 ** (attempt - 1);
      await new Promise((wake) => setTimeout(wake, base + Math.random() * base));
    }
  };
  return async (names) => {
    const values = await Promise.all(names.map(read));
    return new Map(names.map((name, index) => [name, values[index]]));
  };
}
