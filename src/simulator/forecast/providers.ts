/**
 * Forecast endpoints of the simulator, compatible in paths, parameters and fields with three providers' public
 * documentation, on the simulator's port under their own base paths:
 * - Forecast.Solar (`/forecast-solar`, as `https://api.forecast.solar`): GET /estimate/:lat/:lon/:dec/:az/:kwp,
 *   `?time=` seconds | utc | iso8601 (default local `2017-09-18 01:00:00`); today and tomorrow from sunrise to
 *   sunset in hourly steps, `result.watts`, `watt_hours_period`, `watt_hours`, `watt_hours_day`, `message.info`,
 *   `message.ratelimit`. The simulator stamps each value at the end of its hour (`watt_hours_period` is the hour's
 *   energy, `watts` its mean power), the first of a day at sunrise with 0.
 * - Solcast (`/solcast`, as `https://api.solcast.com.au`): GET /rooftop_sites/{resource_id}/forecasts
 *   (`?hours=`, default 168; `?format=json`), key as `Authorization: Bearer` or `?api_key=`; `forecasts[]` of
 *   `pv_estimate`, `pv_estimate10`, `pv_estimate90` (kW), `period_end` (ISO, UTC), `period` (`PT30M`).
 * - Open-Meteo (`/open-meteo`, as `https://api.open-meteo.com`): GET /v1/forecast with `latitude`, `longitude`,
 *   `hourly` and/or `minutely_15` = `global_tilted_irradiance`, `tilt`, `azimuth` (0 = south), `timezone`,
 *   `forecast_days`, `past_days`, `timeformat` (iso8601 | unixtime); each value the mean of the preceding hour or
 *   quarter hour, from local midnight.
 * The simulator forecasts only at its own sites (GET /__sim/forecast-sites); a plane's orientation does not change
 * its numbers. Error bodies follow each provider's shape where known (Forecast.Solar `{result, message}`, Solcast
 * `{response_status}`, Open-Meteo `{error, reason}`).
 */
import { DateTime } from 'luxon';
import type { QueryParams } from '../query.js';
import type { Reply } from '../reply.js';
import { forecastFor, type ForecastPeriod } from './model.js';
import type { ForecastLimits } from './limits.js';
import { siteNear, type ForecastSite } from './sites.js';

export const FORECAST_SOLAR_BASE_PATH = '/forecast-solar';
export const SOLCAST_BASE_PATH = '/solcast';
export const OPEN_METEO_BASE_PATH = '/open-meteo';
/** The simulator's demo Solcast API key. */
export const SIM_SOLCAST_KEY = 'sc_demo_7d1e4b9a2c6f40e8b3a5d9c1f2e7a604';
/** Irradiance on the plane per W a kWp gives: the array's performance ratio (the energy-forecast node's default). */
export const OPEN_METEO_PERFORMANCE = 0.85;

/** Test faults: periods starting in [gapFrom, gapTo) left out, in [nullFrom, nullTo) given as null. */
export interface ForecastFaults {
  gapFrom?: number;
  gapTo?: number;
  nullFrom?: number;
  nullTo?: number;
}

export interface ForecastContext {
  sites: readonly ForecastSite[];
  limits: ForecastLimits;
  faults: ForecastFaults;
  now: number;
  /** Who asks (the client's address): the per-client limits. */
  client: string;
}

export interface ProviderReply {
  reply: Reply;
  headers?: Record<string, string>;
}

const within = (t: number, from?: number, to?: number): boolean => from !== undefined && to !== undefined && t >= from && t < to;
const last = (params: QueryParams, name: string): string | undefined => params.get(name)?.at(-1);

/** Periods after the faults: left out in a gap, null in a null window. */
function faulted(periods: ForecastPeriod[], faults: ForecastFaults): Array<ForecastPeriod & { blank: boolean }> {
  return periods.filter((p) => !within(p.start, faults.gapFrom, faults.gapTo)).map((p) => ({ ...p, blank: within(p.start, faults.nullFrom, faults.nullTo) }));
}

