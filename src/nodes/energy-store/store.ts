import type { EnergyApiError } from '../../api/index.js';
import type { Now } from '../shared/clock.js';
import { isStoreCode, refused, storeError } from './backends/errors.js';
import type { StoreBackend, StreamKey, Watermark } from './backends/types.js';
import type { StoreBatch } from './fields.js';
import type { DiskQueue, QueueSize } from './queue.js';
import type { Watermarks } from './watermarks.js';

/** What became of one msg's batch. */
export type Outcome =
  | { state: 'written'; rows: number; changed?: number }
  /** Safe in the disk queue; the database is away (or refusing): it is written when it can be. */
  | { state: 'queued'; reason: Error };

export type HealthState = 'starting' | 'ok' | 'unreachable' | 'refused' | 'unavailable';

export interface Health {
  state: HealthState;
  error?: EnergyApiError | Error;
  queue: QueueSize;
  /** The last commit: entries and the node clock (ms). */
  lastWrite?: { entries: number; at: number };
}

export interface StoreEvents {
  /** Health changed (status, warnings). */
  changed(health: Health): void;
  /** A queued batch no msg is waiting for (one from before a restart) was refused. */
  replayRefused(err: Error, batches: readonly StoreBatch[]): void;
}

/** Rows per transaction when the queue holds many batches. */
const MAX_ROWS_PER_WRITE = 60_000;
/** Retry delays while the database is away (s); a refusal waits for a fix: the longest, or the next input. */
const BACKOFF_S = [1, 2, 5, 10, 30, 60];
const REFUSED_RETRY_S = 300;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * The write path, free of Node-RED: every batch is queued on disk first, then written in order in
 * transactions by one loop; a msg learns what became of its batch. A commit is followed by removing
 * the batch from the queue; a restart in between writes it again as the same rows.
 */
export class EnergyStore {
  private opened = false;
  private closed = false;
  private draining?: Promise<void>;
  private again = false;
  private retry?: NodeJS.Timeout;
  private failures = 0;
  private lastPrune = 0;
  private readonly waiting = new Map<number, { resolve: (o: Outcome) => void; reject: (e: Error) => void; rows: number }>();
  private health: Health;

  constructor(
    readonly backend: StoreBackend,
    private readonly queue: DiskQueue,
    private readonly marks: Watermarks,
    private readonly now: Now,
    private readonly retentionDays: number,
    private readonly events: StoreEvents,
  ) {
    this.health = { state: 'starting', queue: queue.size() };
  }

  async start(): Promise<void> {
    await Promise.all([this.queue.load(), this.marks.load()]);
    this.kick();
  }

  current(): Health {
    return { ...this.health, queue: this.queue.size() };
  }

  /**
   * Queues the batch durably; `outcome` then resolves once it is written or known to wait (rejects when
   * refused). The returned promise itself settles once the batch is on disk: a node closing waits for that.
   */
  async enqueue(batch: StoreBatch, timezone?: string): Promise<{ outcome: Promise<Outcome> }> {
    if (this.health.state === 'unavailable' && this.health.error) throw this.health.error;
    const seq = await this.queue.append(batch, this.now());
    if (this.marks.raise([{ device: batch.device, kind: batch.kind, granularity: batch.granularity, newest: batch.newest, oldest: batch.oldest }], timezone)) await this.marks.save();
    if (this.closed) return { outcome: Promise.resolve({ state: 'queued', reason: storeError('STORE_STOPPED', 'the node stopped: the batch is written at the next start') }) };
    const outcome = new Promise<Outcome>((resolve, reject) => this.waiting.set(seq, { resolve, reject, rows: batch.rows.length }));
    this.kick();
    return { outcome };
  }

  /** The database, opened (for reads). */
  async ready(): Promise<StoreBackend> {
    await this.open();
    return this.backend;
  }

  /** Every stream's newest entry: the queue's and the database's (when it answers). */
  async watermarks(): Promise<Watermark[]> {
    try {
      await this.open();
      this.marks.raise(await this.backend.watermarks());
    } catch {
      // Away: the watermarks kept beside the queue answer alone.
    }
    return this.marks.list();
  }

