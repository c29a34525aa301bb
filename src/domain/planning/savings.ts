import type { TargetPeriod } from './period.js';
import type { Unit } from './units.js';

/** The naive schedule the plan is measured against: a fixed timer ending at `by`, or running from the start of the day. */
export type NaiveSchedule = 'timer' | 'start';
export const NAIVE_SCHEDULES: readonly NaiveSchedule[] = ['timer', 'start'];

/** One target day's running cost and what the same run would have cost on the naive schedule (micro-units). */
export interface SavingsDay {
  /** The target period (unix s). */
  start: number;
  end: number;
  costMicros: number;
  naiveMicros: number;
}

/** Part of the load's memory: today so far (up to `at`) and the last finished days. */
export interface SavingsMemory {
  at: number;
  today: SavingsDay;
  days: SavingsDay[];
}

/** Today as the status and output 3 show it: so far plus what the plan expects for the rest, and the last week. */
export interface DaySavings {
  today: SavingsDay;
  /** The last finished days, oldest first (at most WEEK_DAYS). */
  days: SavingsDay[];
}

export const WEEK_DAYS = 7;

/** The price of a stretch of time as the plan sees it. */
export interface PriceAt {
  importMicros: number | null;
  exportMicros: number;
}

/**
 * What running `powerW` for `seconds` costs (micro-units): grid energy at the import price, and the surplus it uses
 * (up to its power) at the feed-in that surplus would have earned. Null without an import price.
 */
export function runCostMicros(powerW: number, seconds: number, price: PriceAt, surplusW: number): number | null {
  if (price.importMicros === null) return null;
  const share = powerW > 0 ? Math.min(1, Math.max(0, surplusW / powerW)) : 0;
  return (powerW * seconds / 3.6e6) * (price.importMicros * (1 - share) + price.exportMicros * share);
}

/** The naive schedule's running window in a target period: `runFor` ending at `by`, or from the period's start. */
export function naiveWindow(period: TargetPeriod, runForS: number, naive: NaiveSchedule): { start: number; end: number } {
  const length = Math.min(runForS, period.end - period.start);
  return naive === 'start' ? { start: period.start, end: period.start + length } : { start: period.end - length, end: period.end };
}

const overlap = (a: { start: number; end: number }, from: number, to: number): number => Math.max(0, Math.min(a.end, to) - Math.max(a.start, from));

export interface SavingsObservation {
  nowS: number;
  period: TargetPeriod;
  runForS: number;
  naive: NaiveSchedule;
  /** Seconds the load ran since the last observation in this period (as the run count counts them). */
  ranS: number;
  /** The load was on at the last observation (for the stretch that belongs to the day before). */
  wasOn: boolean;
  powerW: number;
  /** The price over the time since the last observation. */
  price: PriceAt;
  /** Surplus the load could use (W) over that time (0 outside surplus mode). */
  surplusW: number;
  /** Time not seen for longer than this is not counted. */
  maxGapS: number;
}

/**
 * Adds the time since the last observation to today's costs: what the load's running cost, and what the naive
 * schedule's running would have cost in the same stretch (the same price and sun). A new period starts a new day;
 * the finished one joins the week.
 */
export function accrueSavings(previous: SavingsMemory | undefined, o: SavingsObservation): SavingsMemory {
  let days = previous?.days ?? [];
  let today = previous?.today ? { ...previous.today } : undefined;
  const seen = previous !== undefined && o.nowS > previous.at && o.nowS - previous.at <= o.maxGapS;
  let from = previous?.at ?? o.nowS;
  if (today && today.start !== o.period.start) {
    // The stretch up to the end of the day before is that day's (at the state and price it had then).
    if (seen && today.end > from) add(today, o, from, Math.min(o.nowS, today.end), o.wasOn ? Math.min(o.nowS, today.end) - from : 0);
    if (today.end <= o.period.start) days = [...days, today].slice(-WEEK_DAYS);
    today = undefined;
  }
  today ??= { start: o.period.start, end: o.period.end, costMicros: 0, naiveMicros: 0 };
  from = Math.max(from, o.period.start);
  if (seen && o.nowS > from) add(today, o, from, o.nowS, Math.min(Math.max(0, o.ranS), o.nowS - from));
  return { at: Math.max(previous?.at ?? -Infinity, o.nowS), today, days };
}

/** Adds [from, to) of the observation to a day: `ranS` of running, and the naive window's overlap. */
function add(day: SavingsDay, o: SavingsObservation, from: number, to: number, ranS: number): void {
  const naiveS = overlap(naiveWindow(day, o.runForS, o.naive), from, to);
  day.costMicros += runCostMicros(o.powerW, ranS, o.price, o.surplusW) ?? 0;
  day.naiveMicros += runCostMicros(o.powerW, naiveS, o.price, o.surplusW) ?? 0;
}

/**
 * Today as expected at its end: the costs so far, plus the planned units' cost and the naive schedule's cost on the
 * units still to come (their prices and expected sun). Unpriced units add nothing to either.
 */
export function expectedDay(memory: SavingsMemory, units: readonly Unit[], planned: readonly boolean[], o: { period: TargetPeriod; runForS: number; naive: NaiveSchedule; powerW: number; useSurplus: boolean }): DaySavings {
  const window = naiveWindow(o.period, o.runForS, o.naive);
  let costMicros = memory.today.costMicros;
  let naiveMicros = memory.today.naiveMicros;
  units.forEach((u, i) => {
    const surplus = o.useSurplus ? u.surplusW : 0;
    const d = u.end - u.start;
    if (planned[i]) costMicros += runCostMicros(o.powerW, d, u, surplus) ?? 0;
    const naiveS = overlap(window, u.start, u.end);
    if (naiveS > 0) naiveMicros += runCostMicros(o.powerW, naiveS, u, surplus) ?? 0;
  });
  return { today: { ...memory.today, costMicros: Math.round(costMicros), naiveMicros: Math.round(naiveMicros) }, days: memory.days };
}
