/**
 * Solcast's rooftop site forecast (https://api.solcast.com.au/rooftop_sites/{resource_id}/forecasts): the API key
 * as a bearer token (never in the address), `forecasts[]` of `pv_estimate`, `pv_estimate10`, `pv_estimate90` in kW,
 * each period ending at `period_end` and lasting `period` (PT30M). The hobbyist plan allows 10 requests a UTC day:
 * after a 429 nothing is sent before 00:00 UTC.
 */
import type { OutsideRules } from '../../api/outside-limits.js';
import type { ReadForecast, SourceSettings } from './types.js';
import { finite, isoDurationS, watts } from './values.js';

export const SOLCAST_URL = 'https://api.solcast.com.au';
export const SOLCAST_NAME = 'Solcast';
export const SOLCAST_PER_DAY = 10;
/** Hours asked for: today's rest, tomorrow and the day after's start. */
const HOURS = 48;

export function solcastRequest(s: SourceSettings): { url: string; params: Record<string, string | number>; headers: Record<string, string> } {
  return {
    url: `${s.baseUrl}/rooftop_sites/${encodeURIComponent(s.siteId ?? '')}/forecasts`,
    params: { format: 'json', hours: HOURS },
    headers: { Authorization: `Bearer ${s.apiKey ?? ''}` },
  };
}

export function readSolcast(body: unknown): ReadForecast | undefined {
  const list = (body as { forecasts?: unknown } | undefined)?.forecasts;
  if (!Array.isArray(list)) return undefined;
  const out: ReadForecast = { periods: [], gaps: 0 };
  for (const item of list as unknown[]) {
    const f = (item ?? {}) as Record<string, unknown>;
    const end = typeof f.period_end === 'string' ? Date.parse(f.period_end) / 1000 : NaN;
    const length = isoDurationS(f.period) ?? 1800;
    const kw = finite(f.pv_estimate);
    if (!Number.isFinite(end) || kw === undefined || kw < 0) {
      out.gaps++;
      continue;
    }
    const period: ReadForecast['periods'][number] = { start: end - length, end, power: watts(kw * 1000) };
    const p10 = finite(f.pv_estimate10);
    const p90 = finite(f.pv_estimate90);
    if (p10 !== undefined && p10 >= 0) period.p10 = watts(p10 * 1000);
    if (p90 !== undefined && p90 >= 0) period.p90 = watts(p90 * 1000);
    out.periods.push(period);
  }
  out.periods.sort((a, b) => a.start - b.start);
  return out;
}

/** Node-clock ms of the next 00:00 UTC, when a daily count starts again. */
export function nextUtcMidnightMs(nowMs: number): number {
  return (Math.floor(nowMs / 86_400_000) + 1) * 86_400_000;
}

/** After a 429 that is not the daily limit (Solcast busy, at the top of the hour): a short wait, not the day. */
const BUSY_HOLD_MS = 15 * 60_000;

/**
 * The hobbyist plan's 10 requests a UTC day per key (or what the node is told the key's plan allows), kept in this
 * process (each rooftop site's node counts on its key). A 429 saying the daily limit is spent (`error_code` TooManyRequests) holds the key until 00:00 UTC; any other
 * 429 is Solcast busy, and holds it 15 minutes only: the day's forecasts are not lost to a busy moment.
 */
export const SOLCAST_RULES: OutsideRules = {
  provider: SOLCAST_NAME,
  perDay: SOLCAST_PER_DAY,
  holdAfter(answer, nowMs) {
    if (answer.status !== 429) return undefined;
    return dailyLimitSpent(answer.body) ? nextUtcMidnightMs(nowMs) : nowMs + BUSY_HOLD_MS;
  },
};

function dailyLimitSpent(body: unknown): boolean {
  const status = (body as { response_status?: { error_code?: unknown; message?: unknown } } | undefined)?.response_status;
  return status?.error_code === 'TooManyRequests' || (typeof status?.message === 'string' && /daily limit/i.test(status.message));
}
