/**
 * The Amber-compatible price API of the simulator, under its own base path on the same port
 * (`/amber/v1`, as Amber's `https://api.amber.com.au/v1`), with its own key and rate limit. Paths,
 * parameters and answers follow Amber's public API description: GET /sites, GET /sites/{siteId}/prices/current
 * (?next, ?previous, ?resolution 5 or 30, at most 2048 intervals) and GET /sites/{siteId}/prices (?startDate,
 * ?endDate, at most 7 days apart); intervals per channel in the order general, controlled load, feed-in.
 * Error bodies are not described there: the simulator answers `{message}`.
 */
import type { Reply } from '../reply.js';
import type { QueryParams } from '../query.js';
import { amberInterval, type Resolution } from './intervals.js';
import type { Channel } from './market.js';
import type { AmberSite } from './sites.js';

export const AMBER_BASE_PATH = '/amber/v1';
const MAX_INTERVALS = 2048;
const NEM_OFFSET = 10 * 3600;
const DAY = 86400;

const fail = (status: number, message: string): Reply => ({ status, body: { message } });

function integer(params: QueryParams, name: string, fallback: number): number | Reply {
  const values = params.get(name);
  if (!values) return fallback;
  const text = values[values.length - 1];
  if (!/^\d+$/.test(text)) return fail(400, `${name} must be a whole number, not "${text.slice(0, 20)}"`);
  return Number(text);
}

function resolutionOf(params: QueryParams, site: AmberSite): Resolution | Reply {
  const r = integer(params, 'resolution', site.intervalLength);
  if (typeof r !== 'number') return r;
  if (r !== 5 && r !== 30) return fail(400, 'resolution must be 5 or 30');
  return r;
}

const channelsOf = (site: AmberSite): Channel[] => site.channels.map((c) => c.type);

/** Intervals [first, first + count) of each channel, channel by channel. */
function intervals(site: AmberSite, resolution: Resolution, first: number, count: number, asOf: number): unknown[] {
  const out: unknown[] = [];
  const step = resolution * 60;
  for (const channel of channelsOf(site)) {
    for (let i = 0; i < count; i++) out.push(amberInterval(site.market, channel, first + i * step, resolution, asOf));
  }
  return out;
}

function currentPrices(site: AmberSite, params: QueryParams, now: number): Reply {
  const next = integer(params, 'next', 0);
  const previous = integer(params, 'previous', 0);
  const resolution = resolutionOf(params, site);
  if (typeof next !== 'number') return next;
  if (typeof previous !== 'number') return previous;
  if (typeof resolution !== 'number') return resolution;
  if (next + previous + 1 > MAX_INTERVALS) return fail(422, `Requested number of intervals is greater than ${MAX_INTERVALS}`);
  const step = resolution * 60;
  const current = Math.floor(now / step) * step;
  return { status: 200, body: intervals(site, resolution, current - previous * step, previous + 1 + next, now) };
}

function datePrices(site: AmberSite, params: QueryParams, now: number): Reply {
  const today = new Date((now + NEM_OFFSET) * 1000).toISOString().slice(0, 10);
  const date = (name: string): number | Reply => {
    const text = params.get(name)?.at(-1) ?? today;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) return fail(400, `${name} must be a date such as 2021-05-05`);
    return Date.parse(`${text}T00:00:00Z`) / 1000 - NEM_OFFSET;
  };
  const start = date('startDate');
  const end = date('endDate');
  const resolution = resolutionOf(params, site);
  if (typeof start !== 'number') return start;
  if (typeof end !== 'number') return end;
  if (typeof resolution !== 'number') return resolution;
  if (end < start) return fail(400, 'endDate must not be before startDate');
  if (end - start > 7 * DAY) return fail(422, 'Requested date range is greater than 7 days');
  const step = resolution * 60;
  return { status: 200, body: intervals(site, resolution, start, (end + DAY - start) / step, now) };
}

/** Routes a request below AMBER_BASE_PATH (the key and the rate limit are checked by the server). */
export function handleAmber(sites: ReadonlyMap<string, AmberSite>, method: string, path: string, params: QueryParams, now: number): Reply {
  if (method !== 'GET') return fail(405, 'Only GET is supported');
  const segments = path.split('/').slice(1);
  if (segments.length === 1 && segments[0] === 'sites') return { status: 200, body: [...sites.values()].map((s) => s.body) };
  if (segments[0] !== 'sites' || segments.length < 3 || segments[2] !== 'prices' || segments.length > 4) return fail(404, 'Not found');
  const site = sites.get(segments[1]);
  if (!site) return fail(404, 'Site not found');
  if (segments.length === 3) return datePrices(site, params, now);
  if (segments[3] === 'current') return currentPrices(site, params, now);
  return fail(404, 'Not found');
}
