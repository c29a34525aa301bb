import { createHash } from 'node:crypto';
import { SharedResources } from '../../api/index.js';
import type { RowValues, StoreBatch } from './fields.js';
import type { Bucket } from './buckets.js';
import type { RowRange, StoreBackend, StreamKey, Watermark, WriteResult } from './backends/types.js';

interface Database {
  backend: StoreBackend;
  opened: boolean;
  opening?: Promise<void>;
}

const databases = new SharedResources<Database>((db) => db.backend.close());

/**
 * The database of these connection settings, shared by every energy-store node that names them: opened by
 * the first that needs it, closed when the last one closes. `id` names the settings (secrets as a digest).
 */
export function sharedBackend(id: string, create: () => StoreBackend): StoreBackend {
  const lease = databases.acquire(id, () => ({ backend: create(), opened: false }));
  return new SharedBackend(lease.value, lease.release);
}

/** A digest of a secret, for an id that must tell two passwords apart without holding either. */
export function secretDigest(...secrets: Array<string | undefined>): string {
  return createHash('sha256').update(JSON.stringify(secrets)).digest('hex');
}

class SharedBackend implements StoreBackend {
  constructor(private readonly db: Database, private readonly release: () => Promise<void>) {}

  get name(): string {
    return this.db.backend.name;
  }

  async open(): Promise<void> {
    const db = this.db;
    if (db.opened) return;
    db.opening ??= db.backend.open().then(() => {
      db.opened = true;
    }).finally(() => {
      db.opening = undefined;
    });
    await db.opening;
  }

  write(batches: readonly StoreBatch[]): Promise<WriteResult> {
    return this.db.backend.write(batches);
  }

  watermarks(): Promise<Watermark[]> {
    return this.db.backend.watermarks();
  }

  readRows(range: RowRange): Promise<RowValues[]> {
    return this.db.backend.readRows(range);
  }

  readBuckets(key: StreamKey, buckets: readonly Bucket[]): Promise<RowValues[]> {
    return this.db.backend.readBuckets(key, buckets);
  }

  edge(key: StreamKey, which: 'first' | 'latest'): Promise<number | undefined> {
    return this.db.backend.edge(key, which);
  }

  prune(beforeTs: number): Promise<number | undefined> {
    return this.db.backend.prune(beforeTs);
  }

  close(): Promise<void> {
    return this.release();
  }
}
