import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import http from 'node:http';
import https from 'node:https';
import { setMaxListeners } from 'node:events';
import { EnergyApiError, describeKey, type ApiErrorDetail } from './errors.js';
import type { RateLimitFacts } from './http-error.js';
import { header, linkSignals, resetInSeconds, sleep, type MarkSent, type RateLimiter } from './limiter.js';
import { encodeQuery, type QueryParams } from './params.js';
import type { RequestPriority } from './types.js';
import { parseJsonInTurns } from './json.js';
import { ServiceHealth } from './service-health.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  limiter: RateLimiter;
  /** Per-attempt timeout. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 6. */
  maxRetries?: number;
  /** Backoff base and cap for 5xx, timeouts and resets. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  now?: () => number;
}

/**
 * A request's retries: `retrying` before each one (`attempt` 1 = the first retry, after `waitMs`);
 * the client adds `settled` once when a request that was retried ends, answered or failed.
 * `rateWait` tells that the request waits because the key is paused after a 429 (`waiting` true), and
 * once that wait is over (false: the request leaves, or is dropped).
 */
export type RetryInfo =
  | { kind: 'retrying'; attempt: number; waitMs: number; error: EnergyApiError }
  | { kind: 'settled'; retries: number }
  | { kind: 'rateWait'; waiting: boolean };

export interface RequestSpec {
  method: 'GET' | 'PATCH';
  path: string;
  query?: QueryParams;
  body?: unknown;
  priority?: RequestPriority;
  signal?: AbortSignal;
  /** Told of retries, so a caller can show that the request is not lost. */
  onRetry?: (retry: RetryInfo) => void;
}

export interface ApiResponse<T> {
  status: number;
  /** undefined for 204. */
  data: T | undefined;
}

type Attempt<T> =
  | { kind: 'done'; response: ApiResponse<T> }
  | { kind: 'retry'; error: EnergyApiError; waitMs?: number; processed: boolean };

const STATUS_TEXT: Record<number, string> = {
  400: 'the request is malformed',
  401: 'the API key was not accepted',
  403: 'not permitted',
  404: 'not found (unknown device or path, or the key has no access to it)',
  422: 'the service refused the request',
  429: 'rate limit exceeded',
};

/** Connection failures where the service certainly did not process the request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The one HTTP path of the client: rate limited, retried as the spec allows, errors mapped to EnergyApiError. */
export class Transport {
  private readonly http: AxiosInstance;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly limiter: RateLimiter;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly now: () => number;
  private readonly closing = new AbortController();
  private readonly health = new ServiceHealth();
  /** The requests queued in the limiter whose caller hears of a wait after a 429: told when a pause starts. */
  private readonly queued = new Set<RateWait>();

  constructor(options: TransportOptions) {
    this.limiter = options.limiter;
    this.apiKey = options.apiKey;
    this.maxRetries = options.maxRetries ?? 6;
    this.backoffBaseMs = options.backoffBaseMs ?? 400;
    this.backoffMaxMs = options.backoffMaxMs ?? 8000;
    this.now = options.now ?? Date.now;
    // One listener per request in flight, each removed when its call ends.
    setMaxListeners(0, this.closing.signal);
    this.agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    this.http = axios.create({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      timeout: options.timeoutMs ?? 30_000,
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
      // Bytes, not text: a large body is decoded a slice at a time (see json.ts), never as one big string.
      responseType: 'arraybuffer',
      transformResponse: (data: unknown) => data,
      validateStatus: () => true,
      maxRedirects: 0,
      proxy: false,
      headers: { Accept: 'application/json', Authorization: `Bearer ${options.apiKey}` },
    });
  }

