import { EnergyApiError } from './errors.js';
import { isCalendarGranularity } from './params.js';
import { formatTime, startOfUnit } from './time.js';
import type { Granularity, RangeQuery } from './types.js';

const DAY = 86400;

export const SHORT_MAX_SPAN_S = 12 * 3600;
export const SHORT_RETENTION_S = 31 * DAY;
export const MODBUS_MAX_SPAN_S = 7 * DAY;
/** Long energy exists from 1 Jan 2019 (spec 4.8); nothing is asked for before it. */
export const LONG_ENERGY_EPOCH = Date.UTC(2019, 0, 1) / 1000;

/** Bucket size of the epoch-aligned granularities. */
const FIXED_BUCKET_S: Partial<Record<Granularity, number>> = { '5m': 300, '15m': 900, '30m': 1800 };

/**
 * Longest span the client asks for per request (spec 4.8). Calendar limits are taken at their
 * shortest reading so a request is valid whether the service counts calendar units or days:
 * 3 months >= 89 days, 3 years >= 1095 days, 5 years >= 1825 days, 10 years >= 3650 days.
 */
export const LONG_MAX_SPAN_S: Record<Granularity, number> = {
  '5m': 7 * DAY,
  '15m': 14 * DAY,
  '30m': 31 * DAY,
  hour: 89 * DAY,
  day: 1095 * DAY,
  week: 1825 * DAY,
  month: 3650 * DAY,
};

/**
 * Seconds a long request asks for beyond the periods it reads: a 5-minute read of the periods [F, T)
 * asks for [F, T + 300), which holds the records of those periods under both readings of a range
 * (the live service's by timestamp, t < T + 300, and the spec's by coverage); see long-window.ts.
 */
export function longRequestExtra(granularity: Granularity): number {
  return granularity === '5m' ? 300 : 0;
}

/** The request that reads the periods of one planned span. */
export function longRequestRange(periods: RangeQuery, granularity: Granularity): RangeQuery {
  return { fromTs: periods.fromTs, toTs: periods.toTs + longRequestExtra(granularity) };
}

/** Longest span of periods one long request reads: the limit less what the request adds. */
function longPeriodSpan(granularity: Granularity): number {
  return LONG_MAX_SPAN_S[granularity] - longRequestExtra(granularity);
}

/** The spec's own wording of each limit, for messages. */
export const LONG_SPAN_LABEL: Record<Granularity, string> = {
  '5m': '7 days', '15m': '14 days', '30m': '31 days', hour: '3 months', day: '3 years', week: '5 years', month: '10 years',
};

/** Largest bucket boundary at or before `ts` for a granularity (in `timezone` for hour and larger). */
export function floorToBucket(ts: number, granularity: Granularity, timezone: string): number {
  const fixed = FIXED_BUCKET_S[granularity];
  if (fixed) return Math.floor(ts / fixed) * fixed;
  if (!isCalendarGranularity(granularity)) throw new Error(`unknown granularity ${granularity}`);
  return startOfUnit(ts, granularity, timezone);
}

/**
 * Splits `[fromTs, toTs)` into spans of at most `maxSpan`, seams chosen by `seamAtOrBefore`. Spans that
 * start after now hold no data yet and are not planned at all: a `toTs` far in the future (1e17 s) must
 * cost no more than one ending now, never a loop over every span up to it.
 */
function split(fromTs: number, toTs: number, maxSpan: number, seamAtOrBefore: (ts: number) => number, nowS: number): RangeQuery[] {
  const ranges: RangeQuery[] = [];
  let cursor = fromTs;
  while (cursor < toTs && cursor <= nowS) {
    const limit = cursor + maxSpan;
    let end = limit >= toTs ? toTs : seamAtOrBefore(limit);
    if (end <= cursor) end = limit;
    ranges.push({ fromTs: cursor, toTs: end });
    cursor = end;
  }
  return ranges;
}

