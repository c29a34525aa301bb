import type { PricePeriod } from '../pricing/types.js';
import type { LoadMemory, LoadSettings, TargetSettings, TargetState } from '../site/types.js';
import { targetPeriod } from './period.js';
import { plan, type PlanReason } from './planner.js';
import { countRun, type RunCount } from './runtime.js';
import { buildUnits } from './units.js';
import { periodAt } from '../pricing/normalise.js';
import { accrueSavings, expectedDay, type PriceAt, type SavingsMemory } from './savings.js';

/** How long the surplus measured now weighs on the expectation of the slots after it, where no sun forecast reaches. */
const NOWCAST_S = 3600;

/** What the plan asks of the load now. */
export interface PlanNow {
  on: boolean;
  reason?: PlanReason;
  /** The import price now is above maxPrice (and surplus does not cover the load). */
  tooExpensive: boolean;
  /** Nothing more is needed in this period. */
  met: boolean;
  /** The slot now has a price: the plan can weigh the sun against the grid (else surplus mode falls back to its rule). */
  priced: boolean;
  /** No slot up to the deadline has a price (no price list yet, no tariff): the plan waits for prices or the deadline. */
  noPrices: boolean;
}

export interface TargetInput {
  settings: LoadSettings & { target: TargetSettings };
  /** The load's memory after observing the device. */
  memory: LoadMemory;
  now: number;
  zone: string;
  prices: readonly PricePeriod[];
  /** The tariff's slots over a span (empty without a tariff). */
  tariff(from: number, to: number): PricePeriod[];
  powerW: number;
  /** Surplus for this load measured now (W), surplus mode only. */
  measuredSurplusW: number | null;
  /**
   * Surplus measured now that the plans of higher priority take over [from, to) and do not take now (W):
   * it is not this load's in those units.
   */
  takenLaterW?(from: number, to: number): number;
  /**
   * A sun forecast (msg.forecast) covers [from, to): the plan counts no more surplus there than the forecast's, and a
   * reading above it does not start a run (a break in the clouds, a draw that paused: the moment's, not the hour's).
   */
  sunForecastAt?(from: number, to: number): boolean;
  /** Expected surplus for this load over [from, to) (W), after the loads of higher priority. */
  expectedSurplusW(from: number, to: number): number;
  /** Seconds since the last count in which the load channel showed the load drawing while it was thought off. */
  drawnWhileOffS: number;
  /** Seconds of minOn (when on) or minOff (when off) still to hold. */
  holdLeftS: number;
}

/**
 * Counts the run time and plans the rest of the period. Every evaluation re-plans from the current state,
 * so a new price list, surplus that came or went, or an override are all taken into account at once.
 */
