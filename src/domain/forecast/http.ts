/**
 * The one HTTP path of the forecast sources: one axios instance for every provider (answers read as text, no
 * redirects, no proxy), the key never in an error, and one gate per provider, address and key in the process that
 * sends nothing while a 429 told it to wait. It never retries: its callers poll on a schedule.
 */
import axios from 'axios';
import { createHash } from 'node:crypto';
import { EnergyApiError, redactKey } from '../../api/errors.js';

const http = axios.create({
  timeout: 30_000,
  responseType: 'text',
  transformResponse: (data: unknown) => data,
  validateStatus: () => true,
  maxRedirects: 0,
  proxy: false,
  headers: { Accept: 'application/json', 'User-Agent': 'node-red-energy-api (energy-forecast)' },
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
}

/** Plain http:// only on this machine (the simulator); anything else must be https://. */
export function checkBaseUrl(baseUrl: string, provider: string): string {
  const url = baseUrl.replace(/\/+$/, '');
  if (!/^https:\/\//.test(url) && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(url)) {
    throw EnergyApiError.invalid(`the ${provider} address must be https:// (plain http:// only on this machine: 127.0.0.1 or localhost)`);
  }
  return url;
}

export async function getJson(url: string, options: GetOptions): Promise<HttpAnswer> {
  const path = new URL(url).pathname;
  let response;
  try {
    response = await http.get<string>(url, { params: options.params, headers: options.headers, signal: options.signal });
  } catch (err) {
    const code = axios.isCancel(err) ? 'ABORTED' : (err as { code?: string }).code === 'ECONNABORTED' ? 'TIMEOUT' : 'NETWORK';
    const reason = redactKey(err instanceof Error ? err.message : String(err), options.secret);
    throw new EnergyApiError({ status: 0, code, sent: false, method: 'GET', path, message: `${options.provider} could not be reached: ${reason}` });
  }
  let body: unknown;
  try {
    body = typeof response.data === 'string' && response.data !== '' ? JSON.parse(response.data) as unknown : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers as Record<string, unknown>, body };
}

/** When a provider lets a key (or this client's address) ask again: node-clock ms, shared in the process. */
const gates = new Map<string, number>();

export function gateId(provider: string, baseUrl: string, apiKey = ''): string {
  return `${provider}\n${baseUrl}\n${createHash('sha256').update(apiKey).digest('hex')}`;
}

export function blockedUntil(id: string, nowMs: number): number {
  const until = gates.get(id) ?? 0;
  return until > nowMs ? until : 0;
}

export function block(id: string, untilMs: number): void {
  gates.set(id, Math.max(gates.get(id) ?? 0, untilMs));
}

export function unblock(id: string): void {
  gates.delete(id);
}

/** A header's number, or undefined. */
export function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
  const raw = headers[name];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
