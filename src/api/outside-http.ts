/**
 * The one HTTP path to the services beside the energy API (Amber's prices, the forecast sources): one axios instance
 * (answers read as text, no redirects, no proxy), the key never in an error, and one gate per provider, address and
 * key in the process that sends nothing while the provider said to wait (a 429, or nothing remaining). It never
 * retries: its callers poll on a schedule. The energy API has its own path (transport.ts) with the key's limiter.
 */
import axios from 'axios';
import { createHash } from 'node:crypto';
import { redactKey } from './errors.js';
import { OutsideServiceError } from './outside-errors.js';

const http = axios.create({
  timeout: 30_000,
  responseType: 'text',
  transformResponse: (data: unknown) => data,
  validateStatus: () => true,
  maxRedirects: 0,
  proxy: false,
  headers: { Accept: 'application/json', 'User-Agent': 'node-red-energy-api' },
});

export interface HttpAnswer {
  status: number;
  headers: Record<string, unknown>;
  /** Parsed JSON; undefined when the body is not JSON. */
  body: unknown;
}

export interface GetOptions {
  params?: Record<string, string | number>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Redacted from every error text (an API key). */
  secret?: string;
  /** Who answers, for errors: "Forecast.Solar". */
  provider: string;
  /** Default 30 s. */
  timeoutMs?: number;
}

/** Plain http:// only on this machine (the simulator); anything else must be https://. */
export function checkBaseUrl(baseUrl: string, provider: string): string {
  const url = baseUrl.replace(/\/+$/, '');
  if (!/^https:\/\//.test(url) && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(url)) {
    throw OutsideServiceError.invalid(provider, `the ${provider} address must be https:// (plain http:// only on this machine: 127.0.0.1 or localhost)`);
  }
  return url;
}

export async function getJson(url: string, options: GetOptions): Promise<HttpAnswer> {
  const path = new URL(url).pathname;
  let response;
  try {
    response = await http.get<string>(url, { params: options.params, headers: options.headers, signal: options.signal, timeout: options.timeoutMs });
  } catch (err) {
    const code = axios.isCancel(err) ? 'ABORTED' : (err as { code?: string }).code === 'ECONNABORTED' ? 'TIMEOUT' : 'NETWORK';
    const reason = redactKey(err instanceof Error ? err.message : String(err), options.secret);
    throw new OutsideServiceError({ provider: options.provider, status: 0, code, sent: false, method: 'GET', path, message: `${options.provider} could not be reached: ${reason}` });
  }
  let body: unknown;
  try {
    body = typeof response.data === 'string' && response.data !== '' ? JSON.parse(response.data) as unknown : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers as Record<string, unknown>, body };
}

interface Gate {
  /** Node-clock ms before which nothing is sent. */
  until: number;
  /** The provider's stated limit for the key, when it says it. */
  limit?: number;
}

/** When a provider lets a key (or this client's address) ask again, shared in the process. */
const gates = new Map<string, Gate>();

export function gateId(provider: string, baseUrl: string, apiKey = ''): string {
  return `${provider}\n${baseUrl}\n${createHash('sha256').update(apiKey).digest('hex')}`;
}

export function blockedUntil(id: string, nowMs: number): number {
  const until = gates.get(id)?.until ?? 0;
  return until > nowMs ? until : 0;
}

export function block(id: string, untilMs: number): void {
  const gate = gates.get(id);
  if (gate) gate.until = Math.max(gate.until, untilMs);
  else gates.set(id, { until: untilMs });
}

export function unblock(id: string): void {
  const gate = gates.get(id);
  if (gate?.limit === undefined) gates.delete(id);
  else gate.until = 0;
}

/** The limit a provider stated for the key (a RateLimit-Limit header), for errors. */
export function noteLimit(id: string, limit: number | undefined): void {
  if (limit === undefined) return;
  const gate = gates.get(id);
  if (gate) gate.limit = limit;
  else gates.set(id, { until: 0, limit });
}

export function limitOf(id: string): number | undefined {
  return gates.get(id)?.limit;
}

/** A header's number, or undefined. */
export function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
  const raw = headers[name];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
