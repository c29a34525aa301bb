import type { EnergyEntry } from '../../api/index.js';
import { recordEnergy, RECORD_S, type EnergyLayout, type TotalsState } from './energy-totals.js';
import { KWH_J } from '../entries/grid-energy.js';

/**
 * Home Assistant's long-term statistics of an energy total, imported from the service's 5-minute long energy.
 *
 * HA keeps, per hour, the sensor's `state` and a running `sum`; the Energy dashboard shows sum differences. For
 * a `total_increasing` sensor its own compiles keep `sum = state − zero` (the zero is the state HA first saw, as
 * long as the total never goes down). The live total is the node's own count, `F(t)` Joules through record time t
 * (energy-totals.ts). An imported hour ending at t gets `state = F(t)` and `sum = F(t) − zero`: exactly what HA
 * would have compiled had it seen the total then. So where the import meets HA's own hours there is no jump and
 * nothing counted twice, and a gap (hours HA has no row for: Node-RED or the device was offline) is filled the same
 * way. Hours HA has a row for (its own, or imported before) are never written: importing twice changes nothing.
 *
 * F before the newest counted record is the live total less every record counted after: the import walks back
 * from the live total, one request window at a time, newest first, and remembers where it got (a resume point).
 */

export const HOUR_S = 3600;
/** One 5-minute long-energy request reads 7 days (less the 5 minutes it asks beyond): windows of whole hours within it. */
export const HISTORY_WINDOW_S = 7 * 86400 - HOUR_S;
/** HA keeps 5-minute statistics 10 days by default: the hours it compiled lately are told by those. */
export const SHORT_TERM_S = 10 * 86400;
/** Two zeros this close (kWh) are one: states are published to 0.1 Wh. */
const SAME_ZERO_KWH = 0.0005;

/** One row of HA's statistics (hourly or 5-minute), times in seconds. */
export interface StatRow {
  start: number;
  state: number | null;
  sum: number | null;
}

/** What HA has of one statistic: the start of every hour with a row (hourly, or any 5-minute one), and its newest row. */
export interface StatisticView {
  hours: ReadonlySet<number>;
  newest?: StatRow;
}

/** An hour as imported: start (s), the total then (kWh) and HA's running sum (kWh). */
export interface ImportRow {
  start: number;
  state: number;
  sum: number;
}

/** The live total at a record boundary: `joules` per total name at time `at`. */
export interface ChainPoint {
  at: number;
  joules: Record<string, number>;
}

/**
 * How far an import got for one device (persisted after each window): the live totals' state it walks back
 * from (its records counted and awaited), the point reached, and the zero of each statistic then.
 */
export interface HistoryResume {
  through: number;
  gaps: number[];
  point: ChainPoint;
  zeros: Record<string, number>;
  fromS: number;
}

export const floorHour = (s: number): number => Math.floor(s / HOUR_S) * HOUR_S;

/** HA's rows of a statistic (hourly and 5-minute) as a view. Starts may be ms numbers or ISO strings (HA's versions differ). */
export function statisticView(hourly: readonly unknown[], shortTerm: readonly unknown[]): StatisticView {
  const hours = new Set<number>();
  let newest: StatRow | undefined;
  for (const raw of [...hourly, ...shortTerm]) {
    const row = statRow(raw);
    if (!row) continue;
    hours.add(floorHour(row.start));
    if (!newest || row.start > newest.start) newest = row;
  }
  return { hours, newest };
}

function statRow(raw: unknown): StatRow | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as { start?: unknown; state?: unknown; sum?: unknown };
  const ms = typeof r.start === 'number' ? r.start : typeof r.start === 'string' ? Date.parse(r.start) : NaN;
  if (!Number.isFinite(ms)) return undefined;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { start: Math.round(ms / 1000), state: num(r.state), sum: num(r.sum) };
}

/** HA's zero of a statistic (kWh): its newest row's state less its sum; undefined while HA has no row with both. */
export function zeroOf(view: StatisticView): number | undefined {
  const n = view.newest;
  return n && n.state !== null && n.sum !== null ? n.state - n.sum : undefined;
}

export const sameZero = (a: number, b: number): boolean => Math.abs(a - b) < SAME_ZERO_KWH;

/**
 * Hours to import, oldest first: from `fromS` up to the hour of HA's newest row (HA compiles that one and
 * later ones itself) and no later than the live total has counted, leaving out every hour HA has a row for.
 */