// ---- Forecast.Solar ----

function fsMessage(code: number, text: string, ratelimit: { limit: number; remaining: number }): Record<string, unknown> {
  return { code, type: code === 0 ? 'success' : 'error', text, ratelimit: { period: 3600, limit: ratelimit.limit, remaining: ratelimit.remaining } };
}

function fsTime(t: number, zone: string, style: string | undefined): string {
  const local = DateTime.fromSeconds(t, { zone });
  if (style === 'seconds') return String(t);
  if (style === 'utc') return DateTime.fromSeconds(t, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss'+00:00'");
  if (style === 'iso8601') return local.toISO({ suppressMilliseconds: true }) ?? String(t);
  return local.toFormat('yyyy-MM-dd HH:mm:ss');
}

export function forecastSolar(ctx: ForecastContext, method: string, path: string, params: QueryParams): ProviderReply {
  const limit = ctx.limits.settings.forecastSolarPerHour;
  const fail = (status: number, text: string): ProviderReply => ({ reply: { status, body: { result: null, message: fsMessage(status, text, { limit, remaining: 0 }) } } });
  const m = /^\/estimate\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)\/(\d+)\/(-?\d+)\/(\d+(?:\.\d+)?)\/?$/.exec(path);
  if (method !== 'GET' || !m) return fail(404, 'Page not found');
  const [lat, lon, dec, az, kwp] = m.slice(1).map(Number);
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180 || dec > 90 || Math.abs(az) > 180 || !(kwp > 0)) return fail(400, 'Invalid location or plane parameters');
  const gate = ctx.limits.forecastSolar(ctx.client, ctx.now);
  if (!gate.ok) return { reply: { status: 429, body: { result: null, message: fsMessage(429, 'Rate limit for API calls reached.', { limit, remaining: 0 }) } }, headers: gate.headers };
  const site = siteNear(ctx.sites, lat, lon);
  if (!site) return { ...fail(422, `No simulated site near ${lat}, ${lon} (GET /__sim/forecast-sites)`), headers: gate.headers };
  const style = last(params, 'time');
  const zone = site.timezone;
  const today = DateTime.fromSeconds(ctx.now, { zone }).startOf('day');
  const from = today.toSeconds();
  const to = today.plus({ days: 2 }).toSeconds();
  const periods = faulted(forecastFor(site.dev, ctx.now, (to - from) / 3600, { from, stepS: 3600, kwp }), ctx.faults);
  const watts: Record<string, number | null> = {};
  const period: Record<string, number | null> = {};
  const cumulative: Record<string, number | null> = {};
  const perDay: Record<string, number> = {};
  let day = '';
  let total = 0;
  for (const p of periods) {
    if (p.power <= 0 && !p.blank) continue;
    const date = DateTime.fromSeconds(p.start, { zone }).toFormat('yyyy-MM-dd');
    if (date !== day) {
      // Sunrise: the day's first stamp, with nothing made yet.
      day = date;
      total = 0;
      const sunrise = fsTime(p.start, zone, style);
      watts[sunrise] = 0;
      period[sunrise] = 0;
      cumulative[sunrise] = 0;
    }
    const key = fsTime(p.end, zone, style);
    const wh = Math.round(p.power);
    total += p.blank ? 0 : wh;
    watts[key] = p.blank ? null : wh;
    period[key] = p.blank ? null : wh;
    cumulative[key] = p.blank ? null : total;
    perDay[date] = total;
  }
  const nowLocal = DateTime.fromSeconds(ctx.now, { zone });
  return {
    reply: {
      status: 200,
      body: {
        result: { watts, watt_hours_period: period, watt_hours: cumulative, watt_hours_day: perDay },
        message: {
          ...fsMessage(0, '', { limit, remaining: gate.remaining }),
          info: {
            latitude: lat, longitude: lon, distance: 0, place: site.label, timezone: zone,
            time: nowLocal.toISO({ suppressMilliseconds: true }), time_utc: DateTime.fromSeconds(ctx.now, { zone: 'utc' }).toISO({ suppressMilliseconds: true }),
          },
        },
      },
    },
    headers: gate.headers,
  };
}

