import type { Unit } from './units.js';

/** Why a unit is planned on: the sun gives it, it is among the cheapest, the deadline leaves no choice, or it is cheap enough to always run. */
export type PlanReason = 'surplus' | 'cheapest' | 'deadline' | 'cheapBelow';

export interface PlanRequest {
  units: readonly Unit[];
  /** What the load draws when on (W). */
  powerW: number;
  /** Seconds of running still needed by the end of the last unit. */
  needS: number;
  /** The load's state now. */
  on: boolean;
  /** Seconds from now the load must stay on (a block the plan started and minBlock, or minOn). */
  mustRunS: number;
  /** Seconds from now the load must stay off (minOff). */
  mustRestS: number;
  /** Shortest run the plan may start (max of minBlock and minOn), and shortest gap it may leave (minOff). */
  minRunS: number;
  minRestS: number;
  /** Never buy above (micro-units per kWh). */
  maxPriceMicros?: number;
  /** Always run where running costs at or below this (micro-units per kWh; in surplus mode the surplus counted at the lost feed-in). */
  cheapBelowMicros?: number;
  /** Surplus mode: solar surplus the load uses costs the lost feed-in, not the import price. */
  useSurplus: boolean;
  /** The reason of the block the load must finish (mustRunS). */
  blockReason?: PlanReason;
}

export interface UnitPlan {
  on: boolean;
  reason?: PlanReason;
  /** What running this whole unit costs (micro-units, not rounded); null when it has no price. */
  costMicros: number | null;
  /** Above maxPrice and not covered by surplus: the plan may not buy here. */
  tooExpensive: boolean;
}

export interface Plan {
  units: UnitPlan[];
  /** Seconds the target stays short by, running every unit it may (0 = met). */
  shortS: number;
  /** Seconds planned on. */
  plannedS: number;
  /** Expected cost of the planned units (micro-units; priced units only). */
  costMicros: number;
}

/**
 * What each run the plan starts costs in its eyes: what START_MINUTES of the load would cost at START_PRICE per kWh
 * (15 minutes at 0.20). A slot apart must save more than that to be worth another start, so the plan merges, and a
 * sun that comes and goes does not make it switch at every evaluation.
 */
export const START_MINUTES = 15;
export const START_PRICE_MICROS = 200_000;
export const startPenalty = (powerW: number): number => (powerW * START_MINUTES * 60 / 3.6e6) * START_PRICE_MICROS;
/** Running beyond the target (only to finish a block) never earns: at least this much per unit, unless the unit is cheapBelow. */
const BEYOND_TARGET = 1000;
/**
 * A unit without a price is used only when no priced unit is left, and then the latest first: prices may still come for
 * it, so without prices the load waits until the deadline leaves no choice.
 */
const UNPRICED = 1e12;
/** Of two equal choices, the earlier unit wins (deterministic ties). */
const LATER = 1e-6;
/** Above this share of its power from surplus, a unit counts as a surplus unit. */
const SURPLUS_SHARE = 0.5;

interface UnitFacts {
  d: number;
  value: number;
  costMicros: number | null;
  share: number;
  allowed: boolean;
  tooExpensive: boolean;
  forcedOn: boolean;
  cheap: boolean;
  forcedOff: boolean;
  mustRun: boolean;
}

function facts(req: PlanRequest, nowS: number): UnitFacts[] {
  return req.units.map((u, i) => {
    const d = u.end - u.start;
    const share = req.useSurplus && req.powerW > 0 ? Math.min(1, Math.max(0, u.surplusW / req.powerW)) : 0;
    const priced = u.importMicros !== null;
    const perKwh = priced ? (u.importMicros as number) * (1 - share) + u.exportMicros * share : 0;
    const costMicros = priced ? (req.powerW * d / 3.6e6) * perKwh : null;
    // What running here costs at or below cheapBelow: the import price, or in surplus mode the mix of import and lost
    // feed-in (a surplus whose export would cost makes running on it earn, even where the import price is positive).
    const cheap = priced && req.cheapBelowMicros !== undefined && Math.min(u.importMicros as number, perKwh) <= req.cheapBelowMicros;
    const mustRun = u.start < nowS + req.mustRunS;
    const forcedOff = !mustRun && u.start < nowS + req.mustRestS;
    const tooExpensive = priced && req.maxPriceMicros !== undefined && (u.importMicros as number) > req.maxPriceMicros && share < 0.999;
    return {
      d, costMicros, share, tooExpensive, mustRun, cheap, forcedOff,
      forcedOn: !forcedOff && (mustRun || cheap),
      allowed: !forcedOff && (mustRun || cheap || !tooExpensive),
      value: priced ? (costMicros as number) + i * LATER : UNPRICED - i,
    };
  });
}

