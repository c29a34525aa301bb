import { modulate, setpointWatts } from './modulation.js';
import { drawingW, planEnergy, type EnergyPlan } from '../planning/energy-target.js';
import type { Evaluation, LoadMemory, LoadSettings, MemberPricing, Outcome, PowerSettings, ShortEntry } from './types.js';

/** A modulating load as the group hands it the site. */
export interface ModulatingInput {
  settings: LoadSettings & { power: PowerSettings };
  memory: LoadMemory;
  outcomes: Outcome[];
  /** Surplus mode: the surplus left to this load (W). Peak mode: the site's import without this load, with the loads before it as they hold (W). */
  signal: number | null;
  stale: boolean;
  /** What the load drew over the window (W), measured on loadChannel or estimated. */
  draw: number;
  now: number;
  /** With an energy target: the prices, the zone, the group's entries and the expected surplus. */
  planning?: { pricing: MemberPricing; entries: readonly ShortEntry[]; expectedSurplusW(from: number, to: number): number; sunForecastAt(from: number, to: number): boolean };
}

/** The evaluation of a modulating load, and what it holds of the site for the loads after it (W). */
export interface ModulatingResult {
  evaluation: Evaluation;
  holdsW: number;
}

/**
 * One modulating load's evaluation: what it may take (the surplus left to it, or the room under the limit), its
 * setpoint, and what it keeps from the loads of lower priority: the new setpoint's power when it changes, else
 * what it really draws once a whole window has passed since the last setpoint (a car that is full or unplugged
 * leaves the surplus to the others), or the setpoint's power without a load channel; while it waits out its enable
 * delay, its minimum; on for a whole window but drawing nothing, nothing (and its setpoint stays as it is).
 */
export function evaluateModulating(input: ModulatingInput): ModulatingResult {
  const { settings, memory, signal, now } = input;
  const power = settings.power;
  const limitRoom = settings.limit - settings.margin;
  const availableW = signal === null ? null : settings.mode === 'peak' ? limitRoom - signal : signal;
  const minW = power.min * power.wattsPerUnit;
  const wasOn = (memory.setpoint?.value ?? 0) > 0;
  // On for a whole window and drawing (next to) nothing: no car, a full one, or a charger that refused. Its setpoint
  // does not rise (it would go nowhere) and it holds nothing from the loads after it until it draws again.
  const idle = wasOn && settings.loadChannel !== undefined && !settings.dryRun && memory.since !== undefined
    && input.now - memory.since >= settings.windowS * 1000 && input.draw < drawingW(minW);
  const energy = energyPlan(input, availableW, idle);
  let decision = modulate(power, memory, {
    mode: settings.mode, failSafe: settings.failSafe, availableW, stale: input.stale, override: memory.override,
    // In peak mode the plan's power is still capped to the room under the limit.
    planW: energy && settings.mode === 'peak' && availableW !== null ? Math.min(energy.gridNowW, availableW) : energy?.gridNowW,
    planReason: energy?.reason,
    idle,
  }, now);
  // Only a rise waits for it to draw: a lower setpoint (a cap under the limit) goes out at once.
  if (idle && decision.changed && decision.value > (memory.setpoint?.value ?? 0)) decision = { ...decision, value: memory.setpoint?.value ?? 0, changed: false, memory: { ...decision.memory, setpoint: memory.setpoint } };
  const on = decision.value > 0;
  const next: LoadMemory = { ...memory, ...decision.memory, state: on ? 'on' : 'off' };
  if (energy) next.energy = energy.count;
  if (!decision.memory.enableSince) delete next.enableSince;
  if (!decision.memory.disableSince) delete next.disableSince;
  // A run on the sun after the plan's run on the grid is the sun's: its dips wait out the disable delay again.
  if (!decision.memory.planRun) delete next.planRun;
  if (on !== wasOn || memory.state === undefined) next.since = now;
  const watts = setpointWatts(power, next);
  let holdsW = 0;
  // Waiting out its enable delay it keeps its minimum from the loads after it: they would only start to stop again.
  if (!on && decision.reason === 'enableDelay' && !settings.dryRun) holdsW = minW;
  if (on && !settings.dryRun && idle) holdsW = Math.max(0, input.draw);
  else if (on && !settings.dryRun) {
    const settled = next.setpoint !== undefined && now - next.setpoint.at >= settings.windowS * 1000;
    holdsW = decision.changed || !settled || settings.loadChannel === undefined ? watts : Math.max(0, input.draw);
  }
  const peak = settings.mode === 'peak';
  const evaluation: Evaluation = {
    at: now,
    signal: round(peak && signal !== null ? signal + input.draw : signal),
    onAt: round(peak ? limitRoom - minW : minW),
    offAt: round(peak ? settings.limit : minW - power.gridAllowanceW),
    loadDraw: round(input.draw),
    state: memory.state ?? null,
    pending: false,
    stale: input.stale,
    reason: idle && decision.reason === 'surplus' ? 'notDrawing' : decision.reason,
    holdLeftS: 0,
    outcomes: input.outcomes,
    memory: next,
    setpoint: { value: decision.value, unit: power.unit, watts, changed: decision.changed },
  };
  if (energy) evaluation.energy = energy;
  return { evaluation, holdsW };
}

/** The energy target's plan, when the load has one and prices (or none) to plan on. */
function energyPlan(input: ModulatingInput, availableW: number | null, idle: boolean): EnergyPlan | undefined {
  const { settings, memory, planning } = input;
  if (!settings.energyTarget || !planning) return undefined;
  const power = settings.power;
  const setpointW = setpointWatts(power, memory);
  const measured = settings.loadChannel !== undefined && !settings.dryRun;
  const held = memory.setpoint !== undefined && input.now - memory.setpoint.at >= settings.windowS * 1000;
  const settled = measured && (setpointW === 0 || held) ? { drawW: input.draw, setpointW } : undefined;
  return planEnergy({
    settings: settings.energyTarget,
    count: memory.energy,
    now: input.now,
    zone: planning.pricing.zone,
    prices: planning.pricing.prices,
    tariff: planning.pricing.tariff,
    minW: power.min * power.wattsPerUnit,
    maxW: power.max * power.wattsPerUnit,
    measuredSurplusW: settings.mode === 'surplus' ? availableW : null,
    expectedSurplusW: settings.mode === 'surplus' ? planning.expectedSurplusW : () => 0,
    sunForecastAt: planning.sunForecastAt,
    entries: planning.entries,
    loadChannel: settings.dryRun ? undefined : settings.loadChannel,
    setpointW,
    onSinceS: setpointW > 0 && memory.since !== undefined ? Math.floor(memory.since / 1000) : undefined,
    settled,
    idle,
  });
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}