export function planTarget(input: TargetInput): { memory: LoadMemory; state: TargetState; now: PlanNow } {
  const { settings, now, zone } = input;
  const { target } = settings;
  const nowS = Math.floor(now / 1000);
  const period = targetPeriod(nowS, zone, target.byMinute);
  const on = input.memory.state === 'on';
  const run = countRun(input.memory.run, {
    nowS, period, on,
    sinceS: input.memory.since === undefined ? undefined : Math.floor(input.memory.since / 1000),
    drawnWhileOffS: input.drawnWhileOffS,
    maxGapS: Math.max(600, settings.staleAfterS),
  });
  // A block is on its way while the switch-on is pending on the device: it must not be forgotten meanwhile.
  const running = on || input.memory.pending?.target === 'on';
  const block = input.memory.block && input.memory.block.until > now && running ? input.memory.block : undefined;
  const memory: LoadMemory = { ...input.memory, run, savings: accrue(input, period, nowS, ranSince(input.memory.run, run), Math.max(600, settings.staleAfterS)) };
  if (!block) delete memory.block;
  const blockLeftS = block ? Math.ceil((block.until - now) / 1000) : 0;
  const units = buildUnits({
    nowS,
    endS: period.end,
    prices: input.prices,
    tariff: input.tariff(nowS, period.end),
    surplus: (from, to) => {
      if (settings.mode !== 'surplus') return 0;
      const measured = input.measuredSurplusW === null ? null : Math.max(0, input.measuredSurplusW);
      if (measured === null) return input.expectedSurplusW(from, to);
      if (input.sunForecastAt?.(from, to)) {
        // With a forecast, a reading above it does not start a run: a break in the clouds is no sun to plan on. A run
        // going on keeps the sun it measures now (stopping it on a forecast that missed the sun would waste it), and a
        // reading below the forecast keeps the plan from a sun that is not there now.
        const expected = input.expectedSurplusW(from, to);
        if (from !== nowS) return expected;
        return on ? measured : Math.min(measured, expected);
      }
      if (from === nowS) return measured;
      // Without a forecast the sun measured now fades into yesterday's over the next hour: clouds come and go, but not at once.
      const weight = Math.max(0, 1 - (from - nowS) / NOWCAST_S);
      const left = Math.max(0, measured - (input.takenLaterW?.(from, to) ?? 0));
      return weight * left + (1 - weight) * input.expectedSurplusW(from, to);
    },
  });
  const needS = Math.max(0, target.runForS - run.seconds);
  const result = plan({
    units,
    powerW: input.powerW,
    needS,
    on,
    mustRunS: on ? Math.max(blockLeftS, input.holdLeftS) : 0,
    mustRestS: on ? 0 : input.holdLeftS,
    minRunS: Math.max(target.minBlockS, settings.minOnS),
    minRestS: settings.minOffS,
    maxPriceMicros: target.maxPriceMicros,
    cheapBelowMicros: target.cheapBelowMicros,
    useSurplus: settings.mode === 'surplus',
    blockReason: block?.reason,
  }, nowS);
  const first = result.units[0];
  const nextIndex = result.units.findIndex((u, i) => u.on && i > 0 && !result.units[i - 1].on);
  const state: TargetState = {
    period,
    zone,
    runForS: target.runForS,
    runS: run.seconds,
    plannedS: result.plannedS,
    shortS: result.shortS,
    costMicros: result.costMicros,
    units,
    plan: result.units,
    priceMicros: units[0]?.importMicros ?? null,
  };
  state.savings = expectedDay(memory.savings as SavingsMemory, units, result.units.map((u) => u.on), {
    period, runForS: target.runForS, naive: target.naive ?? 'timer', powerW: input.powerW, useSurplus: settings.mode === 'surplus',
  });
  const noPrices = units.length > 0 && units.every((u) => u.importMicros === null);
  if (noPrices) state.noPrices = true;
  if (!(first?.on ?? false) && nextIndex > 0) state.nextStart = units[nextIndex].start;
  return {
    memory,
    state,
    now: { on: first?.on ?? false, reason: first?.reason, tooExpensive: first?.tooExpensive ?? false, met: needS === 0, priced: (units[0]?.importMicros ?? null) !== null, noPrices },
  };
}

/** The price of the stretch since the last evaluation, from the price list, else the tariff. */
function priceAt(input: TargetInput, from: number, to: number): PriceAt {
  const listed = periodAt(input.prices, from);
  const tariffed = listed ? undefined : periodAt(input.tariff(from, Math.max(to, from + 1)), from);
  const p = listed ?? tariffed;
  return { importMicros: p ? p.micros : null, exportMicros: p?.exportMicros ?? 0 };
}

/** Today's running cost and the naive schedule's, up to now (the load's state since the last evaluation). */
function accrue(input: TargetInput, period: { start: number; end: number }, nowS: number, ranS: number, maxGapS: number): SavingsMemory {
  const previous = input.memory.savings;
  const from = previous?.at ?? nowS;
  const { target } = input.settings;
  return accrueSavings(previous, {
    nowS, period, runForS: target.runForS, naive: target.naive ?? 'timer', maxGapS,
    ranS,
    wasOn: input.memory.run?.on ?? false,
    powerW: input.powerW,
    price: priceAt(input, from, nowS),
    surplusW: input.settings.mode === 'surplus' ? Math.max(0, input.measuredSurplusW ?? 0) : 0,
  });
}

/** Seconds of running the count added at this evaluation. */
function ranSince(previous: RunCount | undefined, run: RunCount): number {
  return previous && previous.period === run.period ? run.seconds - previous.seconds : run.seconds;
}
