/**
 * A correction of the forecast learnt from the last days' pairs of forecast and measurement (archive.ts): a factor
 * by local hour of day (a shaded morning, an array that faces west, a mis-declared size) times a factor by how clear
 * the forecast says the period is (a source that is too sunny on dull days), each pulled towards the overall factor
 * while it rests on few days. Its worth is reported as the forecast's error per day before and after it, each day
 * corrected by what the other days taught (leave one day out), so the figure is not flattered by learning the day
 * it is measured on.
 */
import type { LocalTime } from './local-time.js';
import type { Pair } from './archive.js';
import type { ForecastPeriod } from './types.js';

export interface CalibrationModel {
  /** Measured ÷ forecast energy over every pair. */
  overall: number;
  /** Factor by local hour (0..23), where the days say anything. */
  byHour: Record<number, number>;
  /** Factor by clearness: dull, mixed, clear. */
  byClearness: [number, number, number];
  /** Highest forecast power seen at each local hour: the clear-sky yardstick of clearness. */
  peakByHour: Record<number, number>;
  /** Days the model learnt from. */
  days: number;
}

export interface ErrorFigures {
  /** kWh a day. */
  maeKwh: number;
  biasKwh: number;
}

export interface CalibrationReport {
  /** Days measured. */
  days: number;
  before: ErrorFigures;
  /** Undefined before there are 3 days (each is judged on what the others taught). */
  after?: ErrorFigures;
  /** Whether the correction is used: only when it lowers the error a day (a well-declared array may need none). */
  applied: boolean;
}

/** Days a factor needs before it counts as much as the overall one. */
const PRIOR_DAYS = 3;
export const MIN_DAYS = 2;
const LIMITS: [number, number] = [0.2, 3];

const energyKwh = (w: number, p: { start: number; end: number }): number => (w * (p.end - p.start)) / 3.6e6;
const clamp = (x: number): number => Math.min(LIMITS[1], Math.max(LIMITS[0], x));

function clearnessBucket(power: number, peak: number | undefined): 0 | 1 | 2 {
  const c = peak && peak > 0 ? power / peak : 1;
  return c >= 0.7 ? 2 : c >= 0.35 ? 1 : 0;
}

function shrink(ratio: number, days: number, towards: number): number {
  return (days * ratio + PRIOR_DAYS * towards) / (days + PRIOR_DAYS);
}

/** The model from the pairs, or undefined with fewer than MIN_DAYS days of them. */
export function fitCalibration(pairs: readonly Pair[]): CalibrationModel | undefined {
  const days = new Set(pairs.map((p) => p.day));
  let f = 0;
  let a = 0;
  for (const p of pairs) {
    f += energyKwh(p.forecast, p);
    a += energyKwh(p.actual, p);
  }
  if (days.size < MIN_DAYS || f <= 0) return undefined;
  const overall = a / f;
  const hours = new Map<number, { f: number; a: number; days: Set<number>; peak: number }>();
  for (const p of pairs) {
    const h = hours.get(p.hour) ?? { f: 0, a: 0, days: new Set<number>(), peak: 0 };
    h.f += energyKwh(p.forecast, p);
    h.a += energyKwh(p.actual, p);
    h.days.add(p.day);
    h.peak = Math.max(h.peak, p.forecast);
    hours.set(p.hour, h);
  }
  const byHour: Record<number, number> = {};
  const peakByHour: Record<number, number> = {};
  for (const [hour, h] of hours) {
    peakByHour[hour] = h.peak;
    if (h.f > 0) byHour[hour] = shrink(h.a / h.f, h.days.size, overall);
  }
  const buckets = [0, 1, 2].map(() => ({ f: 0, a: 0, days: new Set<number>() }));
  for (const p of pairs) {
    const b = buckets[clearnessBucket(p.forecast, peakByHour[p.hour])];
    b.f += energyKwh(p.forecast * (byHour[p.hour] ?? overall), p);
    b.a += energyKwh(p.actual, p);
    b.days.add(p.day);
  }
  const byClearness = buckets.map((b) => (b.f > 0 ? shrink(b.a / b.f, b.days.size, 1) : 1)) as [number, number, number];
  return { overall, byHour, byClearness, peakByHour, days: days.size };
}

/** The factor for a forecast power at a local hour. */
export function correctionOf(model: CalibrationModel, hour: number, power: number): number {
  const byHour = model.byHour[hour] ?? model.overall;
  return clamp(byHour * model.byClearness[clearnessBucket(power, model.peakByHour[hour])]);
}

/** The forecast corrected period by period (P10 and P90 by the same factor). */
export function applyCalibration(model: CalibrationModel, periods: readonly ForecastPeriod[], local: LocalTime): ForecastPeriod[] {
  return periods.map((p) => {
    const k = correctionOf(model, local.hour((p.start + p.end) / 2), p.power);
    const out: ForecastPeriod = { start: p.start, end: p.end, power: round(p.power * k) };
    if (p.p10 !== undefined) out.p10 = round(p.p10 * k);
    if (p.p90 !== undefined) out.p90 = round(p.p90 * k);
    return out;
  });
}

const round = (w: number): number => Math.round(w * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;

function figures(errors: readonly number[]): ErrorFigures {
  const n = errors.length || 1;
  return { maeKwh: round2(errors.reduce((s, e) => s + Math.abs(e), 0) / n), biasKwh: round2(errors.reduce((s, e) => s + e, 0) / n) };
}

/** The forecast's error per day (forecast − measured, kWh) over the pairs' days, before and after calibration. */
export function evaluateCalibration(pairs: readonly Pair[]): CalibrationReport | undefined {
  const byDay = new Map<number, Pair[]>();
  for (const p of pairs) byDay.set(p.day, [...(byDay.get(p.day) ?? []), p]);
  if (byDay.size === 0) return undefined;
  const before: number[] = [];
  const after: number[] = [];
  for (const [day, list] of byDay) {
    const actual = list.reduce((s, p) => s + energyKwh(p.actual, p), 0);
    before.push(list.reduce((s, p) => s + energyKwh(p.forecast, p), 0) - actual);
    const model = byDay.size > MIN_DAYS ? fitCalibration(pairs.filter((p) => p.day !== day)) : undefined;
    if (model) after.push(list.reduce((s, p) => s + energyKwh(p.forecast * correctionOf(model, p.hour, p.forecast), p), 0) - actual);
  }
  const judged = after.length === byDay.size ? figures(after) : undefined;
  const beforeFigures = figures(before);
  return { days: byDay.size, before: beforeFigures, after: judged, applied: judged !== undefined && judged.maeKwh < beforeFigures.maeKwh };
}
