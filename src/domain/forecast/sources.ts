/**
 * Asks one forecast source and reads its answer into the one shape: the request, the reading and the rate rules are
 * each provider's (forecast-solar.ts, solcast.ts, open-meteo.ts); the HTTP path, the limiter and the errors are shared
 * (api/outside-http.ts, api/outside-limits.ts, with Amber's prices). Errors never carry the key (it is named by its
 * last 5 characters).
 */
import { describeKey, redactKey } from '../../api/errors.js';
import { OutsideServiceError } from '../../api/outside-errors.js';
import { checkBaseUrl, getJson } from '../../api/outside-http.js';
import { acquireOutsideLimiter, type OutsideLimiter, type OutsideRules } from '../../api/outside-limits.js';
import type { Lease } from '../../api/shared-resources.js';
import { FORECAST_SOLAR_NAME, FORECAST_SOLAR_RULES, FORECAST_SOLAR_URL, forecastSolarRequest, readForecastSolar } from './forecast-solar.js';
import { OPEN_METEO_NAME, OPEN_METEO_RULES, OPEN_METEO_URL, openMeteoRequest, readOpenMeteo } from './open-meteo.js';
import { SOLCAST_NAME, SOLCAST_PER_DAY, SOLCAST_RULES, SOLCAST_URL, readSolcast, solcastRequest } from './solcast.js';
import type { ForecastSource, ReadForecast, SourceSettings } from './types.js';

export const DEFAULT_URLS: Record<ForecastSource, string> = { 'forecast.solar': FORECAST_SOLAR_URL, solcast: SOLCAST_URL, 'open-meteo': OPEN_METEO_URL };
export const SOURCE_NAMES: Record<ForecastSource, string> = { 'forecast.solar': FORECAST_SOLAR_NAME, solcast: SOLCAST_NAME, 'open-meteo': OPEN_METEO_NAME };
const RULES: Record<ForecastSource, OutsideRules> = { 'forecast.solar': FORECAST_SOLAR_RULES, solcast: SOLCAST_RULES, 'open-meteo': OPEN_METEO_RULES };

/**
 * The source's limiter in this process: per key for Solcast (its daily limit as the key's plan allows), per address
 * for the others (they count the address asking). Its first holder's clock and rules run it; release it when done
 * (the node: on close).
 */
export function acquireForecastLimiter(s: SourceSettings, now: () => number): Lease<OutsideLimiter> {
  const base = checkBaseUrl(s.baseUrl || DEFAULT_URLS[s.source], SOURCE_NAMES[s.source]);
  if (s.source === 'solcast') return acquireOutsideLimiter({ ...SOLCAST_RULES, perDay: s.dailyLimit ?? SOLCAST_PER_DAY }, base, s.apiKey, now);
  return acquireOutsideLimiter(RULES[s.source], base, '', now);
}

export interface FetchOptions {
  /** The source's limiter (acquireForecastLimiter). */
  limiter: OutsideLimiter;
  signal?: AbortSignal;
}

interface Request {
  url: string;
  params: Record<string, string | number>;
  headers?: Record<string, string>;
}

function requestOf(s: SourceSettings): Request {
  if (s.source === 'forecast.solar') return forecastSolarRequest(s);
  if (s.source === 'solcast') return solcastRequest(s);
  return openMeteoRequest(s);
}

function readAnswer(s: SourceSettings, body: unknown): ReadForecast | undefined {
  if (s.source === 'forecast.solar') return readForecastSolar(body);
  if (s.source === 'solcast') return readSolcast(body);
  return readOpenMeteo(body, s);
}

/** What the provider said in its error body, shortened and without the key. */
function said(body: unknown, apiKey: string | undefined): string | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  const nested = (b.response_status ?? b.message) as Record<string, unknown> | string | undefined;
  const text = typeof b.reason === 'string' ? b.reason
    : typeof nested === 'string' ? nested
    : nested && typeof nested === 'object' && typeof nested.message === 'string' ? nested.message
    : nested && typeof nested === 'object' && typeof nested.text === 'string' ? nested.text : undefined;
  return text ? redactKey(text, apiKey).slice(0, 200) : undefined;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

export async function fetchForecast(s: SourceSettings, options: FetchOptions): Promise<ReadForecast> {
  const name = SOURCE_NAMES[s.source];
  const base = checkBaseUrl(s.baseUrl || DEFAULT_URLS[s.source], name);
  const settings = { ...s, baseUrl: base };
  const { limiter } = options;
  const blocked = limiter.blockedUntil;
  const who = s.source === 'solcast' ? `key ${describeKey(s.apiKey)}` : 'this address';
  if (blocked > 0) {
    throw new OutsideServiceError({
      provider: name, status: 0, code: 'RATE_LIMITED', sent: false, method: 'GET',
      message: `${name}'s limit for ${who} is spent: nothing is sent before ${clock(blocked)} UTC (the last good forecast stays in use)`,
      rateLimit: { remaining: 0, resetAt: Math.ceil(blocked / 1000) },
    });
  }
  const request = requestOf(settings);
  const path = new URL(request.url).pathname;
  const answer = await limiter.send(path, () => getJson(request.url, { params: request.params, headers: request.headers, signal: options.signal, secret: s.apiKey, provider: name }), options.signal);
  const apiMessage = said(answer.body, s.apiKey);
  if (answer.status === 429) {
    const until = limiter.blockedUntil;
    throw new OutsideServiceError({
      provider: name, status: 429, code: 'TOO_MANY_REQUESTS', method: 'GET', path, apiMessage,
      message: `429: ${name}'s limit for ${who} is reached; nothing is sent before ${clock(until)} UTC${apiMessage ? ` (${apiMessage})` : ''}`,
      rateLimit: { remaining: 0, resetAt: Math.ceil(until / 1000) },
    });
  }
  if (answer.status !== 200) {
    const meaning: Record<number, string> = {
      400: `${name} refused the request (check the location and plane)`,
      401: s.source === 'solcast' ? `Solcast did not accept the API key ${describeKey(s.apiKey)}` : `${name} asks for a key`,
      403: s.source === 'solcast' ? `Solcast did not accept the API key ${describeKey(s.apiKey)} for this site` : `${name} refused the request`,
      404: s.source === 'solcast' ? 'Solcast knows no rooftop site with this id (check the resource id)' : `${name} has no such address (check the API address)`,
    };
    throw new OutsideServiceError({
      provider: name, status: answer.status, code: `HTTP_${answer.status}`, method: 'GET', path, apiMessage,
      message: `${answer.status}: ${meaning[answer.status] ?? `${name} answered with an error`}${apiMessage ? ` (${apiMessage})` : ''}`,
    });
  }
  const read = readAnswer(settings, answer.body);
  if (!read || read.periods.length === 0) {
    throw new OutsideServiceError({
      provider: name, status: 200, code: 'BAD_RESPONSE', method: 'GET', path,
      message: `${name} answered without a forecast it could read${read ? ` (${read.gaps} periods without a number)` : ''}`,
    });
  }
  return read;
}
