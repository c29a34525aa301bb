/**
 * Open-Meteo's forecast (https://api.open-meteo.com/v1/forecast): `global_tilted_irradiance` (W/m²) on the plane
 * (`tilt`, `azimuth` with 0 = south), hourly or every 15 minutes (`minutely_15`), each value the mean of the step
 * before its time; asked with `timeformat=unixtime` and `timezone=auto`, from local midnight for three days. The power
 * is irradiance × kWp × the loss factor (1000 W/m² on 1 kWp gives 1 kW before losses). Free for non-commercial use:
 * 600 requests a minute, 10,000 a day.
 */
import type { OutsideRules } from '../../api/outside-limits.js';
import { nextUtcMidnightMs } from './solcast.js';
import type { ReadForecast, SourceSettings } from './types.js';
import { finite, watts } from './values.js';

export const OPEN_METEO_URL = 'https://api.open-meteo.com';
export const OPEN_METEO_NAME = 'Open-Meteo';
const VARIABLE = 'global_tilted_irradiance';

export function openMeteoRequest(s: SourceSettings): { url: string; params: Record<string, string | number> } {
  const block = s.resolutionMin === 15 ? 'minutely_15' : 'hourly';
  return {
    url: `${s.baseUrl}/v1/forecast`,
    params: {
      latitude: s.plane.latitude, longitude: s.plane.longitude, [block]: VARIABLE, tilt: s.plane.declination, azimuth: s.plane.azimuth,
      timezone: 'auto', forecast_days: 3, timeformat: 'unixtime',
    },
  };
}

export function readOpenMeteo(body: unknown, s: SourceSettings): ReadForecast | undefined {
  const block = (body as Record<string, unknown> | undefined)?.[s.resolutionMin === 15 ? 'minutely_15' : 'hourly'] as Record<string, unknown> | undefined;
  if (!block || !Array.isArray(block.time) || !Array.isArray(block[VARIABLE])) return undefined;
  const times = block.time as unknown[];
  const values = block[VARIABLE] as unknown[];
  const step = s.resolutionMin * 60;
  const out: ReadForecast = { periods: [], gaps: 0 };
  times.forEach((t, i) => {
    const end = finite(t);
    const gti = finite(values[i]);
    if (end === undefined || gti === undefined) {
      out.gaps++;
      return;
    }
    // A slightly negative irradiance at dawn is the model's noise, not a sun that takes power.
    out.periods.push({ start: end - step, end, power: watts(Math.max(0, gti) * s.plane.kwp * s.lossFactor) });
  });
  return out;
}

/**
 * 10,000 requests a UTC day per address is its daily budget; 600 a minute is far above a forecast node's pace (one
 * request a minute at most), so no pace is kept. A 429 holds the address until 00:00 UTC when its reason names the
 * daily limit, else for a minute.
 */
export const OPEN_METEO_RULES: OutsideRules = {
  provider: OPEN_METEO_NAME,
  perDay: 10_000,
  holdAfter(answer, nowMs) {
    if (answer.status !== 429) return undefined;
    const reason = (answer.body as { reason?: unknown } | undefined)?.reason;
    return typeof reason === 'string' && /daily/i.test(reason) ? nextUtcMidnightMs(nowMs) : nowMs + 60_000;
  },
};
