/** How blocks of ids are reserved and how long one is used. */
export interface IdBlockOptions {
  /** Ids per block; with `adaptive`, the most a block may grow to. */
  readonly size: number;
  /**
   * Start with blocks of one id, double the next block when a block is used up and more ids
   * are wanted within a quarter of its lifetime, halve it when one is left unfinished: one
   * counter write per id, and no gaps, when calls are few; a few per lifetime per process when
   * they are many.
   */
  readonly adaptive?: boolean;
  /**
   * A block older than this is dropped with its unused ids (ids are unique and never reused,
   * not gap-free), so ids handed out by different processes stay within this of creation
   * order.
   */
  readonly lifetimeMs?: number;
  readonly now?: () => number;
}

/**
 * Hands out ids from blocks reserved with `DynamoStore.reserveIds`, so that many ids cost one
 * counter write: a bulk import's rows (fixed blocks), or a burst of sign-ups in one process
 * (adaptive blocks with a lifetime), where a write per id would make the counter item a hot
 * key. Callers waiting while a block is fetched share that one request.
 */
export class IdBlocks {
  #next = 0;
  #end = 0;
  #reservedAt = 0;
  #size: number;
  #pending?: Promise<void>;
  readonly #options: IdBlockOptions;

  constructor(
    private readonly reserve: (count: number) => Promise<number>,
    options: number | IdBlockOptions,
  ) {
    this.#options = typeof options === 'number' ? { size: options } : options;
    this.#size = this.#options.adaptive ? 1 : this.#options.size;
  }

  /** The next id. */
  async next(): Promise<number> {
    while (this.#next >= this.#end || this.#expired()) {
      this.#pending ??= this.#reserveBlock().finally(() => {
        this.#pending = undefined;
      });
      await this.#pending;
    }
    const id = this.#next;
    this.#next += 1;
    return id;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #expired(): boolean {
    const lifetime = this.#options.lifetimeMs;
    return lifetime !== undefined && this.#now() - this.#reservedAt >= lifetime;
  }

  async #reserveBlock(): Promise<void> {
    if (this.#options.adaptive && this.#end > 0) {
      const lifetime = this.#options.lifetimeMs ?? Number.POSITIVE_INFINITY;
      if (this.#next < this.#end) this.#size = Math.max(1, Math.floor(this.#size / 2));
      else if (this.#now() - this.#reservedAt < lifetime / 4)
        this.#size = Math.min(this.#options.size, this.#size * 2);
    }
    const size = this.#size;
    const first = await this.reserve(size);
    this.#next = first;
    this.#end = first + size;
    this.#reservedAt = this.#now();
  }
}
