/** One user's hold on a shared resource; `release` is idempotent. */
export interface Lease<T> {
  readonly value: T;
  /** Gives the hold back; the resource closes when its last holder releases it. */
  release(): Promise<void>;
}

interface Entry<T> {
  value: T;
  holders: number;
}

/**
 * Outside connections shared in the process: one per id (an address and a digest of its secret, never the
 * secret itself), made by its first user and closed with its last, as Node-RED's MQTT broker node does
 * with register/deregister. The energy API's clients, Amber's clients and the store's databases are held
 * this way.
 */
export class SharedResources<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly closeResource: (value: T) => Promise<void> | void) {}

  /** The resource of `id`, made by `create` when nobody holds one. */
  acquire(id: string, create: () => T): Lease<T> {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { value: create(), holders: 0 };
      this.entries.set(id, entry);
    }
    entry.holders += 1;
    const held = entry;
    let released = false;
    return {
      value: held.value,
      release: async () => {
        if (released) return;
        released = true;
        held.holders -= 1;
        if (held.holders > 0) return;
        if (this.entries.get(id) === held) this.entries.delete(id);
        await this.closeResource(held.value);
      },
    };
  }

  /** How many users hold the resource of `id` (0 when none). */
  holders(id: string): number {
    return this.entries.get(id)?.holders ?? 0;
  }
}
