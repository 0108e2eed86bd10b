import type { ParameterSource } from './parameter-source.ts';

interface Entry {
  /** Undefined when the parameter does not exist; that is cached too. */
  readonly value: string | undefined;
  readonly fetchedAt: number;
}

/**
 * SSM parameters with a cache of explicit lifetime per parameter name, so a rotated key or a
 * changed setting takes effect within `maxAgeMs` without a deploy. Stale names are fetched
 * together, in one read of the source.
 */
export class CachedParameters {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly source: ParameterSource,
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
    if (stale.length > 0) {
      const fetched = await this.source([...new Set(stale)]);
      for (const name of new Set(stale)) {
        this.entries.set(name, { value: fetched.get(name), fetchedAt: now });
      }
    }
    return new Map(names.map((name) => [name, this.entries.get(name)?.value]));
  }
}
