import { EventEmitter, setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { EnergyApiError } from './errors.js';
import { LocalPaceStore, type PaceDecision, type PaceStore, type PaceTicket } from './pace-store.js';
import type { RateLimitState, RequestPriority } from './types.js';

export interface LimiterOptions {
  /** Requests per second assumed until the service's headers say otherwise (default 5, the live service's floor; Infinity: no pace). */
  tps?: number;
  /** Requests per UTC day allowed for the key until the service says otherwise (default 10000; Infinity: no daily budget). */
  tpd?: number;
  /** Wall clock in ms (default Date.now): decides the day of the daily budget. */
  now?: () => number;
  /** Extra ms added to the one-second window (default 25); widened after a 429 TPS. */
  marginMs?: number;
  /** Monotonic clock in ms for the per-second window (default performance.now); real time, never a test's frozen clock. */
  monotonic?: () => number;
  /**
   * Where the window over the wire lives (default: in this process). The limiter owns it and closes it on stop.
   */
  store?: PaceStore;
}

/** Headers are read case-insensitively; axios lower-cases them. */
export type HeaderBag = Record<string, unknown>;

/** Called by a task once its request is written to the socket: from then on the service may count it. */
export type MarkSent = () => void;

const PRIORITIES: readonly RequestPriority[] = ['interactive', 'normal', 'bulk'];
const WINDOW_MS = 1000;
const DEFAULT_MARGIN_MS = 25;
const MAX_MARGIN_MS = 400;
/**
 * Of a late start's delay, at most this much is made up by starting the next ones sooner. The sliding window
 * still holds; what is made up arrives as a short run of back-to-back requests.
 */
const CATCH_UP_MS = 50;
/** After this many starts without a 429 TPS, a widened margin narrows again by a quarter. */
const CLEAN_STARTS_TO_NARROW = 100;
const DAY_MS = 86_400_000;
/** A generic X-RateLimit-Reset further away than this describes the daily limit. */
const DAILY_RESET_THRESHOLD_S = 60;
/** A bare reset value above this is a unix time; below, seconds remaining (the live service's form). */
const UNIX_TIME_THRESHOLD = 1e9;

interface Waiter {
  /** Monotonic ms when it was queued: it cannot have been due before. */
  queuedAt: number;
  run: (ticket: PaceTicket) => void;
  fail: (err: unknown) => void;
  cancelled: boolean;
}

/**
 * The one rate limiter of a key. Requests are pipelined and spread evenly, and never more than the
 * key's per-second limit start within any window of one second plus a safety margin (a sliding window
 * over the moments requests reached the wire, so a stalled event loop cannot bunch them); interactive requests go
 * first; the daily budget is never overdrawn; after a 429 everything waits as the service asked.
 */
export class RateLimiter extends EventEmitter {
  private readonly now: () => number;
  private readonly monotonic: () => number;
  private readonly baseMarginMs: number;
  private readonly queues: Record<RequestPriority, Waiter[]> = { interactive: [], normal: [], bulk: [] };
  private readonly store: PaceStore;
  /** A decision of the store is on its way (a shared store answers later): nothing else is asked meanwhile. */
  private asking = false;
  private tps: number;
  private tpd: number;
  private marginMs: number;
  private cleanStarts = 0;
  private dailyRemaining: number;
  private dailyResetAtMs: number;
  /** This process's view of the pause after a 429 (the store holds the pause every start obeys). */
  private pausedUntil = 0;
  private remainingHeard = false;
  private remainingHeardAtLimit = 0;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private stopped = false;

  constructor(options: LimiterOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.store = options.store ?? new LocalPaceStore(this.monotonic);
    this.tps = positive(options.tps, 5);
    this.tpd = positive(options.tpd, 10000);
    this.baseMarginMs = options.marginMs !== undefined && options.marginMs >= 0 ? options.marginMs : DEFAULT_MARGIN_MS;
    this.marginMs = this.baseMarginMs;
    this.dailyRemaining = this.tpd;
    this.dailyResetAtMs = nextUtcMidnight(this.now());
  }

  /**
   * Runs `task` when the key's limits allow it; the task calls `markSent` when its request is on the
   * wire. Rejects with DAILY_LIMIT when today's budget is spent, ABORTED when `signal` fires first.
   */
  schedule<T>(priority: RequestPriority, task: (markSent: MarkSent) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.stopped || signal?.aborted) return reject(aborted());
      const onAbort = () => {
        waiter.cancelled = true;
        reject(aborted());
      };
      const waiter: Waiter = {
        queuedAt: this.monotonic(),
        cancelled: false,
        fail: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
        run: (ticket) => {
          signal?.removeEventListener('abort', onAbort);
          let sent = false;
          const markSent = () => {
            if (sent) return;
            sent = true;
            ticket.sent();
            this.pump();
          };
          let running: Promise<T>;
          try {
            running = task(markSent);
          } catch (err) {
            running = Promise.reject(err);
          }
          running.finally(() => {
            ticket.settled();
            this.pump();
          }).catch(() => undefined);
          resolve(running);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queues[priority].push(waiter);
      this.pump();
    });
  }

  /** True while every request waits after a 429 (see pauseFor). */
  get paused(): boolean {
    return this.monotonic() < this.pausedUntil;
  }

  /** Ms until the pause after a 429 ends, on the monotonic clock (0: not paused). */
  pauseLeftMs(): number {
    return Math.max(0, this.pausedUntil - this.monotonic());
  }

  /** Makes every request wait `ms` from now (after a 429). */
  pauseFor(ms: number): void {
    const until = this.monotonic() + Math.max(0, ms);
    if (until > this.pausedUntil) {
      this.pausedUntil = until;
      this.store.pauseFor(ms);
      this.emitState();
      this.pump();
    }
  }

  /** The service refused a request for the per-second limit although the window held: the margin was too thin. */
  widenMargin(): void {
    this.marginMs = Math.min(MAX_MARGIN_MS, Math.max(this.marginMs * 2, this.marginMs + 50));
    this.cleanStarts = 0;
    this.emitState();
  }

  /**
   * Learns the key's real limits from a response's headers (the live service's form and the spec's).
   * `refused` names the limit a 429 was for, which the generic X-RateLimit-* headers then describe.
   */
  learn(headers: HeaderBag, refused?: 'tps' | 'tpd' | 'server'): void {
    const nowS = this.now() / 1000;
    const tpsLimit = header(headers, 'x-ratelimit-tpslimit');
    const tpdLimit = header(headers, 'x-ratelimit-tpdlimit');
    const tpdRemaining = header(headers, 'x-ratelimit-tpdremaining');
    const tpdReset = header(headers, 'x-ratelimit-tpdreset');
    if (tpsLimit !== undefined) this.setTps(tpsLimit);
    if (tpdLimit !== undefined) this.setTpd(tpdLimit);
    if (tpdRemaining !== undefined) this.setDailyRemaining(tpdRemaining, resetInSeconds(tpdReset, nowS));

    const limit = header(headers, 'x-ratelimit-limit');
    const remaining = header(headers, 'x-ratelimit-remaining');
    const resetIn = resetInSeconds(header(headers, 'x-ratelimit-reset'), nowS);
    // On a 429 the generic headers describe the limit that refused it (its reset may be on another clock).
    if (refused === 'tps' && limit !== undefined && tpsLimit === undefined) this.setTps(limit);
    else if (refused === 'tpd' && limit !== undefined && tpdLimit === undefined) this.setTpd(limit);
    else if (refused === undefined && limit !== undefined && resetIn !== undefined && tpdLimit === undefined) {
      if (resetIn > DAILY_RESET_THRESHOLD_S) {
        this.setTpd(limit);
        if (remaining !== undefined) this.setDailyRemaining(remaining, resetIn);
      } else if (tpsLimit === undefined) {
        this.setTps(limit);
      }
    }
    this.emitState();
  }

  /**
   * Takes the key's limits as the instances sharing it have learnt them (the same figures `state()` gives, from
   * another process's limiter): the per-second and daily limits, and the daily count with its reset (unix seconds).
   */
  adoptShared(figures: { tps?: number; tpd?: number; dailyRemaining?: number; dailyResetAt?: number }): void {
    if (figures.tps !== undefined) this.setTps(figures.tps);
    if (figures.tpd !== undefined) this.setTpd(figures.tpd);
    if (figures.dailyRemaining !== undefined && Number.isFinite(figures.dailyRemaining)) {
      const resetAt = figures.dailyResetAt;
      this.setDailyRemaining(figures.dailyRemaining, resetAt !== undefined && Number.isFinite(resetAt) ? resetAt - this.now() / 1000 : undefined);
    }
    this.emitState();
  }

  /** The service said the daily budget is spent (TOO_MANY_REQUESTS_TPD); `resetInS` seconds from now when known. */
  exhaustDailyBudget(resetInS?: number): void {
    this.dailyRemaining = 0;
    if (resetInS !== undefined && resetInS > 0) this.dailyResetAtMs = this.now() + resetInS * 1000;
    this.emitState();
  }

  state(): RateLimitState {
    this.rollDay();
    return {
      tps: this.tps,
      tpd: this.tpd,
      dailyRemaining: this.dailyRemaining,
      dailyResetAt: Math.floor(this.dailyResetAtMs / 1000),
      queued: PRIORITIES.reduce((sum, p) => sum + this.queues[p].filter((w) => !w.cancelled).length, 0),
      throttled: this.monotonic() < this.pausedUntil,
      marginMs: this.marginMs,
    };
  }

  /** Drops everything still queued (rejected with ABORTED) and clears the timer. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clearTimer();
    for (const p of PRIORITIES) {
      for (const waiter of this.queues[p].splice(0)) if (!waiter.cancelled) waiter.fail(aborted());
    }
    this.removeAllListeners();
    await this.store.close();
  }

  /** Starts every waiter the store allows, highest priority first, and sets one timer for the next. */
  private pump(): void {
    if (this.stopped || this.asking) return;
    for (;;) {
      const waiter = this.nextWaiter();
      if (!waiter) return this.clearTimer();
      // A spent daily budget refuses at once: the window is not asked for a start that cannot be made.
      const spent = this.dailyLimitError();
      if (spent) {
        this.takeWaiter();
        waiter.fail(spent);
        continue;
      }
      const windowMs = WINDOW_MS + this.marginMs;
      const decision = this.store.tryStart({
        tps: this.tps,
        windowMs,
        // Evenly spread at the window's rate: a burst of N at once reaches the service as a clump.
        spacingMs: windowMs / this.tps,
        // At 100/s a quarter spacing is 2.5 ms, and every longer delay would be lost for good.
        catchUpMs: CATCH_UP_MS,
        waitedMs: Math.max(0, this.monotonic() - waiter.queuedAt),
      });
      if (decision instanceof Promise) return this.awaitDecision(decision);
      if (!this.startOn(decision)) return;
    }
  }

  /** A shared store answers later: the pump goes on once it has. */
  private awaitDecision(decision: Promise<PaceDecision>): void {
    this.asking = true;
    this.clearTimer();
    decision.then(
      (d) => {
        this.asking = false;
        if (this.startOn(d)) this.pump();
      },
      () => {
        // A store that cannot answer says so through its own status; the queue asks again shortly.
        this.asking = false;
        this.wakeIn(CATCH_UP_MS);
      },
    );
  }

  /** Starts the first waiter on a granted start (true), or waits as the store said (false). */
  private startOn(decision: PaceDecision): boolean {
    if ('waitMs' in decision) {
      if (decision.waitMs === Infinity) this.clearTimer();
      else this.wakeIn(decision.waitMs);
      return false;
    }
    const waiter = this.stopped ? undefined : this.nextWaiter();
    if (!waiter) {
      decision.ticket.settled();
      return false;
    }
    this.takeWaiter();
    try {
      this.takeFromDailyBudget();
    } catch (err) {
      decision.ticket.settled();
      waiter.fail(err);
      return true;
    }
    this.noteCleanStart();
    waiter.run(decision.ticket);
    return true;
  }

  private nextWaiter(): Waiter | undefined {
    for (const p of PRIORITIES) {
      const queue = this.queues[p];
      while (queue.length && queue[0].cancelled) queue.shift();
      if (queue.length) return queue[0];
    }
    return undefined;
  }

  private takeWaiter(): void {
    for (const p of PRIORITIES) if (this.queues[p].length) return void this.queues[p].shift();
  }

  private wakeIn(ms: number): void {
    const at = this.monotonic() + ms;
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.ceil(ms));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private noteCleanStart(): void {
    if (this.marginMs <= this.baseMarginMs) return;
    this.cleanStarts += 1;
    if (this.cleanStarts >= CLEAN_STARTS_TO_NARROW) {
      this.cleanStarts = 0;
      this.marginMs = Math.max(this.baseMarginMs, Math.round(this.marginMs * 0.75));
    }
  }

  private setTps(tps: number): void {
    if (tps > 0 && Number.isFinite(tps) && tps !== this.tps) {
      this.tps = Math.floor(tps) || 1;
      this.pump();
    }
  }

  private setTpd(tpd: number): void {
    if (tpd > 0 && Number.isFinite(tpd)) this.tpd = tpd;
  }

  private setDailyRemaining(remaining: number, resetInS: number | undefined): void {
    let trustAsIs = !this.remainingHeard || this.tpd !== this.remainingHeardAtLimit;
    if (resetInS !== undefined && resetInS > 0) {
      const resetAt = this.now() + resetInS * 1000;
      // A new day at the service: its count starts over, whatever we counted before.
      if (resetAt > this.dailyResetAtMs + 60_000) trustAsIs = true;
      this.dailyResetAtMs = resetAt;
    }
    // Within one day and one limit, responses arrive out of order: the smaller count is the newer one.
    this.dailyRemaining = Math.max(0, trustAsIs ? remaining : Math.min(this.dailyRemaining, remaining));
    this.remainingHeard = true;
    this.remainingHeardAtLimit = this.tpd;
  }

  private rollDay(): void {
    if (this.now() >= this.dailyResetAtMs) {
      this.dailyRemaining = this.tpd;
      this.remainingHeard = false;
      this.dailyResetAtMs = nextUtcMidnight(this.now());
    }
  }

  private takeFromDailyBudget(): void {
    const spent = this.dailyLimitError();
    if (spent) throw spent;
    this.dailyRemaining -= 1;
  }

  /** DAILY_LIMIT when today's budget is spent, else undefined. */
  private dailyLimitError(): EnergyApiError | undefined {
    this.rollDay();
    if (this.dailyRemaining > 0) return undefined;
    const resetAt = Math.floor(this.dailyResetAtMs / 1000);
    return new EnergyApiError({
      code: 'DAILY_LIMIT',
      message: `the key's daily request budget (${this.tpd}) is spent; it resets at ${new Date(this.dailyResetAtMs).toISOString()}`,
      rateLimit: { limit: this.tpd, remaining: 0, resetAt, scope: 'tpd' },
      sent: false,
    });
  }

  private emitState(): void {
    this.emit('state', this.state());
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && !Number.isNaN(value) && value > 0 ? value : fallback;
}

function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

/**
 * Seconds until a reset, from either form: the live service sends seconds remaining (`1.595`, `86401`),
 * the spec a unix time. A value above 10^9 can only be a unix time.
 */
export function resetInSeconds(reset: number | undefined, nowS: number): number | undefined {
  if (reset === undefined || reset < 0) return undefined;
  return reset > UNIX_TIME_THRESHOLD ? reset - nowS : reset;
}

export function header(headers: HeaderBag, name: string): number | undefined {
  const raw = headers[name] ?? headers[name.toLowerCase()];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(value) ? value : undefined;
}

/** Waits `ms`, or rejects with ABORTED as soon as `signal` fires; leaves no timer or listener behind. */
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

/**
 * A signal that fires when any of `signals` does, with `dispose` removing its listeners. Unlike
 * AbortSignal.any it leaves nothing attached to long-lived signals once the call ends.
 */
export function linkSignals(...signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  // Every request of a range call listens to this one signal while it runs.
  setMaxListeners(0, controller.signal);
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = () => controller.abort();
  if (present.some((s) => s.aborted)) controller.abort();
  else for (const s of present) s.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of present) s.removeEventListener('abort', onAbort);
    },
  };
}

export function aborted(): EnergyApiError {
  return new EnergyApiError({ code: 'ABORTED', message: 'the request was cancelled', sent: false });
}
