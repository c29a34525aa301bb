/**
 * What calibration compares: the forecast each period had before its day began (the day-ahead forecast a plan for
 * that day was made on; for a day the node started in, the first forecast it had for the period), and what the
 * device's solar channel then measured over the same period.
 */
import type { LocalTime } from './local-time.js';
import type { ForecastPeriod } from './types.js';

export interface ArchivedPeriod {
  start: number;
  end: number;
  /** Forecast power (W) before calibration. */
  power: number;
  /** Issued before the period's local day began. */
  dayAhead: boolean;
}

/** A period whose forecast and measurement are both known. */
export interface Pair {
  start: number;
  end: number;
  /** Local day number and hour of the period's middle. */
  day: number;
  hour: number;
  /** W. */
  forecast: number;
  actual: number;
}

/** One 5-minute long-energy entry: Joules per channel, stamped at its end. */
export interface EnergyRecord {
  timestamp: number;
  duration?: number;
  eReal?: unknown;
}

const RECORD_S = 300;

/** The archive after a forecast issued at `issuedAt` (unix s): keyed by period start. */
export function archiveForecast(archive: Map<number, ArchivedPeriod>, periods: readonly ForecastPeriod[], issuedAt: number, local: LocalTime): void {
  for (const p of periods) {
    if (p.end - p.start <= 0) continue;
    const dayAhead = issuedAt < local.dayStart(p.start);
    const known = archive.get(p.start);
    if (dayAhead) archive.set(p.start, { start: p.start, end: p.end, power: p.power, dayAhead: true });
    else if (!known && p.start >= issuedAt) archive.set(p.start, { start: p.start, end: p.end, power: p.power, dayAhead: false });
  }
}

/** Mean power (W) of the channel in each 5-minute record, by the record's start; the channel's sign made positive. */
export function solarByRecord(entries: readonly EnergyRecord[], channel: number): Map<number, number> {
  const joules: Array<[number, number]> = [];
  let sum = 0;
  for (const e of entries) {
    const duration = e.duration ?? RECORD_S;
    const v = Array.isArray(e.eReal) ? (e.eReal as unknown[])[channel] : undefined;
    if (duration !== RECORD_S || typeof v !== 'number' || !Number.isFinite(v)) continue;
    joules.push([e.timestamp - duration, v]);
    sum += v;
  }
  // A CT fitted the other way round measures the panels as negative: the channel's overall sign decides.
  const sign = sum < 0 ? -1 : 1;
  return new Map(joules.map(([start, j]) => [start, Math.max(0, (sign * j) / RECORD_S)]));
}

/**
 * Pairs of every archived period that ends by `until` and whose 5-minute records are all there; those periods
 * leave the archive (a period with a missing record is dropped without a pair). Nights (0 and 0) make no pair.
 */
export function takePairs(archive: Map<number, ArchivedPeriod>, records: ReadonlyMap<number, number>, until: number, local: LocalTime): Pair[] {
  const pairs: Pair[] = [];
  for (const [start, p] of [...archive]) {
    if (p.end > until) continue;
    archive.delete(start);
    let energy = 0;
    let complete = true;
    for (let t = Math.floor(p.start / RECORD_S) * RECORD_S; t < p.end; t += RECORD_S) {
      const w = records.get(t);
      if (w === undefined) {
        complete = false;
        break;
      }
      energy += w;
    }
    if (!complete) continue;
    const actual = energy / Math.ceil((p.end - Math.floor(p.start / RECORD_S) * RECORD_S) / RECORD_S);
    if (p.power <= 0 && actual <= 0) continue;
    const middle = (p.start + p.end) / 2;
    pairs.push({ start: p.start, end: p.end, day: local.day(middle), hour: local.hour(middle), forecast: p.power, actual: Math.round(actual * 10) / 10 });
  }
  return pairs;
}
