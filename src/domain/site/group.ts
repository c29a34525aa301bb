import type { PricePeriod } from '../pricing/types.js';
import { observe } from './observe.js';
import { SurplusForecast, type HistoryEntry } from '../planning/forecast.js';
import { basisOf, expectedSurplus, HouseForecast, type SunBasis, type SunInput } from '../planning/sun.js';
import type { PlanReason } from '../planning/planner.js';
import { planTarget, type PlanNow } from '../planning/target.js';
import { decide, holdLeft, type LoadView } from './rules.js';
import { evaluateModulating } from './modulating-member.js';
import { setpointWatts } from './modulation.js';
import { averagePower, inWindow, newestTimestamp, runningPower } from './signal.js';
import type { Evaluation, LoadMemory, LoadSettings, LoadState, MemberPricing, PowerSettings, ShortEntry, SwitchReading, TargetSettings, TargetState } from './types.js';

const MIN_LEARNT_W = 50;

/** One load of a site, as the group evaluates it. */
export interface MemberInput {
  id: string;
  settings: LoadSettings;
  memory: LoadMemory;
  /** The switch as read at this evaluation; absent when it was not read. */
  reading?: SwitchReading;
  /** Its actuator's feedback could not be read: the fail-safe applies as to stale data. */
  faulty?: boolean;
  /** Prices and the time zone, for a load with a run target. */
  pricing?: MemberPricing;
  /** The last msg.forecast of the sun, if any (else the plan's sun is yesterday's). */
  sun?: SunInput;
}

/** What the shared reads gave. */
export interface SiteReading {
  /** The latest read's entries (kept when a read fails, so the window empties as time passes). */
  entries: readonly ShortEntry[];
  /** End (unix s) of the newest entry ever read, if any. */
  newestS?: number;
  /** Node-clock ms when the group started reading: with no entry yet, staleness counts from here. */
  startedAt: number;
  /** The measuring device's 5-minute long energy of the last week (for the surplus and house forecasts of run targets). */
  history?: readonly HistoryEntry[];
}

/** Learnt from loadChannel while the load ran, else the rated power. */
export function expectedPower(settings: LoadSettings, memory: LoadMemory): number {
  if (settings.power) return setpointWatts(settings.power, memory);
  return memory.learntPower ?? settings.loadPower;
}

/**
 * Every load of one measuring device, evaluated together on one read. Loads are taken by priority
 * (1 first, then by id so the order never depends on deploy order). Surplus and peak loads share the
 * site: the group first takes every load's own draw out of the measured signal, then hands it back in
 * priority order, each load holding what it will draw (what it draws now once it has run a whole
 * window; a load that is on but drawing nothing, its thermostat satisfied, holds nothing). A dry run
 * sees the same share but takes nothing from the others. Pure.
 */
