/**
 * Forecast.Solar's public estimate (https://api.forecast.solar/estimate/:lat/:lon/:dec/:az/:kwp, no key): today and
 * tomorrow, hourly, 12 requests an hour per address. Asked with `?time=seconds`, so its stamps are unix seconds.
 * `result.watt_hours_period` gives each stamp the energy since the stamp before it: a period ends at its stamp and
 * lasts the series' step (or less at sunrise); `result.watts` is the fallback when that is missing. The rate limit
 * comes in X-Ratelimit-* headers; a 429 names the time to ask again in X-Ratelimit-Retry-At.
 */
import type { OutsideRules } from '../../api/outside-limits.js';
import type { ReadForecast, SourceSettings } from './types.js';
import { commonStep, finite, watts } from './values.js';

export const FORECAST_SOLAR_URL = 'https://api.forecast.solar';
export const FORECAST_SOLAR_NAME = 'Forecast.Solar';
/** The public plan: 12 requests in 60 minutes per address. */
export const FORECAST_SOLAR_PER_HOUR = 12;

export function forecastSolarRequest(s: SourceSettings): { url: string; params: Record<string, string> } {
  const p = s.plane;
  const parts = [p.latitude, p.longitude, Math.round(p.declination), Math.round(p.azimuth), p.kwp].map((v) => encodeURIComponent(String(v)));
  return { url: `${s.baseUrl}/estimate/${parts.join('/')}`, params: { time: 'seconds' } };
}

export function readForecastSolar(body: unknown): ReadForecast | undefined {
  const result = (body as { result?: unknown } | undefined)?.result;
  if (!result || typeof result !== 'object') return undefined;
  const r = result as { watt_hours_period?: unknown; watts?: unknown };
  const byEnergy = r.watt_hours_period && typeof r.watt_hours_period === 'object';
  const series = (byEnergy ? r.watt_hours_period : r.watts) as Record<string, unknown> | undefined;
  if (!series || typeof series !== 'object') return undefined;
  const stamps = Object.keys(series).map(Number).filter((t) => Number.isInteger(t) && t > 0).sort((a, b) => a - b);
  if (stamps.length === 0) return undefined;
  const step = commonStep(stamps) ?? 3600;
  const out: ReadForecast = { periods: [], gaps: 0 };
  for (let i = 0; i < stamps.length; i++) {
    const end = stamps[i];
    // A day's first stamp (sunrise) ends the night: nothing to forecast before it.
    if (i === 0 || end - stamps[i - 1] > step) {
      const v = finite(series[String(end)]);
      if (v === undefined) out.gaps++;
      else if (v > 0) out.periods.push({ start: end - step, end, power: watts(byEnergy ? v / (step / 3600) : v) });
      continue;
    }
    const start = stamps[i - 1];
    const v = finite(series[String(end)]);
    if (v === undefined || v < 0) {
      out.gaps++;
      continue;
    }
    out.periods.push({ start, end, power: watts(byEnergy ? v / ((end - start) / 3600) : v) });
  }
  return out;
}

/**
 * 12 an hour per address, kept in this process over a moving hour (several planes, a msg asking again: all count);
 * a 429 (the address also asked from elsewhere, or before a restart) holds it until its X-Ratelimit-Retry-At, else
 * for an hour. Its X-Ratelimit-Limit counts an hour, so only these rules read it.
 */
export const FORECAST_SOLAR_RULES: OutsideRules = {
  provider: FORECAST_SOLAR_NAME,
  perHour: FORECAST_SOLAR_PER_HOUR,
  holdAfter(answer, nowMs) {
    if (answer.status !== 429) return undefined;
    const raw = answer.headers['x-ratelimit-retry-at'];
    const at = typeof raw === 'string' ? Date.parse(raw) : NaN;
    return Number.isFinite(at) && at > nowMs ? at : nowMs + 3600_000;
  },
};
