import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { packRows, unpackRows, type RowValues, type StoreBatch } from '../fields.js';
import type { Bucket } from '../buckets.js';
import { storeError, unavailable, unreachable, type StoreErrorCode } from './errors.js';
import type { RowRange, StoreBackend, StreamKey, Watermark, WriteResult } from './types.js';
import type { WorkerReply } from './sqlite-worker.js';

/** Why SQLite cannot run on this Node.js (undefined when it can): node:sqlite is unflagged from 22.13 (23.4). */
export function sqliteProblem(version = process.versions.node): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  if (major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13)) return undefined;
  return `the SQLite backend needs Node.js 22.13 or later (its built-in node:sqlite); this Node-RED runs on Node.js ${version}: upgrade Node.js, or choose the influxdb or postgres backend`;
}

/** SQLite through node:sqlite, in a worker thread that owns the connection (see sqlite-worker.ts). */
export class SqliteBackend implements StoreBackend {
  readonly name = 'sqlite';
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly file: string) {}

  async open(): Promise<void> {
    const problem = sqliteProblem();
    if (problem) throw unavailable(problem);
    if (!this.worker) this.start();
    await this.call('open', this.file);
  }

  write(batches: readonly StoreBatch[]): Promise<WriteResult> {
    const packed = batches.map((b) => ({ ...b, rows: packRows(b.rows) }));
    return this.send('write', [packed], packed.map((b) => b.rows.buffer as ArrayBuffer)) as Promise<WriteResult>;
  }

  watermarks(): Promise<Watermark[]> {
    return this.call('watermarks') as Promise<Watermark[]>;
  }

  async readRows(range: RowRange): Promise<RowValues[]> {
    return unpackRows((await this.call('readRows', range)) as Float64Array);
  }

  async readBuckets(key: StreamKey, buckets: readonly Bucket[]): Promise<RowValues[]> {
    return unpackRows((await this.call('readBuckets', key, buckets)) as Float64Array);
  }

  edge(key: StreamKey, which: 'first' | 'latest'): Promise<number | undefined> {
    return this.call('edge', key, which) as Promise<number | undefined>;
  }

  prune(beforeTs: number): Promise<number | undefined> {
    return this.call('prune', beforeTs) as Promise<number | undefined>;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    try {
      await this.call('close');
    } catch {
      // closing anyway
    }
    this.worker = undefined;
    await worker.terminate();
  }

  private start(): void {
    const worker = new Worker(path.join(__dirname, 'sqlite-worker.js'));
    // An idle worker must not keep Node-RED (or a test) alive.
    worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.error) waiting.reject(storeError(reply.error.code as StoreErrorCode, reply.error.message));
      else waiting.resolve(reply.result);
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.pending) {
        this.pending.delete(id);
        waiting.reject(unreachable(`the SQLite worker stopped: ${err.message}`));
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.worker = worker;
  }

  private call(op: string, ...args: unknown[]): Promise<unknown> {
    return this.send(op, args, []);
  }

  /** `transfer`: buffers handed to the worker instead of copied. */
  private send(op: string, args: unknown[], transfer: ArrayBuffer[]): Promise<unknown> {
    const worker = this.worker;
    if (!worker) return Promise.reject(unreachable('the SQLite database is not open'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep Node-RED alive only while an answer is awaited.
      worker.ref();
      worker.postMessage({ id, op, args }, transfer);
    }).finally(() => {
      if (this.pending.size === 0) worker.unref();
    });
  }
}
