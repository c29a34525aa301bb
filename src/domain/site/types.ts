/** The decision engine's vocabulary. Pure data: no Node-RED, no client. */
import type { TargetPeriod } from '../planning/period.js';
import type { PlanReason, UnitPlan } from '../planning/planner.js';
import type { RunCount } from '../planning/runtime.js';
import type { Unit } from '../planning/units.js';
import type { SunBasis } from '../planning/sun.js';
import type { DaySavings, NaiveSchedule, SavingsMemory } from '../planning/savings.js';
import type { PricePeriod } from '../pricing/types.js';
import type { EnergyCount, EnergyPlan, EnergyTargetSettings } from '../planning/energy-target.js';

export type Mode = 'threshold' | 'surplus' | 'peak' | 'price';
export type LoadState = 'on' | 'off';
export type FailSafe = 'hold' | 'open' | 'closed';

/** A node's properties, parsed and checked (seconds and watts as numbers). */
export interface LoadSettings {
  mode: Mode;
  /** 0-based indexes of the channels that make the measured signal. */
  channels: number[];
  /** 0-based index of the channel that measures the load itself. */
  loadChannel?: number;
  /** 0-based indexes of the measuring device's solar channels (by category), for the house's own draw. */
  solarChannels?: number[];
  /** Rated power (W); 0 = unknown until learnt from loadChannel. */
  loadPower: number;
  onAbove: number;
  offBelow: number;
  margin: number;
  limit: number;
  windowS: number;
  minOnS: number;
  minOffS: number;
  /** 0 = no maximum. */
  maxOffS: number;
  priority: number;
  staleAfterS: number;
  failSafe: FailSafe;
  dryRun: boolean;
  /** How long a switch change may stay pending before it counts as timed out. */
  timeoutS: number;
  /** Who switches the load; absent = the device's relay. */
  actuator?: 'device' | 'flow';
  /** A daily run target planned on price (and sun in surplus mode); absent = the mode's rule alone, as before targets. */
  target?: TargetSettings;
  /** A modulating load (control power): a setpoint instead of on/off; absent = on/off, as before. */
  power?: PowerSettings;
  /** A modulating load's energy target ("20 kWh by 07:00"), planned on sun and price. */
  energyTarget?: EnergyTargetSettings;
}

/** `runFor` by `by`, planned in blocks of at least `minBlock`, within `maxPrice`, always at `cheapBelow`. */
export interface TargetSettings {
  /** Seconds of running per period; 0 = no target (cheapBelow alone). */
  runForS: number;
  /** Local minute of the day the target must be met by (1440 = end of the day). */
  byMinute: number;
  minBlockS: number;
  maxPriceMicros?: number;
  cheapBelowMicros?: number;
  /** The naive schedule the savings are measured against (default: a timer ending at `by`). */
  naive?: NaiveSchedule;
}

/** A change sent to the device and not yet confirmed. */
export interface PendingChange {
  target: LoadState;
  /** Node-clock ms of the PATCH. */
  at: number;
  reason: Reason;
  signal: number | null;
}

export interface Override {
  state: LoadState;
  /** Node-clock ms; absent = until `auto`. */
  until?: number;
}

/** What a load remembers between evaluations; persisted in the node's context. */
export interface LoadMemory extends ModulationMemory {
  /** A modulating load's energy taken toward its energy target in the current period. */
  energy?: EnergyCount;
  state?: LoadState;
  /** Node-clock ms of the last change (the PATCH, or when a change made elsewhere was noticed). */
  since?: number;
  /** Node-clock ms when the load was first seen (maxOff counts from here until a change is known). */
  firstSeen?: number;
  pending?: PendingChange;
  override?: Override;
  /** W, measured on loadChannel while the load drew power. */
  learntPower?: number;
  /** Run time toward the target of the current period. */
  run?: RunCount;
  /** A block the plan started: it runs until `until` (node-clock ms) whatever a new price list says. */
  block?: { start: number; until: number; reason: PlanReason };
  /** Today's running cost against the naive schedule's, and the last week of it. */
  savings?: SavingsMemory;
}

/** The switch as the device reported it at this evaluation (absent when not read this time). */
export interface SwitchReading {
  state: LoadState;
  /** A change waiting on the device (ours or someone else's). */
  pending?: LoadState;
}

/** One short-energy entry as the API returns it (Joules per channel over `duration` s, ending at `timestamp`). */
export interface ShortEntry {
  timestamp: number;
  duration?: number;
  eReal?: Array<number | null> | unknown;
}

export type Reason =
  | 'onAbove' | 'offBelow' // threshold
  | 'surplus' | 'noSurplus' // surplus
  | 'belowLimit' | 'overLimit' // peak
  | 'cheapest' | 'deadline' | 'cheapBelow' | 'tooExpensive' | 'noPrices' // a run target planned on price
  | 'maxOff' | 'override' | 'failSafe'
  | 'minOn' | 'minOff' | 'pending' | 'stale' | 'noData' | 'unknownState' | 'steady'
  | 'enableDelay' | 'disableDelay' | 'minInterval' | 'notDrawing'; // a modulating load's setpoint

