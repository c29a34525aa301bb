/**
 * The one HTTP path to the services beside the energy API (Amber's prices, the forecast sources): one axios instance
 * (answers read as text, no redirects, no proxy), the key never in an error. Each request goes through its provider
 * key's limiter (outside-limits.ts). It never retries: its callers poll on a schedule. The energy API has its own path
 * (transport.ts) with the key's limiter.
 */
import axios from 'axios';
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

/** A header's number, or undefined. */
export function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
  const raw = headers[name];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