  /** The oldest and newest entry of a stream this node has written. */
  held(k: StreamKey): { fromTs?: number; toTs?: number } {
    return this.marks.held(k);
  }

  timezoneOf(device: string): string | undefined {
    return this.marks.timezoneOf(device);
  }

  /** Writes what is queued now (and again whenever asked while writing). */
  kick(): void {
    if (this.closed) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    clearTimeout(this.retry);
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.draining;
    for (const [seq, w] of this.waiting) {
      this.waiting.delete(seq);
      w.resolve({ state: 'queued', reason: storeError('STORE_STOPPED', 'the node stopped before the database took this batch: it is written at the next start') });
    }
    await this.backend.close();
  }

  private async open(): Promise<void> {
    if (this.opened) return;
    await this.backend.open();
    this.opened = true;
    this.marks.raise(await this.backend.watermarks());
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.again = false;
        // Opened even with nothing queued: the status says at once whether the database answers.
        await this.open();
        for (let head = await this.queue.peek(MAX_ROWS_PER_WRITE); head.length && !this.closed; head = await this.queue.peek(MAX_ROWS_PER_WRITE)) {
          const result = await this.backend.write(head.map((h) => h.batch));
          await this.queue.remove(head.map((h) => h.seq));
          const entries = head.reduce((n, h) => n + h.batch.entries, 0);
          this.failures = 0;
          this.setHealth({ state: 'ok', lastWrite: { entries, at: this.now() } });
          head.forEach((h, i) => this.settle(h.seq, { state: 'written', rows: h.batch.rows.length, changed: result.changed?.[i] }));
        }
        if (this.health.state !== 'ok') this.setHealth({ state: 'ok', lastWrite: this.health.lastWrite });
      } while (this.again && !this.closed);
      await this.prune();
    } catch (err) {
      await this.failed(err);
    }
  }

  private async failed(raw: unknown): Promise<void> {
    this.opened = false;
    const err = raw instanceof Error ? raw : new Error(String(raw));
    const unreachable = isStoreCode(err, 'STORE_UNREACHABLE');
    const state: HealthState = isStoreCode(err, 'STORE_UNAVAILABLE') ? 'unavailable' : unreachable ? 'unreachable' : 'refused';
    const error = unreachable || state === 'unavailable' || isStoreCode(err, 'STORE_REFUSED') ? err : refused(`the store could not write: ${err.message}`);
    this.setHealth({ state, error, lastWrite: this.health.lastWrite });
    if (state !== 'unreachable') {
      // The head batch is the one refused: its msg (if one waits) gets the error; a replayed one is reported.
      const head = await this.queue.peek(MAX_ROWS_PER_WRITE).catch(() => []);
      const waited = head.filter((h) => this.waiting.has(h.seq));
      for (const h of waited) this.settle(h.seq, error);
      if (!waited.length && head.length) this.events.replayRefused(error, head.map((h) => h.batch));
    }
    for (const seq of [...this.waiting.keys()]) this.settle(seq, { state: 'queued', reason: error });
    if (this.closed || state === 'unavailable') return;
    const delayS = unreachable ? BACKOFF_S[Math.min(this.failures, BACKOFF_S.length - 1)] : REFUSED_RETRY_S;
    this.failures += 1;
    this.retry = setTimeout(() => this.kick(), delayS * 1000);
  }

  private settle(seq: number, outcome: Outcome | Error): void {
    const w = this.waiting.get(seq);
    if (!w) return;
    this.waiting.delete(seq);
    if (outcome instanceof Error) w.reject(outcome);
    else w.resolve(outcome);
  }

  private setHealth(next: Omit<Health, 'queue'>): void {
    this.health = { ...next, queue: this.queue.size() };
    this.events.changed(this.current());
  }

  /** Retention: rows older than `retentionDays` go, at most once an hour. */
  private async prune(): Promise<void> {
    if (!this.retentionDays || !this.opened || this.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = this.now();
    await this.backend.prune(Math.floor(this.now() / 1000) - this.retentionDays * 86400);
  }
}