export function missingHours(view: StatisticView, fromS: number, throughS: number): number[] {
  if (!view.newest) return [];
  const limit = Math.min(floorHour(view.newest.start), floorHour(throughS));
  const hours: number[] = [];
  for (let h = Math.ceil(fromS / HOUR_S) * HOUR_S; h + HOUR_S <= limit; h += HOUR_S) if (!view.hours.has(h)) hours.push(h);
  return hours;
}

/** Where the walk back starts: the live totals as counted (`through` is a record boundary). */
export function startPoint(totals: TotalsState): ChainPoint {
  return { at: totals.through, joules: { ...totals.joules } };
}

/** The request window below `at` (records ending in (fromTs, toTs]), never below `floorS`; hour-aligned at its start. */
export function windowBelow(at: number, floorS: number): { fromTs: number; toTs: number } {
  return { fromTs: Math.max(floorHour(floorS), floorHour(at - HISTORY_WINDOW_S)), toTs: at };
}

/** Requests a walk from `at` back to `floorS` takes (one per window). */
export function windowsBetween(at: number, floorS: number): number {
  return at <= floorS ? 0 : Math.ceil((at - floorHour(floorS)) / HISTORY_WINDOW_S);
}

/**
 * Walks the live totals back from `point` to `fromTs` (an hour boundary) over the records of that window:
 * the total at every hour boundary in [fromTs, point.at]. Records the live totals have not counted (after
 * `through`, or awaited in `gaps`) are left out, so the walk lands where the live count would have been.
 */
export function walkBack(point: ChainPoint, records: readonly EnergyEntry[], layout: EnergyLayout, fromTs: number, counted: { through: number; gaps: readonly number[] }): {
  boundaries: Map<number, Record<string, number>>;
  point: ChainPoint;
} {
  const awaited = new Set(counted.gaps);
  const byHourEnd = new Map<number, Record<string, number>>();
  const seen = new Set<number>();
  for (const e of records) {
    const ts = e.timestamp;
    if (!Number.isInteger(ts) || e.duration !== RECORD_S || ts % RECORD_S !== 0 || seen.has(ts)) continue;
    if (ts <= fromTs || ts > point.at || ts > counted.through || awaited.has(ts)) continue;
    seen.add(ts);
    const end = Math.ceil(ts / HOUR_S) * HOUR_S;
    const bucket = byHourEnd.get(end) ?? {};
    for (const [key, j] of Object.entries(recordEnergy(e, layout))) bucket[key] = (bucket[key] ?? 0) + j;
    byHourEnd.set(end, bucket);
  }
  const minus = (a: Record<string, number>, b: Record<string, number> | undefined): Record<string, number> => {
    const out = { ...a };
    for (const [key, j] of Object.entries(b ?? {})) out[key] = (out[key] ?? 0) - j;
    return out;
  };
  const boundaries = new Map<number, Record<string, number>>();
  let b = floorHour(point.at);
  let current = minus(point.joules, byHourEnd.get(b + HOUR_S));
  boundaries.set(b, current);
  while (b > fromTs) {
    current = minus(current, byHourEnd.get(b));
    b -= HOUR_S;
    boundaries.set(b, current);
  }
  return { boundaries, point: { at: b, joules: current } };
}

/** The rows to import for one total: each missing hour whose end the walk reached, `sum` chained on HA's zero. */
export function importRows(total: string, missing: readonly number[], boundaries: ReadonlyMap<number, Record<string, number>>, zero: number): ImportRow[] {
  const rows: ImportRow[] = [];
  for (const start of missing) {
    const end = boundaries.get(start + HOUR_S);
    if (!end) continue;
    const state = round((end[total] ?? 0) / KWH_J);
    rows.push({ start, state, sum: round(state - zero) });
  }
  return rows;
}

/** 0.01 Wh: below what a state is published to, above float noise. */
const round = (kwh: number): number => Math.round(kwh * 1e5) / 1e5;

/** A persisted resume point as read back, or undefined when it is not one. */
export function checkResume(value: unknown): HistoryResume | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<HistoryResume>;
  const numbers = (o: unknown): o is Record<string, number> => typeof o === 'object' && o !== null && Object.values(o).every((n) => typeof n === 'number' && Number.isFinite(n));
  if (!Number.isInteger(v.through) || !Array.isArray(v.gaps) || !v.gaps.every(Number.isInteger) || !Number.isInteger(v.fromS)) return undefined;
  if (typeof v.point !== 'object' || v.point === null || !Number.isInteger(v.point.at) || !numbers(v.point.joules) || !numbers(v.zeros)) return undefined;
  return v as HistoryResume;
}
