// A small client of Amber Electric's public price API (no Node-RED): GET /sites and
// /sites/{siteId}/prices/current, bearer key, one limiter per key in the process (api/outside-limits.ts) whose rules
// follow the IETF RateLimit headers Amber sends (RateLimit-Remaining, RateLimit-Reset in seconds) and, after a 429 or
// with none remaining, send nothing on that key until the window resets. It never retries on its own: its caller polls
// on a schedule and simply tries again at the next slot.
import { describeKey, redactKey } from '../api/errors.js';
import { OutsideServiceError } from '../api/outside-errors.js';
import { checkBaseUrl, getJson, headerNumber } from '../api/outside-http.js';
import { acquireOutsideLimiter, type OutsideLimiter, type OutsideRules } from '../api/outside-limits.js';
import type { Lease } from '../api/shared-resources.js';

export const AMBER_BASE_URL = 'https://api.amber.com.au/v1';
/** Amber's documented cap on previous + next + 1. */
export const AMBER_MAX_INTERVALS = 2048;
/** After a 429 without a RateLimit-Reset header. */
const DEFAULT_BLOCK_S = 60;
const AMBER = 'Amber';

/**
 * Amber states no fixed pace or daily budget: each answer carries the key's window in the IETF RateLimit headers
 * (RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset in seconds), and nothing is sent once none remain.
 */
export const AMBER_RULES: OutsideRules = {
  provider: AMBER,
  holdAfter(answer, nowMs) {
    const remaining = headerNumber(answer.headers, 'ratelimit-remaining');
    if (answer.status !== 429 && remaining !== 0) return undefined;
    return nowMs + (headerNumber(answer.headers, 'ratelimit-reset') ?? DEFAULT_BLOCK_S) * 1000;
  },
  statedLimit: (answer) => headerNumber(answer.headers, 'ratelimit-limit'),
};

export interface AmberClientOptions {
  baseUrl?: string;
  apiKey: string;
  /** Clock (ms) of the key's limiter; default Date.now. */
  now?: () => number;
  timeoutMs?: number;
}

export interface CurrentPricesQuery {
  next: number;
  previous: number;
  resolution: 5 | 30;
}

export class AmberClient {
  private readonly baseUrl: string;
  /** The key's limiter, shared by every client of the same address and key in the process. */
  private readonly limits: Lease<OutsideLimiter>;
  private readonly apiKey: string;
  private readonly now: () => number;
  private readonly timeoutMs?: number;

  constructor(options: AmberClientOptions) {
    if (!options.apiKey) throw OutsideServiceError.invalid(AMBER, 'no Amber API key: enter it in the node (a password credential)');
    this.baseUrl = checkBaseUrl(options.baseUrl || AMBER_BASE_URL, AMBER);
    this.apiKey = options.apiKey;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs;
    this.limits = acquireOutsideLimiter(AMBER_RULES, this.baseUrl, options.apiKey, this.now);
  }

  /** Node-clock ms until which the key must wait (0 = free now). */
  get blockedUntil(): number {
    return this.limits.value.blockedUntil;
  }

  /** Lets go of the key's limiter (stopped with its last client). */
  close(): Promise<void> {
    return this.limits.release();
  }

  sites(signal?: AbortSignal): Promise<unknown[]> {
    return this.getList('/sites', {}, signal);
  }

  currentPrices(siteId: string, query: CurrentPricesQuery, signal?: AbortSignal): Promise<unknown[]> {
    if (!/^[A-Za-z0-9]{1,64}$/.test(siteId)) throw OutsideServiceError.invalid(AMBER, `the site id "${siteId.slice(0, 30)}" is not an Amber site id (letters and digits, as GET /sites lists them)`);
    if (query.next + query.previous + 1 > AMBER_MAX_INTERVALS) throw OutsideServiceError.invalid(AMBER, `Amber answers at most ${AMBER_MAX_INTERVALS} intervals a request`);
    return this.getList(`/sites/${siteId}/prices/current`, { next: query.next, previous: query.previous, resolution: query.resolution }, signal);
  }

  private async getList(path: string, params: Record<string, number>, signal?: AbortSignal): Promise<unknown[]> {
    const blocked = this.blockedUntil;
    if (blocked > 0) {
      throw new OutsideServiceError({
        provider: AMBER, status: 0, code: 'RATE_LIMITED', sent: false, method: 'GET', path,
        message: `Amber's rate limit for key ${describeKey(this.apiKey)} resets in ${Math.ceil((blocked - this.now()) / 1000)} s: nothing sent before then`,
        rateLimit: { limit: this.limits.value.statedLimit, remaining: 0, resetAt: Math.ceil(blocked / 1000) },
      });
    }
    const answer = await this.limits.value.send(path, () => getJson(`${this.baseUrl}${path}`, {
      params, signal, secret: this.apiKey, provider: AMBER, timeoutMs: this.timeoutMs, headers: { Authorization: `Bearer ${this.apiKey}` },
    }), signal);
    const body = answer.body;
    if (answer.status === 200 && Array.isArray(body)) return body;
    const said = body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? redactKey((body as { message: string }).message, this.apiKey).slice(0, 200) : undefined;
    const meaning: Record<number, string> = {
      400: 'the request is malformed', 401: `the Amber API key ${describeKey(this.apiKey)} was not accepted`, 404: 'the site was not found (check the site id with GET /sites)',
      422: 'Amber refused the request', 429: `Amber's rate limit for key ${describeKey(this.apiKey)} is reached`,
    };
    const code = answer.status === 200 ? 'BAD_RESPONSE' : answer.status === 429 ? 'TOO_MANY_REQUESTS' : `HTTP_${answer.status}`;
    throw new OutsideServiceError({
      provider: AMBER, status: answer.status, code, method: 'GET', path, apiMessage: said,
      message: answer.status === 200 ? 'Amber answered with something that is not a list of intervals' : `${answer.status}: ${meaning[answer.status] ?? 'Amber answered with an error'}${said ? ` (${said})` : ''}`,
      rateLimit: answer.status === 429 ? { limit: this.limits.value.statedLimit, remaining: 0, resetAt: Math.ceil(this.blockedUntil / 1000) } : undefined,
    });
  }
}