  async request<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    const { signal, dispose } = linkSignals(spec.signal, this.closing.signal);
    try {
      return await this.attempts<T>(spec, signal);
    } finally {
      dispose();
    }
  }

  private async attempts<T>(spec: RequestSpec, signal: AbortSignal): Promise<ApiResponse<T>> {
    const idempotent = spec.method === 'GET';
    for (let attempt = 0; ; attempt++) {
      const wait = this.rateWait(spec);
      const outcome = await this.limiter.schedule(spec.priority ?? 'normal', (markSent) => {
        wait?.end();
        return this.attempt<T>(spec, signal, markSent);
      }, signal).finally(() => wait?.end());
      if (outcome.kind === 'done') return outcome.response;
      const mayRetry = idempotent || !outcome.processed;
      if (!mayRetry || attempt >= this.maxRetries) throw outcome.error;
      // While the service fails every request, the next trigger tries again instead of seven attempts of each
      // (checked again after the wait: the service may have been found down meanwhile).
      const serviceDown = (): boolean => this.health.down && isServiceFailure(outcome.error);
      if (serviceDown()) throw notRetried(outcome.error);
      const waitMs = outcome.waitMs ?? this.backoff(attempt);
      // A 429 concerns the whole key: every queued request waits, not only this one.
      if (outcome.error.status === 429) this.pauseAll(waitMs);
      spec.onRetry?.({ kind: 'retrying', attempt: attempt + 1, waitMs, error: outcome.error });
      await sleep(waitMs, signal);
      if (serviceDown()) throw notRetried(outcome.error);
    }
  }

  /**
   * The wait of a request about to queue in the limiter, told to its caller while the key is paused
   * after a 429: only the callers whose own request waits hear of it.
   */
  private rateWait(spec: RequestSpec): RateWait | undefined {
    if (!spec.onRetry) return undefined;
    const wait = new RateWait(spec.onRetry, () => this.queued.delete(wait));
    this.queued.add(wait);
    if (this.limiter.paused) wait.start();
    return wait;
  }

  private pauseAll(waitMs: number): void {
    this.limiter.pauseFor(waitMs);
    if (this.limiter.paused) for (const wait of this.queued) wait.start();
  }

  /** Aborts everything in flight and frees the sockets. */
  close(): void {
    this.closing.abort();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async attempt<T>(spec: RequestSpec, signal: AbortSignal, markSent: MarkSent): Promise<Attempt<T>> {
    const url = spec.path + encodeQuery(spec.query ?? {});
    let response: AxiosResponse<Buffer>;
    try {
      response = await this.http.request<Buffer>({
        method: spec.method,
        url,
        data: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        headers: spec.body === undefined ? undefined : { 'Content-Type': 'application/json' },
        signal,
        transport: wireWatcher(markSent),
      });
    } catch (err) {
      const failure = this.networkFailure<T>(err, spec, signal);
      this.health.failure(spec);
      return failure;
    }
    if (response.status >= 500) this.health.failure(spec);
    else this.health.answered();
    if (response.status !== 429) this.limiter.learn(response.headers as Record<string, unknown>);
    return this.interpret<T>(response, spec);
  }

  private async interpret<T>(response: AxiosResponse<Buffer>, spec: RequestSpec): Promise<Attempt<T>> {
    const { status } = response;
    if (status === 204) return { kind: 'done', response: { status, data: undefined } };
    const parsed = await parseJsonInTurns(response.data);
    if (status >= 200 && status < 300) {
      if (parsed.ok) return { kind: 'done', response: { status, data: parsed.value as T } };
      const error = this.error(spec, { status, code: 'BAD_RESPONSE', message: `the service answered ${status} with a body that is not JSON` });
      return { kind: 'retry', error, processed: true };
    }
    const body = parsed.ok ? parsed.value : undefined;
    if (status === 429) return this.rateLimited(response, body, spec);
    const error = this.apiError(status, body, spec);
    if (status >= 500) return { kind: 'retry', error, processed: true };
    throw error;
  }

  private rateLimited<T>(response: AxiosResponse<Buffer>, body: unknown, spec: RequestSpec): Attempt<T> {
    const headers = response.headers as Record<string, unknown>;
    const detail = firstDetail(body);
    const retryAfter = header(headers, 'retry-after');
    const nowS = this.now() / 1000;
    const tpsLimit = header(headers, 'x-ratelimit-tpslimit');
    const tpdRemaining = header(headers, 'x-ratelimit-tpdremaining');
    const genericReset = resetInSeconds(header(headers, 'x-ratelimit-reset'), nowS);
    const tpsReset = resetInSeconds(header(headers, 'x-ratelimit-tpsreset'), nowS) ?? genericReset;
    const tpdReset = resetInSeconds(header(headers, 'x-ratelimit-tpdreset'), nowS) ?? genericReset;
    const code = detail?.code ?? '';
    const daily = code.endsWith('TPD') || (!code.endsWith('TPS') && tpdRemaining === 0);
    const keyed = detail !== undefined || retryAfter !== undefined || tpsReset !== undefined || tpsLimit !== undefined;
    const scope: RateLimitFacts['scope'] = daily ? 'tpd' : keyed ? 'tps' : 'server';
    const resetIn = scope === 'tpd' ? tpdReset : tpsReset;
    const rateLimit: RateLimitFacts = {
      scope,
      limit: header(headers, scope === 'tpd' ? 'x-ratelimit-tpdlimit' : 'x-ratelimit-tpslimit') ?? header(headers, 'x-ratelimit-limit'),
      remaining: header(headers, scope === 'tpd' ? 'x-ratelimit-tpdremaining' : 'x-ratelimit-tpsremaining') ?? header(headers, 'x-ratelimit-remaining'),
      resetAt: resetIn === undefined ? undefined : Math.ceil(nowS + resetIn),
      retryAfterSeconds: retryAfter,
    };
    const error = this.apiError(429, body, spec, rateLimit);
    this.limiter.learn(headers, scope);
    if (scope === 'tpd') {
      this.limiter.exhaustDailyBudget(resetIn);
      throw error;
    }
    if (scope === 'tps') this.limiter.widenMargin();
    let waitMs: number | undefined;
    if (retryAfter !== undefined) waitMs = retryAfter * 1000;
    else if (resetIn !== undefined) waitMs = Math.max(0, resetIn * 1000);
    return { kind: 'retry', error, waitMs, processed: false };
  }

  private networkFailure<T>(err: unknown, spec: RequestSpec, signal: AbortSignal): Attempt<T> {
    if (signal.aborted || axios.isCancel(err)) {
      throw this.error(spec, { code: 'ABORTED', message: 'the request was cancelled', sent: false });
    }
    const code = axios.isAxiosError(err) ? err.code ?? '' : '';
    const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT';
    const error = this.error(spec, {
      code: timedOut ? 'TIMEOUT' : 'NETWORK',
      message: timedOut ? 'the service did not answer in time' : `the service could not be reached (${code || 'connection failed'})`,
      sent: !NOT_SENT_CODES.has(code),
    });
    return { kind: 'retry', error, processed: !NOT_SENT_CODES.has(code) };
  }

  private apiError(status: number, body: unknown, spec: RequestSpec, rateLimit?: RateLimitFacts): EnergyApiError {
    const details = errorDetails(body);
    const first = details[0];
    const code = normaliseCode(first?.code) ?? codeForStatus(status);
    const apiMessage = details.map((d) => d.message).filter(Boolean).join('; ') || undefined;
    const what = STATUS_TEXT[status] ?? (status >= 500 ? 'the service failed' : 'the request failed');
    const keyHint = status === 401 || code === 'NOT_PERMITTED' ? ` (key ${describeKey(this.apiKey)})` : '';
    return this.error(spec, {
      status,
      code,
      message: `${what}${keyHint}: ${status} ${code}${apiMessage ? ` - ${apiMessage}` : ''}`,
      apiMessage,
      errors: details.length > 1 || isMultiError(body) ? details : undefined,
      rateLimit,
    });
  }

  private error(spec: RequestSpec, init: Omit<ConstructorParameters<typeof EnergyApiError>[0], 'method' | 'path'>): EnergyApiError {
    return new EnergyApiError({ ...init, method: spec.method, path: spec.path });
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/** One queued request's wait after a 429, told to its caller once when it starts and once when it ends. */
class RateWait {
  private waiting = false;

  constructor(
    private readonly tell: (info: RetryInfo) => void,
    private readonly leave: () => void,
  ) {}

  start(): void {
    if (this.waiting) return;
    this.waiting = true;
    this.tell({ kind: 'rateWait', waiting: true });
  }

  /** The request left the queue (it is sent, or dropped). */
  end(): void {
    this.leave();
    if (!this.waiting) return;
    this.waiting = false;
    this.tell({ kind: 'rateWait', waiting: false });
  }
}

/** The service failed, not the request: a 5xx, or no connection or answer. */
function isServiceFailure(error: EnergyApiError): boolean {
  return error.status >= 500 || error.code === 'NETWORK' || error.code === 'TIMEOUT';
}

function notRetried(error: EnergyApiError): EnergyApiError {
  return new EnergyApiError({
    status: error.status, code: error.code, apiMessage: error.apiMessage, errors: error.errors.length ? error.errors : undefined,
    rateLimit: error.rateLimit, method: error.method, path: error.path, sent: error.sent,
    message: `${error.message} (not retried: the service is failing every request; the next one tries again)`,
  });
}

/** Node's http/https, noting the moment the request is fully written (what the limiter counts). */
function wireWatcher(markSent: MarkSent) {
  // Dropped once used: axios keeps this transport in the request's config, which a keep-alive socket
  // holds until its next request, and markSent reaches the limiter's promise of this request's answer
  // (a whole parsed page would otherwise stay alive, and be promoted to the old generation).
  let onSent: MarkSent | undefined = markSent;
  const sent = (): void => {
    const mark = onSent;
    onSent = undefined;
    mark?.();
  };
  const request = (options: http.RequestOptions & { protocol?: string }, callback: (res: http.IncomingMessage) => void) => {
    const req = (options.protocol === 'https:' ? https : http).request(options, callback);
    req.once('finish', sent);
    req.once('close', () => { onSent = undefined; });
    return req;
  };
  return { request };
}

function isMultiError(body: unknown): body is { errors: unknown[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { errors?: unknown }).errors);
}

function toDetail(value: unknown): ApiErrorDetail | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.code !== 'string' && typeof record.message !== 'string') return undefined;
  return {
    code: normaliseCode(typeof record.code === 'string' ? record.code : undefined) ?? 'UNKNOWN',
    httpCode: typeof record.httpCode === 'number' ? record.httpCode : undefined,
    message: typeof record.message === 'string' ? record.message : '',
  };
}

function errorDetails(body: unknown): ApiErrorDetail[] {
  if (isMultiError(body)) return body.errors.map(toDetail).filter((d): d is ApiErrorDetail => d !== undefined);
  const single = toDetail(body);
  return single ? [single] : [];
}

function firstDetail(body: unknown): ApiErrorDetail | undefined {
  return errorDetails(body)[0];
}

/** `UNPROCESSABLE ENTITY` (with a space, as the modbus sample sends it) becomes the underscore form. */
function normaliseCode(code: string | undefined): string | undefined {
  return code ? code.trim().replace(/\s+/g, '_').toUpperCase() : undefined;
}

function codeForStatus(status: number): string {
  const codes: Record<number, string> = {
    400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND',
    422: 'UNPROCESSABLE_ENTITY', 429: 'TOO_MANY_REQUESTS', 500: 'INTERNAL_SERVER_ERROR',
  };
  return codes[status] ?? `HTTP_${status}`;
}