// ---- Solcast ----

const solcastError = (status: number, code: string, message: string): ProviderReply => ({ reply: { status, body: { response_status: { error_code: code, message, errors: [] } } } });
/** W to kW with four decimals, as Solcast gives them. */
const kw = (w: number): number => Math.round(w * 10) / 10000;

function solcastStamp(t: number): string {
  return `${DateTime.fromSeconds(t, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss")}.0000000Z`;
}

export function solcast(ctx: ForecastContext, method: string, path: string, params: QueryParams, bearer: string | undefined): ProviderReply {
  const key = bearer || last(params, 'api_key');
  const m = /^\/rooftop_sites\/([^/]+)\/forecasts\/?$/.exec(path);
  if (method !== 'GET' || !m) return solcastError(404, 'NotFound', 'The requested resource was not found.');
  if (!key || key !== SIM_SOLCAST_KEY) return solcastError(401, 'Unauthorized', 'Invalid or missing API key.');
  const format = last(params, 'format');
  if (format !== undefined && format !== 'json') return solcastError(400, 'BadRequest', 'The simulator answers format=json only.');
  const hoursText = last(params, 'hours') ?? '168';
  const hours = Number(hoursText);
  if (!/^\d+$/.test(hoursText) || hours < 1 || hours > 336) return solcastError(400, 'BadRequest', 'hours must be a whole number from 1 to 336.');
  const site = ctx.sites.find((s) => s.solcastSiteId === decodeURIComponent(m[1]));
  if (!site) return solcastError(404, 'NotFound', 'The rooftop site was not found.');
  if (!ctx.limits.solcast(key, ctx.now)) return solcastError(429, 'TooManyRequests', 'You have exceeded your free daily limit.');
  const periods = faulted(forecastFor(site.dev, ctx.now, hours, { stepS: 1800 }), ctx.faults);
  const forecasts = periods.map((p) => ({
    pv_estimate: p.blank ? null : kw(p.power), pv_estimate10: p.blank ? null : kw(p.p10), pv_estimate90: p.blank ? null : kw(p.p90),
    period_end: solcastStamp(p.end), period: 'PT30M',
  }));
  return { reply: { status: 200, body: { forecasts } } };
}

// ---- Open-Meteo ----

const omError = (reason: string, status = 400): ProviderReply => ({ reply: { status, body: { error: true, reason } } });
const VARIABLE = 'global_tilted_irradiance';

function numberParam(params: QueryParams, name: string, fallback?: number): number | string {
  const text = last(params, name);
  if (text === undefined || text === '') return fallback ?? `Parameter '${name}' is required`;
  const n = Number(text);
  return Number.isFinite(n) ? n : `Parameter '${name}' must be a number, not '${text.slice(0, 20)}'`;
}

function variables(params: QueryParams, name: string): string[] | string {
  const text = last(params, name);
  if (text === undefined || text === '') return [];
  const list = text.split(',').map((v) => v.trim());
  const unknown = list.find((v) => v !== VARIABLE);
  return unknown ? `Cannot initialize variable from invalid String value ${unknown.slice(0, 40)} (the simulator serves ${VARIABLE} only)` : list;
}