/** What happened to a previously sent change at this evaluation. */
export type Outcome =
  | { kind: 'confirmed'; target: LoadState; afterS: number; change: PendingChange }
  | { kind: 'timedOut'; target: LoadState; afterS: number; change: PendingChange }
  | { kind: 'adopted'; state: LoadState };

/** One load's evaluation: what it saw, what it decided, and its memory afterwards. */
export interface Evaluation {
  at: number;
  /** The signal the decision compared (W): measured power, available surplus or site import. */
  signal: number | null;
  /** Switch on at/above (threshold, surplus) or at/below (peak) this signal. */
  onAt: number | null;
  /** Switch off below (threshold, surplus) or above (peak) this signal. */
  offAt: number | null;
  /** The load's own draw averaged over the window (W), when measured or estimated. */
  loadDraw: number | null;
  state: LoadState | null;
  pending: boolean;
  stale: boolean;
  reason: Reason;
  /** s until the hold (minOn/minOff) ends; 0 when free. */
  holdLeftS: number;
  /** A change to send now. */
  switchTo?: LoadState;
  outcomes: Outcome[];
  memory: LoadMemory;
  /** The run target's plan, when the load has one. */
  target?: TargetState;
  /** A modulating load's setpoint after this evaluation. */
  setpoint?: SetpointState;
  /** A modulating load's energy target and its plan. */
  energy?: EnergyPlan;
}

/** A modulating load's setpoint at one evaluation. */
export interface SetpointState {
  /** In `unit`; 0 = off. */
  value: number;
  unit: 'A' | 'W';
  watts: number;
  /** A new setpoint to send now. */
  changed: boolean;
}

/** A load's run target at one evaluation: the period, what ran, and the plan for the rest of it. */
export interface TargetState {
  period: TargetPeriod;
  /** The device's zone, for times in the status. */
  zone: string;
  runForS: number;
  /** Seconds run so far in the period. */
  runS: number;
  /** Seconds planned from now to the end of the period. */
  plannedS: number;
  /** Seconds the target will fall short by, running every unit it may (0 = it can be met). */
  shortS: number;
  /** Expected cost of the planned units (micro-units of the currency). */
  costMicros: number;
  units: Unit[];
  plan: UnitPlan[];
  /** Import price now (micro-units per kWh), null when unknown. */
  priceMicros: number | null;
  /** Start (unix s) of the next planned run when the load is not planned on now. */
  nextStart?: number;
  /** No slot up to the deadline has a price yet (no price list, no tariff). */
  noPrices?: boolean;
  /** Surplus mode: what the plan's sun runs on (msg.forecast, the last one, or yesterday's sun). */
  sun?: SunBasis;
  /** What running cost today against the naive schedule (with prices). */
  savings?: DaySavings;
}

/**
 * A modulating load (an EV charger, a heat pump with a power input): the node sends a setpoint, in amperes
 * (with the phases and voltage that make them watts) or in watts, between a minimum and a maximum.
 */
export interface PowerSettings {
  unit: 'A' | 'W';
  /** W per unit: phases × voltage for amperes, 1 for watts. */
  wattsPerUnit: number;
  /** Lowest setpoint the load runs at (unit); below it, it is off. */
  min: number;
  max: number;
  /** The setpoint moves by whole steps (unit), and only when it would move by one at least. */
  step: number;
  /** The minimum must have been available this long before the load starts. */
  enableDelayS: number;
  /** The minimum must have been missing this long before the load stops (surplus mode). */
  disableDelayS: number;
  /** Import (W) the load may take from the grid while it runs (surplus mode): its setpoint is the largest step the surplus and this cover together. */
  gridAllowanceW: number;
  /** Two setpoints are at least this far apart. */
  minIntervalS: number;
}

/** The setpoint last sent (unit, 0 = off) and when. */
export interface Setpoint {
  value: number;
  /** Node-clock ms. */
  at: number;
}

/** What the modulation remembers between evaluations (part of the load's memory). */
export interface ModulationMemory {
  setpoint?: Setpoint;
  /** Node-clock ms since the minimum has been available while off (the enable delay runs). */
  enableSince?: number;
  /** Node-clock ms since the minimum has been missing while on (the disable delay runs). */
  disableSince?: number;
  /** The last setpoint came from the energy target's plan (it bought the unit), not from the surplus. */
  planRun?: boolean;
}

/** Prices and the time zone, for a load with a run or energy target. */
export interface MemberPricing {
  /** The device's time zone: the target's period and the tariff's hours are read in it. */
  zone: string;
  /** The latest msg.prices. */
  prices: readonly PricePeriod[];
  /** The tariff's slots over [from, to) (none without a tariff). */
  tariff(from: number, to: number): PricePeriod[];
}
