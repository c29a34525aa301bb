import { targetPeriod, type TargetPeriod } from './period.js';
import { buildUnits, type Unit } from './units.js';
import type { PricePeriod } from '../pricing/types.js';

/** "20 kWh in the car by 07:00": energy a modulating load must have taken by `by` in each period. */
export interface EnergyTargetSettings {
  /** Wh per period. */
  wh: number;
  /** Local minute of the day the target must be met by (1440 = end of the day). */
  byMinute: number;
  /** Never buy above (micro-units per kWh); surplus is always used. */
  maxPriceMicros?: number;
}

/** The energy the load has taken in the current period, counted from its load channel (or its setpoints). */
export interface EnergyCount {
  /** End (unix s) of the period it counts for. */
  periodEnd: number;
  wh: number;
  /** Unix s up to which it has counted. */
  countedS: number;
  /**
   * Wh the previous period's target still missed at its `by` while the load ran: the run going on then makes it up
   * first (a car still charging at 07:00 is finishing last night's target, not starting tonight's).
   */
  carryWh?: number;
  /** W the load takes at most when it took less than its setpoint (a car tapering as it fills), this period. */
  acceptW?: number;
  /**
   * The load has been on and drawing nothing in this period (no car): what it took before that in the period was
   * the car that left (a top-up on the morning's sun after `by`), not the next target's, and was dropped.
   */
  awaySeen?: boolean;
}

/** What the load did at this evaluation, beyond its entries. */
export interface CountOptions {
  /** The target (Wh): what the period ending at this one's start still missed carries over into its running load. */
  targetWh?: number;
  /** Below this (W) the load is not drawing: a run carried over past `by` has ended. */
  drawingW?: number;
  /** On for a window and drawing nothing (no car, or a full one). */
  idle?: boolean;
  /**
   * The load's draw over a window at a setpoint held that long (W), or its setpoint 0: what it accepts of the
   * setpoint. Absent: nothing new is known (the setpoint changed within the window).
   */
  settled?: { drawW: number; setpointW: number };
}

/** A unit without a price is bought only when no priced unit is left, the latest first (prices may still come). */
const UNPRICED = 1e12;
/** Without a sun forecast, the sun measured now fades into the last day's over the next hour. */
const NOWCAST_S = 3600;
/** Surplus expected later counts for this share of itself: the sun forecast (or yesterday's) may not come. */
const SURPLUS_TRUST = 0.8;
/**
 * A unit bought from the grid counts for this share of the load's maximum: a car takes less as it fills (and a
 * charger's setpoint is not its draw to the watt), so the plan starts early enough to finish anyway.
 */
const GRID_SHARE = 0.85;
/** A load draws when it takes a tenth of its minimum (and 50 W at least): less is a car absent or full, or standby. */
export function drawingW(minW: number): number {
  return Math.max(50, 0.1 * minW);
}
/** Gaps longer than this (a restart, reads failing) are not counted at the setpoint's power. */
const MAX_GAP_S = 600;

/** One short-energy entry: Joules per channel over `duration` s, ending at `timestamp`. */
interface Entry {
  timestamp: number;
  duration?: number;
  eReal?: unknown;
}

/**
 * Adds what the load took since the last count: the Joules of `loadChannel` in entries newer than it, or
 * without a load channel the setpoint's power over the time since (at most MAX_GAP_S). A new period starts at 0,
 * except that a run going on at its start first makes up what the period before it missed (see `carryWh`).
 */