/**
 * The back pointers of the recursion: up to a few MB for a long target on 5-minute units, allocated once and
 * grown as needed rather than at every plan (a fresh buffer per evaluation would keep the GC busy). Every
 * entry read is written first in the same plan, so the buffer needs no clearing.
 */
let pointers = new Int32Array(0);
function backPointers(length: number): Int32Array {
  if (pointers.length < length) pointers = new Int32Array(Math.max(length, pointers.length * 2));
  return pointers;
}

interface Best {
  k: number;
  value: number;
  path: Uint8Array;
}

/**
 * The plan: on/off per unit, meeting `needS` at the lowest cost, subject to the holds. Dynamic programming
 * over (units run toward the target, on/off, units in the current state since the plan last switched);
 * the objective is, in order: the least shortfall, then the fewest units without a price, then the cost
 * plus startPenalty per run started. Unit 0 (now) may be shorter than the others; it is chosen outside
 * the recursion so the rest run on whole units. Pure and deterministic.
 */
export function plan(req: PlanRequest, nowS: number): Plan {
  const units = facts(req, nowS);
  const n = units.length;
  const penalty = startPenalty(req.powerW);
  if (n === 0) return { units: [], shortS: Math.max(0, req.needS), plannedS: 0, costMicros: 0 };
  const u = n > 1 ? units[1].d : units[0].d;
  const runUnits = Math.ceil(req.minRunS / u);
  const restUnits = Math.ceil(req.minRestS / u);
  let best: { first: boolean; path: Uint8Array; shortS: number; value: number } | undefined;
  // Units that must run (a block, minOn, cheapBelow) count toward the target first: the free choice is only what they leave.
  const forcedLater = units.slice(1).filter((f) => f.forcedOn).length;
  for (const first of [true, false]) {
    const f0 = units[0];
    if (first ? !f0.allowed : f0.forcedOn) continue;
    const needAfter = Math.max(0, req.needS - (first ? f0.d : 0));
    const k = Math.max(0, Math.ceil(needAfter / u - 1e-9) - forcedLater);
    // Unit 0 is the first of a run or gap the plan starts now (else the state goes on: free to change).
    const result = solve(units, k, first, first === req.on ? Math.max(runUnits, restUnits, 1) : 1, runUnits, restUnits, penalty);
    if (result.k < 0) continue;
    const shortS = Math.max(0, needAfter - (result.k + forcedLater) * u);
    // Unit 0 beyond the target (it is met) never earns either, unless it must run.
    const value0 = req.needS > 0 || f0.forcedOn ? f0.value : Math.max(0, f0.value) + BEYOND_TARGET;
    const value = result.value + (first ? value0 + (req.on ? 0 : penalty) : 0);
    if (!best || shortS < best.shortS || (shortS === best.shortS && value < best.value)) best = { first, path: result.path, shortS, value };
  }
  // Unit 0 can be neither on nor off (it must run and must rest): the hold wins, nothing is planned.
  best ??= { first: false, path: new Uint8Array(n), shortS: req.needS, value: 0 };
  const on = [best.first, ...Array.from(best.path.subarray(1), (c) => c === 1)];
  return describe(req, units, on);
}

