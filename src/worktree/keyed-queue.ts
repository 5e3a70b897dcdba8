/** One thing at a time per key (a repository): later calls wait for earlier ones, other keys run freely. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `body` once every earlier `run` with the same key has settled. */
  async run<T>(key: string, body: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const current = before.catch(() => {}).then(body);
    this.tails.set(key, current);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === current) this.tails.delete(key);
    }
  }
}