export function evaluateGroup(members: readonly MemberInput[], site: SiteReading, now: number): Map<string, Evaluation> {
  const nowS = Math.floor(now / 1000);
  const observed = members.map((m) => ({ input: m, ...observe(m.settings, m.memory, m.reading, now) }));
  const ordered = [...observed].sort((a, b) => a.input.settings.priority - b.input.settings.priority || (a.input.id < b.input.id ? -1 : 1));
  const held = { surplus: 0, peak: 0 };
  /** The part of held.surplus taken by loads whose plans are in `planned` (so their draw is not taken twice). */
  let heldByPlans = 0;
  const results = new Map<string, Evaluation>();
  const planned: PlannedDraw[] = [];
  const forecasts = forecastsOf(site.history);
  const loadChannels = [...new Set(members.flatMap((m) => (m.settings.loadChannel === undefined ? [] : [m.settings.loadChannel])))];

  for (const member of ordered) {
    const { settings } = member.input;
    let memory = member.memory;
    const entries = inWindow(site.entries, nowS, settings.windowS);
    const stale = isStale(settings, site, nowS, now) || member.input.faulty === true;
    const draws = observed.map((o) => drawOf(o.input.settings, o.memory, o.input.settings === settings ? entries : inWindow(site.entries, nowS, o.input.settings.windowS), nowS));
    const ownDraw = draws[observed.indexOf(member)];
    const measured = averagePower(entries, settings.channels);
    const groupDraw = realDraw(observed.map((o) => o.input.settings), draws, settings.mode);
    if (settings.power) {
      // A modulating load takes what the loads before it leave, and holds what it takes from the ones after it.
      const mode = settings.mode === 'peak' ? 'peak' : 'surplus';
      const signal = measured === null ? null : mode === 'surplus' ? -measured + groupDraw - held.surplus : measured - groupDraw + held.peak;
      const pricing = member.input.pricing;
      const sunForecastAt = (from: number, to: number): boolean => basisOf(member.input.sun, nowS, from, to) !== 'persistence';
      const modulating = evaluateModulating({
        settings: settings as LoadSettings & { power: PowerSettings }, memory, outcomes: member.outcomes, signal, stale, draw: ownDraw, now,
        planning: settings.energyTarget && pricing ? { pricing, entries: site.entries, expectedSurplusW: surplusForecast(forecasts, site, settings, loadChannels, pricing.zone, planned, member.input.sun, nowS), sunForecastAt } : undefined,
      });
      held[mode] += modulating.holdsW;
      results.set(member.input.id, modulating.evaluation);
      continue;
    }
    const power = expectedPower(settings, memory);
    let signal: number | null = measured;
    if (measured !== null && settings.mode === 'surplus') signal = -measured + groupDraw - held.surplus;
    if (measured !== null && settings.mode === 'peak') {
      signal = measured - groupDraw + held.peak + (memory.state === 'on' ? heldPower(settings, memory, ownDraw, power, now) : 0);
    }
    let plan: PlanNow | undefined;
    let target: TargetState | undefined;
    let hasPlan = false;
    const pricing = member.input.pricing;
    if (settings.target && pricing) {
      const surplus = sunOrPersistence(forecasts, site, settings, loadChannels, pricing.zone, member.input.sun, nowS);
      const planning = planTarget({
        settings: settings as LoadSettings & { target: TargetSettings },
        memory, now, zone: pricing.zone, prices: pricing.prices, tariff: pricing.tariff, powerW: power,
        measuredSurplusW: settings.mode === 'surplus' ? signal : null,
        // What the plans of higher priority will take later is not free now: it is gone once they start.
        takenLaterW: (from, to) => Math.max(0, plannedDraw(planned, from, to) - heldByPlans),
        expectedSurplusW: (from, to) => Math.max(0, surplus(from, to) - plannedDraw(planned, from, to)),
        sunForecastAt: (from, to) => basisOf(member.input.sun, nowS, from, to) !== 'persistence',
        drawnWhileOffS: drawnWhileOff(settings, memory, site.entries, nowS, power),
        holdLeftS: holdLeft(settings, memory, memory.state, now),
      });
      ({ memory, now: plan, state: target } = planning);
      if (settings.mode === 'surplus') target = { ...target, sun: sunBasis(member.input.sun, nowS, target) };
      if (settings.mode === 'surplus' && !settings.dryRun) {
        planning.state.units.forEach((u, i) => { if (planning.state.plan[i].on) planned.push({ start: u.start, end: u.end, watts: power }); });
        hasPlan = true;
      }
    }
    const view: LoadView = { state: memory.state, pending: member.pending, stale, signal, expectedPower: power, draw: ownDraw, plan };
    const decision = decide(settings, memory, view, now);

    const after: LoadState | undefined = decision.switchTo ?? memory.pending?.target ?? memory.state;
    if (after === 'on' && (settings.mode === 'surplus' || settings.mode === 'peak') && !settings.dryRun) {
      const justOn = decision.switchTo === 'on' || memory.pending?.target === 'on';
      const holds = justOn ? power : heldPower(settings, memory, ownDraw, power, now);
      held[settings.mode] += holds;
      if (hasPlan) heldByPlans += holds;
    }
    const learnt = settings.loadChannel !== undefined && memory.state === 'on' ? runningPower(entries, settings.loadChannel) : null;
    // Standby or a thermostat cutting in mid-entry is not the load's power: learn only a real run.
    const learns = learnt !== null && learnt >= Math.max(MIN_LEARNT_W, settings.loadPower * 0.2);
    let nextMemory: LoadMemory = learns ? { ...memory, learntPower: Math.round(learnt) } : memory;
    if (decision.switchTo === 'on' && decision.fromPlan && settings.target) {
      // A block the plan starts runs its minimum whatever the next price list says.
      const blockS = Math.max(settings.target.minBlockS, settings.minOnS);
      nextMemory = { ...nextMemory, block: { start: now, until: now + blockS * 1000, reason: decision.reason as PlanReason } };
    } else if (decision.switchTo === 'off' && nextMemory.block) {
      const { block: _ended, ...rest } = nextMemory;
      nextMemory = rest;
    }
    const evaluation: Evaluation = {
      at: now,
      signal: round(signal),
      onAt: round(decision.onAt),
      offAt: round(decision.offAt),
      loadDraw: round(ownDraw),
      state: memory.state ?? null,
      pending: member.pending,
      stale,
      reason: decision.reason,
      holdLeftS: decision.holdLeftS,
      switchTo: decision.switchTo,
      outcomes: member.outcomes,
      memory: nextMemory,
    };
    if (target) evaluation.target = target;
    results.set(member.input.id, evaluation);
  }
  return results;
}

