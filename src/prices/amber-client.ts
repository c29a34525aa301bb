// A small client of Amber Electric's public price API (no Node-RED): GET /sites and
// /sites/{siteId}/prices/current, bearer key, one gate per key in the process that follows the IETF
// RateLimit headers Amber sends (RateLimit-Remaining, RateLimit-Reset in seconds) and, after a 429,
// sends nothing on that key until the window resets. It never retries on its own: its caller polls on a
// schedule and simply tries again at the next slot.
import axios, { type AxiosInstance } from 'axios';
import { createHash } from 'node:crypto';
import { EnergyApiError, describeKey, redactKey } from '../api/errors.js';

export const AMBER_BASE_URL = 'https://api.amber.com.au/v1';
/** Amber's documented cap on previous + next + 1. */
export const AMBER_MAX_INTERVALS = 2048;
/** After a 429 without a RateLimit-Reset header. */
const DEFAULT_BLOCK_S = 60;

export interface AmberClientOptions {
  baseUrl?: string;
  apiKey: string;
  /** Clock (ms) of the rate-limit gate; default Date.now. */
  now?: () => number;
  timeoutMs?: number;
}

export interface CurrentPricesQuery {
  next: number;
  previous: number;
  resolution: 5 | 30;
}

/** What a key may do now: shared by every client of the same base address and key in the process. */
interface KeyGate {
  /** Node-clock ms before which nothing is sent (the window after a 429 or with nothing remaining). */
  blockedUntil: number;
  limit?: number;
  remaining?: number;
}

const gates = new Map<string, KeyGate>();

function gateFor(baseUrl: string, apiKey: string): KeyGate {
  const id = `${baseUrl}\n${createHash('sha256').update(apiKey).digest('hex')}`;
  let gate = gates.get(id);
  if (!gate) gates.set(id, (gate = { blockedUntil: 0 }));
  return gate;
}

const headerNumber = (headers: Record<string, unknown>, name: string): number | undefined => {
  const raw = headers[name];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

export class AmberClient {
  private readonly http: AxiosInstance;
  private readonly gate: KeyGate;
  private readonly apiKey: string;
  private readonly now: () => number;

  constructor(options: AmberClientOptions) {
    const baseUrl = (options.baseUrl || AMBER_BASE_URL).replace(/\/+$/, '');
    if (!/^https:\/\//.test(baseUrl) && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(baseUrl)) {
      throw EnergyApiError.invalid('the price API address must be https:// (plain http:// only on this machine: 127.0.0.1 or localhost)');
    }
    if (!options.apiKey) throw EnergyApiError.invalid('no Amber API key: enter it in the node (a password credential)');
    this.apiKey = options.apiKey;
    this.now = options.now ?? Date.now;
    this.gate = gateFor(baseUrl, options.apiKey);
    this.http = axios.create({
      baseURL: baseUrl,
      timeout: options.timeoutMs ?? 30_000,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
      validateStatus: () => true,
      maxRedirects: 0,
      proxy: false,
      headers: { Accept: 'application/json', Authorization: `Bearer ${options.apiKey}` },
    });
  }

  /** Node-clock ms until which the key must wait (0 = free now). */
  get blockedUntil(): number {
    return this.gate.blockedUntil > this.now() ? this.gate.blockedUntil : 0;
  }

  sites(signal?: AbortSignal): Promise<unknown[]> {
    return this.getList('/sites', {}, signal);
  }

  currentPrices(siteId: string, query: CurrentPricesQuery, signal?: AbortSignal): Promise<unknown[]> {
    if (!/^[A-Za-z0-9]{1,64}$/.test(siteId)) throw EnergyApiError.invalid(`the site id "${siteId.slice(0, 30)}" is not an Amber site id (letters and digits, as GET /sites lists them)`);
    if (query.next + query.previous + 1 > AMBER_MAX_INTERVALS) throw EnergyApiError.invalid(`Amber answers at most ${AMBER_MAX_INTERVALS} intervals a request`);
    return this.getList(`/sites/${siteId}/prices/current`, { next: query.next, previous: query.previous, resolution: query.resolution }, signal);
  }

  private async getList(path: string, params: Record<string, number>, signal?: AbortSignal): Promise<unknown[]> {
    const blocked = this.blockedUntil;
    if (blocked > 0) {
      throw new EnergyApiError({
        status: 0, code: 'RATE_LIMITED', sent: false, method: 'GET', path,
        message: `Amber's rate limit for key ${describeKey(this.apiKey)} resets in ${Math.ceil((blocked - this.now()) / 1000)} s: nothing sent before then`,
        rateLimit: { limit: this.gate.limit, remaining: 0, resetAt: Math.ceil(blocked / 1000) },
      });
    }
    let response;
    try {
      response = await this.http.get<string>(path, { params, signal });
    } catch (err) {
      const code = axios.isCancel(err) ? 'ABORTED' : (err as { code?: string }).code === 'ECONNABORTED' ? 'TIMEOUT' : 'NETWORK';
      const reason = redactKey(err instanceof Error ? err.message : String(err), this.apiKey);
      throw new EnergyApiError({ status: 0, code, sent: false, method: 'GET', path, message: `Amber could not be reached: ${reason}` });
    }
    this.learn(response.headers as Record<string, unknown>, response.status);
    const body = parse(response.data);
    if (response.status === 200 && Array.isArray(body)) return body;
    const said = body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? redactKey((body as { message: string }).message, this.apiKey).slice(0, 200) : undefined;
    const meaning: Record<number, string> = {
      400: 'the request is malformed', 401: `the Amber API key ${describeKey(this.apiKey)} was not accepted`, 404: 'the site was not found (check the site id with GET /sites)',
      422: 'Amber refused the request', 429: `Amber's rate limit for key ${describeKey(this.apiKey)} is reached`,
    };
    const code = response.status === 200 ? 'BAD_RESPONSE' : response.status === 429 ? 'TOO_MANY_REQUESTS' : `HTTP_${response.status}`;
    throw new EnergyApiError({
      status: response.status, code, method: 'GET', path, apiMessage: said,
      message: response.status === 200 ? 'Amber answered with something that is not a list of intervals' : `${response.status}: ${meaning[response.status] ?? 'Amber answered with an error'}${said ? ` (${said})` : ''}`,
      rateLimit: response.status === 429 ? { limit: this.gate.limit, remaining: 0, resetAt: Math.ceil(this.gate.blockedUntil / 1000) } : undefined,
    });
  }

  /** Follows RateLimit-Remaining and RateLimit-Reset: with none left, or after a 429, nothing is sent until the reset. */
  private learn(headers: Record<string, unknown>, status: number): void {
    const remaining = headerNumber(headers, 'ratelimit-remaining');
    const resetS = headerNumber(headers, 'ratelimit-reset');
    const limit = headerNumber(headers, 'ratelimit-limit');
    if (limit !== undefined) this.gate.limit = limit;
    if (remaining !== undefined) this.gate.remaining = remaining;
    if (status === 429 || remaining === 0) this.gate.blockedUntil = this.now() + (resetS ?? DEFAULT_BLOCK_S) * 1000;
    else if (status < 400) this.gate.blockedUntil = 0;
  }
}

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