export function countEnergy(before: EnergyCount | undefined, period: TargetPeriod, entries: readonly Entry[], loadChannel: number | undefined, setpointW: number, nowS: number, options: CountOptions = {}): EnergyCount {
  const fresh = !before || before.periodEnd !== period.end;
  const from = fresh ? Math.max(period.start, before?.countedS ?? nowS) : before.countedS;
  const awaySeen = Boolean(options.idle) || (!fresh && Boolean(before.awaySeen));
  // The first time in a period the load is seen with no car, what it counted before is dropped (see awaySeen).
  let wh = fresh || (options.idle && !before.awaySeen) ? 0 : before.wh;
  let carryWh = fresh ? missedBefore(before, period, options.targetWh) : (before.carryWh ?? 0);
  const drawingW = options.drawingW ?? 0;
  /** Wh of a stretch at `watts`: the carried run's first, the rest this period's. */
  const add = (whNow: number, watts: number): void => {
    if (carryWh > 0 && watts < drawingW) carryWh = 0;
    const carried = Math.min(carryWh, whNow);
    carryWh -= carried;
    wh += whNow - carried;
  };
  let countedS = from;
  if (loadChannel !== undefined) {
    for (const e of entries) {
      const start = e.timestamp - (e.duration ?? 0);
      if (e.timestamp <= from || e.timestamp > nowS || start < period.start - 1) continue;
      const v = Array.isArray(e.eReal) ? (e.eReal as unknown[])[loadChannel] : null;
      if (typeof v === 'number' && Number.isFinite(v)) add(Math.max(0, v) / 3600, Math.max(0, v) / Math.max(1, e.duration ?? 0));
      countedS = Math.max(countedS, e.timestamp);
    }
  } else {
    const dt = Math.min(MAX_GAP_S, Math.max(0, nowS - from));
    add((setpointW * dt) / 3600, setpointW);
    countedS = nowS;
  }
  const count: EnergyCount = { periodEnd: period.end, wh, countedS };
  if (carryWh > 0) count.carryWh = carryWh;
  if (awaySeen) count.awaySeen = true;
  // A run carried over is the last period's car: what it accepts says nothing of this period's.
  const acceptW = carryWh > 0 ? undefined : acceptance(fresh ? undefined : before.acceptW, options.settled, drawingW);
  if (acceptW !== undefined) count.acceptW = acceptW;
  return count;
}

/** What the period just before `period` missed of its target, when it was counted up to its end. */
function missedBefore(before: EnergyCount | undefined, period: TargetPeriod, targetWh: number | undefined): number {
  if (!before || targetWh === undefined || before.periodEnd !== period.start) return 0;
  return Math.max(0, targetWh - before.wh);
}

/**
 * What the load accepts (W): a load drawing under 90 % of a setpoint it has held for a window takes no more than
 * it draws (a car's on-board charger, or its taper as it fills); one taking a setpoint above that in full has no
 * known limit again, nor one that stops drawing or is off (the next run may be another car).
 */
function acceptance(before: number | undefined, settled: CountOptions['settled'], drawingW: number): number | undefined {
  if (!settled) return before;
  if (settled.setpointW <= 0 || settled.drawW < Math.max(1, drawingW)) return undefined;
  if (settled.drawW < 0.9 * settled.setpointW) return settled.drawW;
  return before !== undefined && settled.drawW > before ? undefined : before;
}

export interface EnergyPlanInput {
  settings: EnergyTargetSettings;
  count: EnergyCount | undefined;
  now: number;
  zone: string;
  prices: readonly PricePeriod[];
  tariff(from: number, to: number): PricePeriod[];
  minW: number;
  maxW: number;
  /** Surplus left to this load now (W), or null when unknown. */
  measuredSurplusW: number | null;
  /** Expected surplus for this load over [from, to) (W): the sun forecast's less the house, else the last day's. */
  expectedSurplusW(from: number, to: number): number;
  /** A sun forecast (msg.forecast) covers [from, to): the reading now counts for the unit now only. */
  sunForecastAt?(from: number, to: number): boolean;
  entries: readonly Entry[];
  loadChannel: number | undefined;
  setpointW: number;
  /** On for a window and drawing nothing (see CountOptions). */
  idle?: boolean;
  /** Unix s since the load has been on (with setpointW > 0). */
  onSinceS?: number;
  /** The load's draw over a window at a setpoint held that long (see CountOptions). */
  settled?: CountOptions['settled'];
}

/** The energy target at one evaluation: what was taken, what the sun should give, what the grid must give and when. */
export interface EnergyPlan {
  period: TargetPeriod;
  count: EnergyCount;
  /** Wh still needed. */
  needWh: number;
  /** Wh the expected surplus gives before the deadline (at the load's power). */
  surplusWh: number;
  /** Wh planned from the grid, in the cheapest units. */
  gridWh: number;
  /** Wh the target stays short by even at full power in every unit it may buy. */
  shortWh: number;
  units: Unit[];
  /** Per unit: planned at full power from the grid. */
  gridOn: boolean[];
  /** Power (W) the plan asks now beyond the surplus: maxW when the unit now is planned, else 0. */
  gridNowW: number;
  reason?: 'cheapest' | 'deadline';
}

