import Bottleneck from 'bottleneck';
import { EventEmitter } from 'node:events';
import { EnergyApiError } from './errors.js';
import type { RateLimitState, RequestPriority } from './types.js';

export interface LimiterOptions {
  /** Requests per second allowed for the key (spec samples: 5). */
  tps?: number;
  /** Requests per UTC day allowed for the key (spec samples: 10000). */
  tpd?: number;
  /** Clock in ms; defaults to Date.now. */
  now?: () => number;
}

/** Headers are read case-insensitively; axios lower-cases them. */
export type HeaderBag = Record<string, unknown>;

const PRIORITY: Record<RequestPriority, number> = { interactive: 1, normal: 5, bulk: 8 };
/** Added to the 1/tps spacing so that requests never bunch inside one second at the service. */
const SPACING_MARGIN_MS = 10;
const DAY_MS = 86_400_000;
/** A generic X-RateLimit-Reset further away than this describes the daily limit. */
const DAILY_RESET_THRESHOLD_S = 60;

const PAUSED = Symbol('paused');

/**
 * The one rate limiter of a key: requests are pipelined at the key's per-second rate (never more in
 * any one-second window), higher priorities first, the daily budget is never overdrawn, and after
 * a 429 everything waits as the service asked.
 */
export class RateLimiter extends EventEmitter {
  private readonly bottleneck: Bottleneck;
  private readonly now: () => number;
  private tps: number;
  private tpd: number;
  private dailyRemaining: number;
  private dailyResetAtMs: number;
  private pausedUntilMs = 0;
  private lastStartMs = 0;
  private stopped = false;

  constructor(options: LimiterOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
    this.tps = positive(options.tps, 5);
    this.tpd = positive(options.tpd, 10000);
    this.dailyRemaining = this.tpd;
    this.dailyResetAtMs = nextUtcMidnight(this.now());
    this.bottleneck = new Bottleneck({ minTime: this.spacingMs(), maxConcurrent: 1 });
  }

  /** Runs `task` when the key's limits allow it. Rejects with DAILY_LIMIT when today's budget is spent. */
  async schedule<T>(priority: RequestPriority, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (;;) {
      this.throwIfUnusable(signal);
      // A job only starts the request: the limiter's one slot is free again at once, so requests are
      // pipelined while the queue behind it stays ordered by priority.
      const started = await this.bottleneck
        .schedule({ priority: PRIORITY[priority] }, async () => {
          if (this.now() < this.pausedUntilMs) return PAUSED;
          this.throwIfUnusable(signal);
          this.takeFromDailyBudget();
          this.lastStartMs = this.now();
          const running = task();
          running.catch(() => undefined);
          return { running };
        })
        .catch((err: unknown) => {
          if (err instanceof Bottleneck.BottleneckError) throw aborted();
          throw err;
        });
      if (started !== PAUSED) return started.running;
      await sleep(this.pausedUntilMs - this.now(), signal);
    }
  }

  /** Makes every request wait until `untilMs` (after a 429). */
  pauseUntil(untilMs: number): void {
    if (untilMs > this.pausedUntilMs) {
      this.pausedUntilMs = untilMs;
      this.emitState();
    }
  }

  /** Learns the key's real limits from a response's headers (both the spec's and the live service's forms). */
  learn(headers: HeaderBag): void {
    const tpsLimit = header(headers, 'x-ratelimit-tpslimit');
    const tpdLimit = header(headers, 'x-ratelimit-tpdlimit');
    const tpdRemaining = header(headers, 'x-ratelimit-tpdremaining');
    const tpdReset = header(headers, 'x-ratelimit-tpdreset');
    if (tpsLimit !== undefined) this.setTps(tpsLimit);
    if (tpdLimit !== undefined) this.tpd = tpdLimit;
    if (tpdRemaining !== undefined) this.setDailyRemaining(tpdRemaining, tpdReset);

    const limit = header(headers, 'x-ratelimit-limit');
    const remaining = header(headers, 'x-ratelimit-remaining');
    const reset = header(headers, 'x-ratelimit-reset');
    if (limit !== undefined && reset !== undefined && tpdLimit === undefined) {
      const daily = reset - this.now() / 1000 > DAILY_RESET_THRESHOLD_S;
      if (daily) {
        this.tpd = limit;
        if (remaining !== undefined) this.setDailyRemaining(remaining, reset);
      } else if (tpsLimit === undefined) {
        this.setTps(limit);
      }
    }
    this.emitState();
  }

  /** The service said the daily budget is spent (TOO_MANY_REQUESTS_TPD). */
  exhaustDailyBudget(resetAtS?: number): void {
    this.dailyRemaining = 0;
    if (resetAtS) this.dailyResetAtMs = resetAtS * 1000;
    this.emitState();
  }

  state(): RateLimitState {
    this.rollDay();
    const counts = this.bottleneck.counts();
    return {
      tps: this.tps,
      tpd: this.tpd,
      dailyRemaining: this.dailyRemaining,
      dailyResetAt: Math.floor(this.dailyResetAtMs / 1000),
      queued: counts.QUEUED + counts.RECEIVED,
      throttled: this.now() < this.pausedUntilMs,
    };
  }

  /** Drops everything still queued; later calls reject with ABORTED. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.removeAllListeners();
    await this.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  private spacingMs(): number {
    return Math.ceil(1000 / this.tps) + SPACING_MARGIN_MS;
  }

  private setTps(tps: number): void {
    if (tps > 0 && tps !== this.tps) {
      const slower = tps < this.tps;
      this.tps = tps;
      this.bottleneck.updateSettings({ minTime: this.spacingMs() });
      // The next start was already timed at the old rate: hold everything until the new spacing has passed.
      if (slower) this.pauseUntil(this.lastStartMs + this.spacingMs());
    }
  }

  private setDailyRemaining(remaining: number, resetAtS: number | undefined): void {
    if (resetAtS !== undefined && resetAtS * 1000 > this.now()) this.dailyResetAtMs = resetAtS * 1000;
    // Responses arrive out of order: the smaller count is the newer one within a day.
    this.dailyRemaining = Math.max(0, Math.min(this.dailyRemaining, remaining));
  }

  private rollDay(): void {
    if (this.now() >= this.dailyResetAtMs) {
      this.dailyRemaining = this.tpd;
      this.dailyResetAtMs = nextUtcMidnight(this.now());
    }
  }

  private takeFromDailyBudget(): void {
    this.rollDay();
    if (this.dailyRemaining <= 0) {
      const resetAt = Math.floor(this.dailyResetAtMs / 1000);
      throw new EnergyApiError({
        code: 'DAILY_LIMIT',
        message: `the key's daily request budget (${this.tpd}) is spent; it resets at ${new Date(this.dailyResetAtMs).toISOString()}`,
        rateLimit: { limit: this.tpd, remaining: 0, resetAt, scope: 'tpd' },
        sent: false,
      });
    }
    this.dailyRemaining -= 1;
  }

  private throwIfUnusable(signal?: AbortSignal): void {
    if (this.stopped || signal?.aborted) throw aborted();
  }

  private emitState(): void {
    this.emit('state', this.state());
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

export function header(headers: HeaderBag, name: string): number | undefined {
  const raw = headers[name] ?? headers[name.toLowerCase()];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(value) ? value : undefined;
}

/** Waits `ms`, or rejects with ABORTED as soon as `signal` fires; leaves no timer behind. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function aborted(): EnergyApiError {
  return new EnergyApiError({ code: 'ABORTED', message: 'the request was cancelled', sent: false });
}