/** Short energy: spans of 12 h. Refuses ranges entirely older than the 31-day retention, and clips partly older ones. */
export function planShortRanges(fromTs: number, toTs: number, nowS: number): RangeQuery[] {
  const retainedFrom = nowS - SHORT_RETENTION_S;
  if (toTs <= retainedFrom) {
    throw EnergyApiError.invalid(
      `short energy is kept for 31 days: the range ending ${formatTime(toTs)} is older than that (use long energy for older data)`,
    );
  }
  const start = Math.max(fromTs, retainedFrom);
  return split(start, toTs, SHORT_MAX_SPAN_S, (ts) => ts, nowS);
}

/**
 * Long energy: spans of periods whose requests (longRequestRange) stay within the granularity's
 * limit, with seams on bucket boundaries in the request's timezone, so merged results equal one
 * unlimited request (no split buckets).
 */
export function planLongRanges(fromTs: number, toTs: number, granularity: Granularity, timezone: string | undefined, nowS: number): RangeQuery[] {
  const zone = timezone ?? 'UTC';
  const epoch = floorToBucket(LONG_ENERGY_EPOCH, granularity, zone);
  if (toTs <= epoch || fromTs > nowS) return [];
  const start = Math.max(fromTs, epoch);
  return split(start, toTs, longPeriodSpan(granularity), (ts) => floorToBucket(ts, granularity, zone), nowS);
}

/** Modbus: 7-day spans; entries are cumulative readings, so any seam is exact. */
export function planModbusRanges(fromTs: number, toTs: number, nowS: number): RangeQuery[] {
  return split(fromTs, toTs, MODBUS_MAX_SPAN_S, (ts) => ts, nowS);
}

/** Requests one range call may make unless its `maxRequests` says otherwise. */
export const DEFAULT_MAX_REQUESTS = 100;

export interface PlanCostQuery {
  kind: 'short' | 'long' | 'modbus';
  granularity?: Granularity;
  fromTs: number;
  toTs: number;
  nowS: number;
}

/**
 * Refuses a range that needs more than `maxRequests` requests, by arithmetic alone, before any
 * planning: the fewest requests the span can take (whole spans of the limit, the part the planner
 * would skip left out). Throws REQUEST_BUDGET naming the figure and the option.
 */
export function checkPlanCost(query: PlanCostQuery, maxRequests: number | undefined = DEFAULT_MAX_REQUESTS): void {
  if (typeof maxRequests !== 'number' || !Number.isInteger(maxRequests) || maxRequests < 1) {
    throw EnergyApiError.invalid(`maxRequests must be a whole number of at least 1, not ${String(typeof maxRequests === 'number' ? maxRequests : typeof maxRequests)}`);
  }
  const needed = fewestRequests(query);
  if (needed > maxRequests) {
    throw new EnergyApiError({
      code: 'REQUEST_BUDGET',
      message:
        `this ${query.kind === 'long' ? `${query.granularity ?? '5m'} long energy` : query.kind === 'short' ? 'short energy' : 'modbus'} read ` +
        `from ${formatTime(query.fromTs)} to ${formatTime(query.toTs)} needs at least ${needed} requests, more than maxRequests (${maxRequests}) allows: ` +
        'narrow the range, choose a coarser granularity, or raise maxRequests',
      sent: false,
    });
  }
}

function fewestRequests({ kind, granularity, fromTs, toTs, nowS }: PlanCostQuery): number {
  const maxSpan = kind === 'short' ? SHORT_MAX_SPAN_S : kind === 'modbus' ? MODBUS_MAX_SPAN_S : longPeriodSpan(granularity ?? '5m');
  let start = fromTs;
  if (kind === 'short') start = Math.max(fromTs, nowS - SHORT_RETENTION_S);
  if (kind === 'long') start = Math.max(fromTs, LONG_ENERGY_EPOCH - 31 * DAY);
  // Spans starting after now are never asked for.
  const end = Math.min(toTs, nowS + maxSpan);
  return end <= start ? 0 : Math.ceil((end - start) / maxSpan);
}