export function openMeteo(ctx: ForecastContext, method: string, path: string, params: QueryParams): ProviderReply {
  if (method !== 'GET' || !/^\/v1\/forecast\/?$/.test(path)) return omError('Not found', 404);
  const lat = numberParam(params, 'latitude');
  const lon = numberParam(params, 'longitude');
  const tilt = numberParam(params, 'tilt', 0);
  const azimuth = numberParam(params, 'azimuth', 0);
  const days = numberParam(params, 'forecast_days', 7);
  const past = numberParam(params, 'past_days', 0);
  for (const v of [lat, lon, tilt, azimuth, days, past]) if (typeof v === 'string') return omError(v);
  const [la, lo, ti, az, fd, pd] = [lat, lon, tilt, azimuth, days, past] as number[];
  if (Math.abs(la) > 90 || Math.abs(lo) > 180) return omError('Latitude must be in range of -90 to 90°. Longitude must be in range of -180 to 180°.');
  if (ti < 0 || ti > 90 || Math.abs(az) > 180) return omError('Tilt must be 0 to 90°, azimuth -180 to 180°');
  if (!Number.isInteger(fd) || fd < 0 || fd > 16) return omError('Forecast days is invalid. Allowed range 0 to 16.');
  if (!Number.isInteger(pd) || pd < 0 || pd > 92) return omError('Past days is invalid. Allowed range 0 to 92.');
  const hourly = variables(params, 'hourly');
  const quarter = variables(params, 'minutely_15');
  if (typeof hourly === 'string') return omError(hourly);
  if (typeof quarter === 'string') return omError(quarter);
  const timeformat = last(params, 'timeformat') ?? 'iso8601';
  if (timeformat !== 'iso8601' && timeformat !== 'unixtime') return omError(`Invalid timeformat ${timeformat.slice(0, 20)}`);
  const refused = ctx.limits.openMeteo(ctx.client, ctx.now);
  if (refused === 'minute') return omError('Minutely API request limit exceeded. Please try again in one minute.', 429);
  if (refused === 'day') return omError('Daily API request limit exceeded. Please try again tomorrow.', 429);
  const site = siteNear(ctx.sites, la, lo);
  if (!site) return omError(`No simulated site near ${la}, ${lo} (GET /__sim/forecast-sites)`);
  const tzText = last(params, 'timezone') ?? 'GMT';
  const zone = tzText === 'auto' ? site.timezone : tzText === 'GMT' || tzText === 'UTC' ? 'utc' : tzText;
  const start = DateTime.fromSeconds(ctx.now, { zone });
  if (!start.isValid) return omError(`Invalid timezone ${tzText.slice(0, 40)}`);
  const from = start.startOf('day').minus({ days: pd }).toSeconds();
  const to = start.startOf('day').plus({ days: fd }).toSeconds();
  const series = (stepS: number): { time: Array<number | string>; values: Array<number | null> } => {
    // Each value is the mean of the step before its time: the periods start one step earlier.
    const periods = forecastFor(site.dev, ctx.now, (to - from) / 3600, { from: from - stepS, stepS, kwp: 1 });
    const time: Array<number | string> = [];
    const values: Array<number | null> = [];
    for (const p of periods) {
      const blank = within(p.start, ctx.faults.gapFrom, ctx.faults.gapTo) || within(p.start, ctx.faults.nullFrom, ctx.faults.nullTo);
      time.push(timeformat === 'unixtime' ? p.end : DateTime.fromSeconds(p.end, { zone }).toFormat("yyyy-MM-dd'T'HH:mm"));
      values.push(blank ? null : Math.round((p.power / OPEN_METEO_PERFORMANCE) * 10) / 10);
    }
    return { time, values };
  };
  const body: Record<string, unknown> = {
    latitude: site.latitude, longitude: site.longitude, generationtime_ms: 0.1, utc_offset_seconds: start.offset * 60,
    timezone: zone === 'utc' ? 'GMT' : zone, timezone_abbreviation: zone === 'utc' ? 'GMT' : start.toFormat('ZZZZ'), elevation: 20,
  };
  if (hourly.length) {
    const s = series(3600);
    body.hourly_units = { time: timeformat, [VARIABLE]: 'W/m²' };
    body.hourly = { time: s.time, [VARIABLE]: s.values };
  }
  if (quarter.length) {
    const s = series(900);
    body.minutely_15_units = { time: timeformat, [VARIABLE]: 'W/m²' };
    body.minutely_15 = { time: s.time, [VARIABLE]: s.values };
  }
  return { reply: { status: 200, body } };
}
