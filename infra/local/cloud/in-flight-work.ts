/**
 * Work a local service started on its own (a rule or a schedule firing), kept so that a test can
 * wait for it: `track` hands a firing's promise back unchanged and reports its failure, and
 * `settled` waits until nothing is left, firings started meanwhile included.
 */
export class InFlightWork {
  readonly #work = new Set<Promise<unknown>>();

  constructor(private readonly onError?: (error: unknown) => void) {}

  track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work);
    void work.then(
      () => this.#work.delete(work),
      (error: unknown) => {
        this.#work.delete(work);
        this.onError?.(error);
      },
    );
    return work;
  }

  /** Whether there was anything to wait for. */
  async settled(): Promise<boolean> {
    let waited = false;
    while (this.#work.size > 0) {
      waited = true;
      await Promise.allSettled([...this.#work]);
    }
    return waited;
  }
}