/**
 * Surplus first: the sun expected before the deadline (measured now; then the forecast's, or without one the reading
 * fading into yesterday's over an hour) counts at what the load can take of it. The rest comes from the grid in the
 * cheapest units at the load's full power (within maxPrice); without prices, in the latest units, so a price list that
 * comes later can still choose.
 */
export function planEnergy(input: EnergyPlanInput): EnergyPlan {
  const nowS = Math.floor(input.now / 1000);
  const period = targetPeriod(nowS, input.zone, input.settings.byMinute);
  const count = countEnergy(input.count, period, input.entries, input.loadChannel, input.setpointW, nowS, {
    targetWh: input.settings.wh, drawingW: drawingW(input.minW), settled: input.settled, idle: input.idle,
  });
  // The load takes no more than it accepts (a car tapering as it fills): the sun and the grid count at that.
  const maxW = Math.min(input.maxW, count.acceptW ?? Infinity);
  const needWh = Math.max(0, input.settings.wh - count.wh);
  const units = buildUnits({
    nowS, endS: period.end, prices: input.prices, tariff: input.tariff(nowS, period.end),
    surplus: (from, to) => {
      const expected = SURPLUS_TRUST * input.expectedSurplusW(from, to);
      if (input.measuredSurplusW === null) return expected;
      const measured = Math.max(0, input.measuredSurplusW);
      if (from === nowS) return measured;
      // With a sun forecast the units ahead are the forecast's: a reading in a break in the clouds is the moment's sun.
      if (input.sunForecastAt?.(from, to)) return expected;
      const weight = Math.max(0, 1 - (from - nowS) / NOWCAST_S);
      return weight * measured + (1 - weight) * expected;
    },
  });
  const solarW = (u: Unit): number => (u.surplusW >= input.minW ? Math.min(maxW, u.surplusW) : 0);
  const surplusWh = units.reduce((sum, u) => sum + (solarW(u) * (u.end - u.start)) / 3600, 0);
  const gridOn = units.map(() => false);
  // A run that began before this period (finishing the last one's target) is not this period's to finish.
  const running = input.setpointW > 0 && (input.onSinceS === undefined || input.onSinceS >= period.start) && !count.carryWh;
  let rest = needWh - surplusWh;
  let gridWh = 0;
  const buyable = units
    .map((u, i) => ({ u, i, price: u.importMicros ?? UNPRICED - u.start / 1e6 }))
    .filter(({ u }) => u.importMicros === null || input.settings.maxPriceMicros === undefined || u.importMicros <= input.settings.maxPriceMicros)
    // Of equal prices the unit now first while the load runs (it finishes what it started rather than stop and come
    // back), else the later unit first: next to the deadline (a car that leaves after it takes nothing for the next
    // period) and next to the cheap block that comes later, in one run instead of two.
    .sort((a, b) => a.price - b.price || (running ? Number(b.i === 0) - Number(a.i === 0) : 0) || b.u.start - a.u.start);
  for (const { u, i } of buyable) {
    if (rest <= 0) break;
    // The sun covers the load's maximum: the surplus alone runs it at its maximum, the grid adds nothing.
    if (solarW(u) >= maxW) continue;
    // Bought, the unit counts GRID_SHARE of the maximum, of which the sun already counted its share: a unit where the
    // sun gives 85-100 % of the maximum counts nothing more, and is bought all the same. Skipping it would make the
    // plan's decision hinge on the sun crossing GRID_SHARE of the maximum, where the surplus rule asks less than the
    // plan's maximum: the setpoint would flap between the two every minInterval as the sun wavers around it.
    const wh = Math.max(0, ((GRID_SHARE * maxW - solarW(u)) * (u.end - u.start)) / 3600);
    gridOn[i] = true;
    rest -= wh;
    gridWh += wh;
  }
  const shortWh = Math.max(0, rest);
  const allBought = buyable.every(({ i }) => gridOn[i]);
  // A run carried over past `by` finishes what the last target missed (late, so at any price) while the load draws.
  const late = Boolean(count.carryWh) && input.setpointW > 0;
  const plan: EnergyPlan = { period, count, needWh, surplusWh, gridWh, shortWh, units, gridOn, gridNowW: gridOn[0] || late ? input.maxW : 0 };
  if (late) plan.reason = 'deadline';
  else if (gridOn[0]) plan.reason = allBought || units[0].importMicros === null ? 'deadline' : 'cheapest';
  return plan;
}
