/**
 * Which items are inside a running transaction, as DynamoDB's transaction conflict handling
 * sees them (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html,
 * "Transaction conflict handling"): a TransactWriteItems holds every item it names until it
 * ends; a PutItem, UpdateItem or DeleteItem on a held item is refused, and so is another
 * transaction naming one; a TransactGetItems is cancelled by a write in progress on one of its
 * items, whether that write started before it or during it. Items are named by table and key.
 */

interface Reading {
  readonly items: readonly string[];
  conflicted: boolean;
}

/** The items held by transactions and written by requests in progress. */
export class ItemHolds {
  readonly #held = new Map<string, number>();
  readonly #writing = new Map<string, number>();
  readonly #reading = new Set<Reading>();

  /** Whether a running TransactWriteItems holds the item. */
  held(item: string): boolean {
    return this.#held.has(item);
  }

  /** Whether any write (a transaction or a single request) is working on the item. */
  busy(item: string): boolean {
    return this.#held.has(item) || this.#writing.has(item);
  }

  /** Items held by transactions right now (for tests and reports). */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Holds the items for a transaction; the returned function lets them go. */
  hold(items: readonly string[]): () => void {
    return this.#claim(this.#held, items);
  }

  /** Marks a write in progress on the items; the returned function ends it. */
  write(items: readonly string[]): () => void {
    for (const reading of this.#reading) {
      if (!reading.conflicted && reading.items.some((item) => items.includes(item))) {
        reading.conflicted = true;
      }
    }
    return this.#claim(this.#writing, items);
  }

  /** A TransactGetItems in progress: whether a write met one of its items meanwhile. */
  read(items: readonly string[]): { conflicted(): boolean; done(): void } {
    const reading: Reading = { items, conflicted: false };
    this.#reading.add(reading);
    return {
      conflicted: () => reading.conflicted,
      done: () => this.#reading.delete(reading),
    };
  }

  #claim(claims: Map<string, number>, items: readonly string[]): () => void {
    for (const item of items) claims.set(item, (claims.get(item) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const item of items) {
        const left = (claims.get(item) ?? 1) - 1;
        if (left > 0) claims.set(item, left);
        else claims.delete(item);
      }
    };
  }
}
