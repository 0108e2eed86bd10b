/**
 * Hands out ids from blocks reserved with `DynamoStore.reserveIds`, so a bulk import costs one
 * counter write per block instead of one per row. Callers waiting while a block is fetched
 * share that one request.
 */
export class IdBlocks {
  #next = 0;
  #end = 0;
  #pending?: Promise<void>;

  constructor(
    private readonly reserve: (count: number) => Promise<number>,
    private readonly blockSize: number,
  ) {}

  /** The next id. */
  async next(): Promise<number> {
    while (this.#next >= this.#end) {
      this.#pending ??= this.reserve(this.blockSize)
        .then((first) => {
          this.#next = first;
          this.#end = first + this.blockSize;
        })
        .finally(() => {
          this.#pending = undefined;
        });
      await this.#pending;
    }
    const id = this.#next;
    this.#next += 1;
    return id;
  }
}
