import {
  GetParametersCommand,
  type GetParametersCommandOutput,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { DependencyError } from '../../domain/errors.ts';

interface Entry {
  /** Undefined when the parameter does not exist; that is cached too. */
  readonly value: string | undefined;
  readonly fetchedAt: number;
}

/**
 * SSM parameters with a cache of explicit lifetime per parameter name, so a rotated key or a
 * changed setting takes effect within `maxAgeMs` without a deploy. Stale names are fetched
 * together in one GetParameters call, decrypted.
 */
export class CachedParameters {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ssm: SSMClient,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The values of `names` (undefined for a parameter that does not exist). */
  async get(names: readonly string[]): Promise<ReadonlyMap<string, string | undefined>> {
    const now = this.now();
    const stale = names.filter((name) => {
      const entry = this.entries.get(name);
      return !entry || now - entry.fetchedAt >= this.maxAgeMs;
    });
    if (stale.length > 0) await this.fetch([...new Set(stale)], now);
    return new Map(names.map((name) => [name, this.entries.get(name)?.value]));
  }

  /** Forgets everything, e.g. after the operator tooling changed a parameter in-process. */
  clear(): void {
    this.entries.clear();
  }

  private async fetch(names: string[], now: number): Promise<void> {
    let output: GetParametersCommandOutput;
    try {
      output = await this.ssm.send(
        new GetParametersCommand({ Names: names, WithDecryption: true }),
      );
    } catch (error) {
      throw new DependencyError('ssm', { cause: error });
    }
    for (const name of names) {
      const found = output.Parameters?.find((parameter) => parameter.Name === name);
      this.entries.set(name, { value: found?.Value, fetchedAt: now });
    }
  }
}
