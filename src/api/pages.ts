import { aborted, linkSignals } from './limiter.js';
import type { RangeQuery } from './types.js';

/**
 * Pages requested or waiting ahead of the consumer unless the caller says otherwise: two keep a key's
 * 5 req/s busy up to ~400 ms per request while a page that waits (2 MB parsed for a week of a
 * 6-channel device) rarely lives long enough to be promoted to the old generation.
 */
export const DEFAULT_READ_AHEAD = 2;
/** A read collected whole holds every page anyway: more ahead keeps the key busy at any latency. */
export const COLLECT_READ_AHEAD = 8;

/** Fetches one planned range; rejects with ABORTED once `signal` fires. */
export type PageFetch<T> = (range: RangeQuery, signal: AbortSignal) => Promise<T[]>;

/**
 * The pages of a range read, oldest first: one page per planned request (possibly empty), each
 * sorted, entries already delivered on an earlier page dropped. At most `readAhead` pages are
 * requested or waiting ahead of the consumer, so memory stays bounded whatever its pace, while the
 * limiter's queue always holds the next requests. One consumer at a time; `close()` (or leaving a
 * `for await` loop) aborts what is in flight and leaves no request, timer or rejection behind.
 */
export class RangePages<T extends { timestamp: number }> implements AsyncIterableIterator<T[]> {
  /** Pages this read yields in all: one per planned request. */
  readonly requests: number;
  private readonly ranges: RangeQuery[];
  private readonly fetch: PageFetch<T>;
  private readonly readAhead: number;
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  private readonly unlink: () => void;
  private readonly ahead: Array<Promise<T[]>> = [];
  private nextRange = 0;
  private last = -Infinity;
  private failure?: unknown;
  private finished = false;
  private closedByConsumer = false;

  constructor(ranges: RangeQuery[], fetch: PageFetch<T>, options: { signal?: AbortSignal; readAhead?: number } = {}) {
    this.ranges = ranges;
    this.requests = ranges.length;
    this.fetch = fetch;
    this.readAhead = Math.max(1, Math.floor(options.readAhead ?? DEFAULT_READ_AHEAD) || 1);
    const { signal, dispose } = linkSignals(options.signal, this.stop.signal);
    this.signal = signal;
    this.unlink = dispose;
    if (ranges.length === 0) this.finish();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<T[], undefined>> {
    if (this.finished) return { done: true, value: undefined };
    this.fill();
    const head = this.ahead.shift();
    if (!head) {
      this.finish();
      return { done: true, value: undefined };
    }
    let page: T[];
    try {
      page = await head;
    } catch (err) {
      this.finish();
      if (this.closedByConsumer) return { done: true, value: undefined };
      throw this.failure ?? err;
    }
    if (this.closedByConsumer) return { done: true, value: undefined };
    // Aborted by the caller's signal after the page arrived: nothing more is delivered.
    if (this.signal.aborted) {
      this.finish();
      throw aborted();
    }
    this.fill();
    if (this.ahead.length === 0 && this.nextRange >= this.ranges.length) this.finish();
    return { done: false, value: this.fresh(page) };
  }

  /** Ends the read early: aborts the requests ahead, drops their pages. */
  async return(): Promise<IteratorResult<T[], undefined>> {
    this.closedByConsumer = true;
    this.finish();
    return { done: true, value: undefined };
  }

  close(): Promise<void> {
    return this.return().then(() => undefined);
  }

  /** Every remaining page in one array (the whole read held at once). */
  async collect(): Promise<T[]> {
    const all: T[] = [];
    // A loop, not push(...page): a page may hold more entries than a call takes arguments.
    for await (const page of this) for (const entry of page) all.push(entry);
    return all;
  }

  private fill(): void {
    while (!this.finished && this.ahead.length < this.readAhead && this.nextRange < this.ranges.length) {
      const range = this.ranges[this.nextRange];
      this.nextRange += 1;
      const page = this.fetch(range, this.signal).then(
        (entries) => (Array.isArray(entries) ? entries : []),
        (err: unknown) => {
          // The first real failure is the one reported; the aborts it causes are not.
          if (this.failure === undefined && !this.stop.signal.aborted) this.failure = err;
          this.stop.abort();
          throw this.failure ?? err;
        },
      );
      // Handled here too: a page dropped by close() or by an earlier failure never rejects unhandled.
      page.catch(() => undefined);
      this.ahead.push(page);
    }
  }

  /** The page sorted, without the timestamps an earlier page already delivered. */
  private fresh(page: T[]): T[] {
    let sorted = true;
    for (let i = 1; i < page.length; i += 1) {
      if (page[i].timestamp < page[i - 1].timestamp) {
        sorted = false;
        break;
      }
    }
    const ordered = sorted ? page : [...page].sort((a, b) => a.timestamp - b.timestamp);
    const out: T[] = [];
    for (const entry of ordered) {
      if (entry.timestamp > this.last) {
        out.push(entry);
        this.last = entry.timestamp;
      }
    }
    return sorted && out.length === page.length ? page : out;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.ahead.length = 0;
    this.stop.abort();
    this.unlink();
  }
}