/** The best path over units 1..n−1 from state (first, age), needing k more whole units. */
function solve(units: UnitFacts[], need: number, first: boolean, age0: number, runUnits: number, restUnits: number, penalty: number): Best {
  const n = units.length;
  const ages = Math.max(runUnits, restUnits, 1) + 1;
  const size = (need + 1) * 2 * ages;
  const index = (k: number, s: number, a: number): number => (k * 2 + s) * ages + a;
  let value = new Float64Array(size).fill(Infinity);
  let next = new Float64Array(size);
  const from = backPointers(n * size);
  value[index(0, first ? 1 : 0, Math.min(age0, ages - 1))] = 0;
  const top = ages - 1;
  for (let i = 1; i < n; i++) {
    next.fill(Infinity);
    const f = units[i];
    const base = i * size;
    const onValue = f.value;
    const beyondValue = Math.max(0, f.value) + BEYOND_TARGET;
    const relax = (target: number, candidate: number, state: number): void => {
      if (candidate < next[target]) {
        next[target] = candidate;
        from[base + target] = state;
      }
    };
    for (let k = 0, state = 0; k <= need; k++) {
      // Forced units are counted toward the target before the recursion (they run whatever it chooses).
      const add = f.forcedOn || k < need ? onValue : beyondValue;
      const k2 = f.forcedOn ? k : Math.min(need, k + 1);
      for (let s = 0; s < 2; s++) {
        for (let a = 0; a < ages; a++, state++) {
          const v = value[state];
          if (v === Infinity) continue;
          const free = a >= (s === 1 ? runUnits : restUnits);
          // Off in this unit.
          if (!f.forcedOn && (s === 0 || free)) relax(index(k, 0, s === 0 ? Math.min(top, a + 1) : 1), v, state);
          // On in this unit.
          if (f.allowed && (s === 1 || free)) relax(index(k2, 1, s === 1 ? Math.min(top, a + 1) : 1), v + add + (s === 0 ? penalty : 0), state);
        }
      }
    }
    [value, next] = [next, value];
  }
  // A run may end at the deadline shorter than minBlock: its block goes on past the deadline (counted there), and
  // near a deadline that cannot be met running what it can beats running nothing. What it runs on past the
  // deadline is charged at the last unit's price, so ending a plan that way is no trick to dodge minBlock.
  const last = units[n - 1];
  const overrunValue = (state: number): number => {
    const a = state % ages;
    const s = Math.floor(state / ages) % 2;
    return n > 1 && s === 1 && a < runUnits && a < ages - 1 ? (runUnits - a) * (Math.max(0, last.value) + BEYOND_TARGET) : 0;
  };
  let bestState = -1;
  let bestValue = Infinity;
  for (let state = 0; state < size; state++) {
    if (value[state] === Infinity) continue;
    const k = Math.floor(state / ages / 2);
    const v = value[state] + overrunValue(state);
    if (bestState < 0) { bestState = state; bestValue = v; continue; }
    const bk = Math.floor(bestState / ages / 2);
    if (k > bk || (k === bk && v < bestValue)) { bestState = state; bestValue = v; }
  }
  const path = new Uint8Array(n);
  if (bestState < 0) return { k: -1, value: Infinity, path };
  const result = { k: Math.floor(bestState / ages / 2), value: bestValue, path };
  for (let i = n - 1, state = bestState; i >= 1; i--) {
    path[i] = Math.floor(state / ages) % 2;
    state = from[i * size + state];
  }
  return result;
}

function describe(req: PlanRequest, units: UnitFacts[], on: boolean[]): Plan {
  let plannedS = 0;
  let costMicros = 0;
  on.forEach((o, i) => {
    if (!o) return;
    plannedS += units[i].d;
    costMicros += units[i].costMicros ?? 0;
  });
  const shortS = Math.max(0, req.needS - plannedS);
  const openS = units.reduce((sum, f) => sum + (f.allowed ? f.d : 0), 0);
  // No slack: every unit the load may run in is needed (or not even they suffice).
  const tight = req.needS > 0 && openS - req.needS < (units.length > 1 ? units[1].d : 1);
  return {
    shortS,
    plannedS,
    costMicros: Math.round(costMicros),
    units: units.map((f, i) => {
      const planned: UnitPlan = { on: on[i], costMicros: f.costMicros, tooExpensive: f.tooExpensive };
      if (!on[i]) return planned;
      if (f.cheap) planned.reason = 'cheapBelow';
      else if (f.mustRun && req.blockReason) planned.reason = req.blockReason;
      else if (f.costMicros === null || tight) planned.reason = 'deadline';
      else if (f.share >= SURPLUS_SHARE) planned.reason = 'surplus';
      else planned.reason = 'cheapest';
      return planned;
    }),
  };
}
