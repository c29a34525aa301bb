/**
 * The limits of the services beside the energy API (Amber's prices, the forecast sources): the energy API's
 * RateLimiter (one algorithm, over a PaceStore) with each provider's own rules, one per provider, address and key in
 * the process, held by its users and stopped with its last. A provider's headers are read by its rules only: the
 * limiter's X-RateLimit-* reading is the energy API's and would misread them (Forecast.Solar's X-Ratelimit-Limit is
 * an hour's count, not a second's).
 */
import { createHash } from 'node:crypto';
import { isEnergyApiError } from './errors.js';
import { RateLimiter } from './limiter.js';
import type { HttpAnswer } from './outside-http.js';
import { OutsideServiceError } from './outside-errors.js';
import { SharedResources, type Lease } from './shared-resources.js';

/** A provider's rules, as its documentation states them. */
export interface OutsideRules {
  /** Who answers, for errors: "Forecast.Solar". */
  provider: string;
  /** Requests a second, paced evenly; none when the provider states none. */
  perSecond?: number;
  /** Requests a UTC day for the key (or address), counted in this process; none when the provider states none. */
  perDay?: number;
  /**
   * Requests in any 60 minutes for the key (or address), counted in this process; none when the provider states none.
   * A moving hour keeps to a limit the provider counts by the clock's hour too.
   */
  perHour?: number;
  /** Clock ms before which nothing more is sent, when an answer says so (a 429, nothing remaining); else undefined. */
  holdAfter(answer: HttpAnswer, nowMs: number): number | undefined;
  /** The limit the provider states for the key in an answer, for errors. */
  statedLimit?(answer: HttpAnswer): number | undefined;
}

/** One provider key's limiter: what its users send goes through here, and a hold one of them hears holds all. */
export class OutsideLimiter {
  private readonly limiter: RateLimiter;
  private limit?: number;
  /** Clock ms of the requests sent in the last hour, oldest first (perHour only). */
  private readonly sentInHour: number[] = [];

  constructor(readonly rules: OutsideRules, private readonly now: () => number) {
    // The provider states its resets on the wall clock, the node's: the limiter runs on it. No pace unless the rules
    // state one, so a frozen test clock never holds a request back.
    this.limiter = new RateLimiter({ tps: rules.perSecond ?? Infinity, tpd: rules.perDay ?? Infinity, now, monotonic: now, marginMs: 0 });
  }

  /** Clock ms before which nothing is sent on the key (0: free now). */
  get blockedUntil(): number {
    const left = this.limiter.pauseLeftMs();
    return Math.max(left > 0 ? this.now() + left : 0, this.hourFullUntil());
  }

  /** Clock ms when the oldest of a full hour's requests leaves it (0: the hour has room, or no hourly limit). */
  private hourFullUntil(): number {
    const { perHour } = this.rules;
    if (perHour === undefined) return 0;
    const hourAgo = this.now() - HOUR_MS;
    while (this.sentInHour.length > 0 && this.sentInHour[0] <= hourAgo) this.sentInHour.shift();
    return this.sentInHour.length >= perHour ? this.sentInHour[this.sentInHour.length - perHour] + HOUR_MS : 0;
  }

  /** The limit the provider last stated for the key, when it said one. */
  get statedLimit(): number | undefined {
    return this.limit;
  }

  /**
   * Sends one request when the rules allow it, and keeps to what the answer says. Refuses at once (RATE_LIMITED,
   * nothing sent) while the key is held or its daily budget is spent: the callers poll on a schedule.
   */
  async send(path: string, get: () => Promise<HttpAnswer>, signal?: AbortSignal): Promise<HttpAnswer> {
    const { provider } = this.rules;
    const blocked = this.blockedUntil;
    if (blocked > 0) {
      throw new OutsideServiceError({
        provider, status: 0, code: 'RATE_LIMITED', sent: false, method: 'GET', path,
        message: `${provider}'s limit is spent: nothing is sent before ${clock(blocked)} UTC`,
        rateLimit: { limit: this.limit, remaining: 0, resetAt: Math.ceil(blocked / 1000) },
      });
    }
    // Counted before it waits its turn: two callers at once cannot both take the hour's last request.
    if (this.rules.perHour !== undefined) this.sentInHour.push(this.now());
    let answer: HttpAnswer;
    try {
      answer = await this.limiter.schedule('normal', (markSent) => {
        markSent();
        return get();
      }, signal);
    } catch (err) {
      throw outsideError(err, provider, path);
    }
    this.limit = this.rules.statedLimit?.(answer) ?? this.limit;
    const until = this.rules.holdAfter(answer, this.now());
    if (until !== undefined && until > this.now()) this.limiter.pauseFor(until - this.now());
    return answer;
  }

  /** Refuses what still waits (ABORTED) and leaves no timer. */
  stop(): Promise<void> {
    return this.limiter.stop();
  }
}

/** The limiter's own refusals in the outside services' error family; the request's own errors as they are. */
function outsideError(err: unknown, provider: string, path: string): unknown {
  if (!isEnergyApiError(err)) return err;
  if (err.code === 'DAILY_LIMIT') {
    const resetAt = err.rateLimit?.resetAt;
    return new OutsideServiceError({
      provider, status: 0, code: 'RATE_LIMITED', sent: false, method: 'GET', path,
      message: `${provider}'s daily limit (${err.rateLimit?.limit}) is spent: nothing is sent before ${resetAt === undefined ? 'the next UTC day' : `${clock(resetAt * 1000)} UTC`}`,
      rateLimit: err.rateLimit,
    });
  }
  return new OutsideServiceError({ provider, status: 0, code: err.code, sent: false, method: 'GET', path, message: err.message });
}

const HOUR_MS = 3600_000;
const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

const limiters = new SharedResources<OutsideLimiter>((limiter) => limiter.stop());

/**
 * The one limiter of a provider's address and key (an empty key: the address is what the provider counts) in this
 * process; the first holder's clock runs it. Released by each holder; stopped with the last.
 */
export function acquireOutsideLimiter(rules: OutsideRules, baseUrl: string, apiKey = '', now: () => number = Date.now): Lease<OutsideLimiter> {
  // The key itself is never kept as a map key: only a digest of it.
  const id = `${rules.provider}\n${baseUrl}\n${createHash('sha256').update(apiKey).digest('hex')}`;
  return limiters.acquire(id, () => new OutsideLimiter(rules, now));
}
