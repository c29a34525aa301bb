import { promises as fsp } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { StoreBatch } from './fields.js';
import { storeError } from './backends/errors.js';

/**
 * The disk queue every batch goes through before the database: one file per batch, written to a
 * temporary name, synced and renamed, so a file that exists is whole. A batch file is removed only
 * after the database committed it; a restart between the commit and the removal writes the batch
 * again, which changes nothing (every row is an upsert by its key). Files are named
 * `<seq>-<queued at ms>-<entries>-<random>.json`, so size and age are known without reading them.
 */
export interface QueuedBatch {
  seq: number;
  batch: StoreBatch;
  /** Node clock (ms) when it was queued. */
  queuedAt: number;
}

interface FileInfo {
  seq: number;
  name: string;
  bytes: number;
  entries: number;
  queuedAt: number;
}

export interface QueueSize {
  batches: number;
  entries: number;
  bytes: number;
  /** Node clock (ms) of the oldest batch; undefined when empty. */
  oldestAt?: number;
}

const NAME = /^(\d{12})-(\d+)-(\d+)-[0-9a-f]{8}\.json$/;
/** Batches queued by this process are kept in memory up to this many bytes of JSON, so writing them parses nothing. */
const MEMORY_BYTES = 16 * 1_048_576;

export class DiskQueue {
  private files: FileInfo[] = [];
  private bytes = 0;
  private nextSeq = 1;
  private readonly held = new Map<number, StoreBatch>();
  private heldBytes = 0;

  constructor(readonly dir: string, readonly limitBytes: number) {}

  /** Finds what an earlier run left (its batches are written first, in order). */
  async load(): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    const found: FileInfo[] = [];
    for (const name of await fsp.readdir(this.dir)) {
      const m = NAME.exec(name);
      if (!m) {
        // A temporary file of a write that never finished: never renamed, so never acknowledged.
        if (name.endsWith('.tmp')) await fsp.rm(path.join(this.dir, name), { force: true });
        continue;
      }
      const { size } = await fsp.stat(path.join(this.dir, name));
      found.push({ seq: Number(m[1]), name, bytes: size, queuedAt: Number(m[2]), entries: Number(m[3]) });
    }
    this.files = found.sort((a, b) => a.seq - b.seq || a.queuedAt - b.queuedAt || a.name.localeCompare(b.name));
    this.bytes = found.reduce((n, f) => n + f.bytes, 0);
    this.nextSeq = (this.files.at(-1)?.seq ?? 0) + 1;
  }

  size(): QueueSize {
    return { batches: this.files.length, entries: this.files.reduce((n, f) => n + f.entries, 0), bytes: this.bytes, oldestAt: this.files[0]?.queuedAt };
  }

  /** Writes the batch durably; refuses it (QUEUE_FULL) when the queue would pass its limit. */
  async append(batch: StoreBatch, queuedAt: number): Promise<number> {
    const text = JSON.stringify(batch);
    const bytes = Buffer.byteLength(text);
    if (this.bytes + bytes > this.limitBytes) {
      throw storeError('QUEUE_FULL', `the disk queue is full (${mb(this.bytes)} MB of ${mb(this.limitBytes)} MB): these ${batch.entries} entries were not stored; the database has been unreachable since the oldest queued batch`);
    }
    const seq = this.nextSeq++;
    // The random part: a node being replaced (a redeploy) may still be queuing what it took while its successor starts.
    const name = `${String(seq).padStart(12, '0')}-${Math.floor(queuedAt)}-${batch.entries}-${randomBytes(4).toString('hex')}.json`;
    const tmp = path.join(this.dir, `${name}.tmp`);
    const handle = await fsp.open(tmp, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, path.join(this.dir, name));
    await syncDir(this.dir);
    this.files.push({ seq, name, bytes, entries: batch.entries, queuedAt });
    this.bytes += bytes;
    if (this.heldBytes + bytes <= MEMORY_BYTES) {
      this.held.set(seq, batch);
      this.heldBytes += bytes;
    }
    return seq;
  }

  /** The oldest batches, up to about `maxRows` rows (at least one batch). */
  async peek(maxRows: number): Promise<QueuedBatch[]> {
    const out: QueuedBatch[] = [];
    let rows = 0;
    for (const file of this.files) {
      if (out.length > 0 && rows >= maxRows) break;
      const batch = this.held.get(file.seq) ?? (JSON.parse(await fsp.readFile(path.join(this.dir, file.name), 'utf8')) as StoreBatch);
      out.push({ seq: file.seq, batch, queuedAt: file.queuedAt });
      rows += batch.rows.length;
    }
    return out;
  }

  /** Removes committed batches. */
  async remove(seqs: readonly number[]): Promise<void> {
    const done = new Set(seqs);
    for (const file of this.files.filter((f) => done.has(f.seq))) {
      await fsp.rm(path.join(this.dir, file.name), { force: true });
      this.bytes -= file.bytes;
      if (this.held.delete(file.seq)) this.heldBytes -= file.bytes;
    }
    this.files = this.files.filter((f) => !done.has(f.seq));
  }

  /** Whether a batch is still waiting. */
  has(seq: number): boolean {
    return this.files.some((f) => f.seq === seq);
  }
}

export const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(1);

/** A rename is durable once the directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems cannot sync a directory; the rename is still atomic.
  } finally {
    await handle.close();
  }
}