/** Expected surplus for a modulating load's energy target (W): the forecast's or the last day's, less what plans before it take. */
function surplusForecast(forecasts: Map<string, HistoryForecast>, site: SiteReading, settings: LoadSettings, loadChannels: number[], zone: string, planned: readonly PlannedDraw[], sun: SunInput | undefined, nowS: number): (from: number, to: number) => number {
  const surplus = sunOrPersistence(forecasts, site, settings, loadChannels, zone, sun, nowS);
  return (from, to) => Math.max(0, surplus(from, to) - plannedDraw(planned, from, to));
}

/** The surplus a load may expect (W): msg.forecast's sun minus the house where it reaches, else yesterday's surplus. */
function sunOrPersistence(forecasts: Map<string, HistoryForecast>, site: SiteReading, settings: LoadSettings, loadChannels: number[], zone: string, sun: SunInput | undefined, nowS: number): (from: number, to: number) => number {
  const key = `${settings.channels.join(',')}|${loadChannels.join(',')}|${zone}`;
  const persistence = forecastOf(forecasts, site.history, key, () => new SurplusForecast(lastDay(site.history ?? []), settings.channels, loadChannels, zone));
  const house = sun ? forecastOf(forecasts, site.history, `house|${key}|${(settings.solarChannels ?? []).join(',')}`, () => new HouseForecast(site.history ?? [], settings.channels, settings.solarChannels ?? [], loadChannels)) : undefined;
  return expectedSurplus({ persistence, house, sun, nowS });
}

/** Stale: the newest entry ever read (or, with none yet, the start) is older than staleAfter, whether reads fail or the device went quiet. */
function isStale(settings: LoadSettings, site: SiteReading, nowS: number, now: number): boolean {
  const newest = Math.max(site.newestS ?? -Infinity, newestTimestamp(site.entries) ?? -Infinity);
  if (Number.isFinite(newest)) return nowS - newest > settings.staleAfterS;
  return now - site.startedAt > settings.staleAfterS * 1000;
}

/**
 * What the loads of a mode really draw (W): dry runs switch nothing, so they draw nothing; loads
 * measured on the same channel count once.
 */
function realDraw(settings: readonly LoadSettings[], draws: readonly number[], mode: LoadSettings['mode']): number {
  const channels = new Set<number>();
  let sum = 0;
  settings.forEach((s, i) => {
    if (s.mode !== mode || s.dryRun) return;
    if (s.loadChannel !== undefined) {
      if (channels.has(s.loadChannel)) return;
      channels.add(s.loadChannel);
    }
    sum += draws[i];
  });
  return sum;
}

/**
 * What the load draws, averaged over the window (W): measured on loadChannel, else (and in a dry run,
 * whose load only switches on paper) estimated from its expected power and the share of the window it was on.
 */
