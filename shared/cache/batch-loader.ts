// Invariant: every key asked for during one turn of the event loop is loaded by one query (in
// chunks of at most maxBatch keys), issued from setImmediate, i.e. after uWS has handed over all
// requests that arrived together; each caller gets its own key's value or null. A failed query
// rejects exactly the callers whose keys it carried.

type Waiter<V> = { resolve: (v: V | null) => void; reject: (err: unknown) => void };

export class BatchLoader<V> {
  readonly #loadMany: (keys: string[]) => Promise<ReadonlyMap<string, V>>;
  readonly #maxBatch: number;
  #pending = new Map<string, Waiter<V>[]>();
  #scheduled = false;

  constructor(loadMany: (keys: string[]) => Promise<ReadonlyMap<string, V>>, maxBatch = 500) {
    this.#loadMany = loadMany;
    this.#maxBatch = maxBatch;
  }

  load(key: string): Promise<V | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.#pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = new Map();
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += this.#maxBatch) {
      const chunk = keys.slice(i, i + this.#maxBatch);
      this.#loadMany(chunk).then(
        (found) => {
          for (const k of chunk) for (const w of batch.get(k) ?? []) w.resolve(found.get(k) ?? null);
        },
        (err: unknown) => {
          for (const k of chunk) for (const w of batch.get(k) ?? []) w.reject(err);
        },
      );
    }
  }
}