function drawOf(settings: LoadSettings, memory: LoadMemory, entries: readonly ShortEntry[], nowS: number): number {
  if (settings.loadChannel !== undefined && !settings.dryRun) return averagePower(entries, [settings.loadChannel]) ?? 0;
  const power = expectedPower(settings, memory);
  const sinceS = memory.since === undefined ? Infinity : nowS - memory.since / 1000;
  const share = Math.min(1, Math.max(0, sinceS / settings.windowS));
  if (memory.state === 'on') return power * share;
  return memory.since === undefined ? 0 : power * (1 - share);
}

/** What an on load keeps from the pool: its expected power until it has run a whole window, then what it really draws. */
function heldPower(settings: LoadSettings, memory: LoadMemory, draw: number, power: number, now: number): number {
  const ranWholeWindow = memory.since === undefined || now - memory.since >= settings.windowS * 1000;
  if (settings.loadChannel === undefined || settings.dryRun || !ranWholeWindow) return power;
  return Math.max(0, draw);
}

type HistoryForecast = SurplusForecast | HouseForecast;
/** The forecasts built on the history (read once a day): kept with it, not built again at every evaluation. */
const forecastCache = new WeakMap<readonly HistoryEntry[], Map<string, HistoryForecast>>();
function forecastsOf(history: readonly HistoryEntry[] | undefined): Map<string, HistoryForecast> {
  if (!history) return new Map();
  let cached = forecastCache.get(history);
  if (!cached) forecastCache.set(history, (cached = new Map()));
  return cached;
}

function forecastOf<T extends HistoryForecast>(cache: Map<string, HistoryForecast>, history: readonly HistoryEntry[] | undefined, key: string, build: () => T): T | undefined {
  if (!history) return undefined;
  let forecast = cache.get(key) as T | undefined;
  if (!forecast) cache.set(key, (forecast = build()));
  return forecast;
}

/** The last day of the history: yesterday's sun is the persistence forecast. */
function lastDay(history: readonly HistoryEntry[]): HistoryEntry[] {
  const newest = history.reduce((m, e) => Math.max(m, e.timestamp), -Infinity);
  return history.filter((e) => e.timestamp > newest - 86_400);
}

/** What the plan's sun ran on: the forecast where it reaches a unit of the plan, else yesterday's sun. */
function sunBasis(sun: SunInput | undefined, nowS: number, target: TargetState): SunBasis {
  for (const u of target.units) {
    const basis = basisOf(sun, nowS, u.start, u.end);
    if (basis !== 'persistence') return basis;
  }
  return 'persistence';
}

/** Surplus a load of higher priority is planned to take (W), on a unit of the plan. */
interface PlannedDraw {
  start: number;
  end: number;
  watts: number;
}

/** The planned draws of the loads before this one, averaged over [from, to) (W). */
function plannedDraw(planned: readonly PlannedDraw[], from: number, to: number): number {
  if (to <= from) return 0;
  let joules = 0;
  for (const p of planned) joules += p.watts * Math.max(0, Math.min(to, p.end) - Math.max(from, p.start));
  return joules / (to - from);
}

/**
 * Seconds since the last count in which the load channel shows the load drawing power while the node had
 * it off (switched on elsewhere and not yet adopted): what it really drew counts toward its target.
 */
function drawnWhileOff(settings: LoadSettings, memory: LoadMemory, entries: readonly ShortEntry[], nowS: number, power: number): number {
  const channel = settings.loadChannel;
  const from = memory.run?.at;
  if (channel === undefined || settings.dryRun || memory.state === 'on' || from === undefined) return 0;
  const minimum = Math.max(MIN_LEARNT_W, power * 0.2);
  let seconds = 0;
  for (const e of entries) {
    const duration = e.duration ?? 0;
    if (e.timestamp <= from || e.timestamp > nowS || duration <= 0) continue;
    const watts = averagePower([e], [channel]);
    if (watts !== null && watts >= minimum) seconds += Math.min(duration, e.timestamp - from);
  }
  return seconds;
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}
