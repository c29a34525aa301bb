import type { FailSafe, LoadMemory, Mode, ModulationMemory, Override, PowerSettings, Reason } from './types.js';

export interface ModulationView {
  mode: Mode;
  failSafe: FailSafe;
  /** What the load may take now (W): the surplus left to it (surplus mode), the room under the limit (peak mode). */
  availableW: number | null;
  stale: boolean;
  override?: Override;
  /** An energy target's plan asks this much power now (W) whatever the surplus: the load runs at least at it. */
  planW?: number;
  planReason?: Reason;
  /** On for a whole window and drawing nothing (no car, or a full one): a stop waits for no disable delay. */
  idle?: boolean;
}

export interface ModulationDecision {
  /** The setpoint after this evaluation (unit, 0 = off). */
  value: number;
  /** It differs from the one last sent: send it. */
  changed: boolean;
  reason: Reason;
  memory: ModulationMemory;
}

/** The setpoint last sent, in watts. */
export function setpointWatts(settings: PowerSettings, memory: ModulationMemory): number {
  return (memory.setpoint?.value ?? 0) * settings.wattsPerUnit;
}

/** The largest setpoint on the step grid that `watts` covers, within min..max (min when it covers less). */
export function fitSetpoint(settings: PowerSettings, watts: number): number {
  const units = watts / settings.wattsPerUnit;
  const stepped = settings.min + Math.floor((units - settings.min) / settings.step + 1e-9) * settings.step;
  return round(Math.min(settings.max, Math.max(settings.min, stepped)));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The setpoint of a modulating load. Off, it starts once the minimum has been available for enableDelay; on, it
 * follows what is available in whole steps, and in surplus mode stops once even the minimum with gridAllowance
 * of import has been missing for disableDelay (it runs at the minimum meanwhile); in peak mode it is capped to
 * the room under the limit and stops at once when the minimum does not fit. A setpoint changes only when it
 * moves by a step or more, and never sooner than minInterval after the last one (an override alone may). Pure.
 */
export function modulate(settings: PowerSettings, memory: ModulationMemory, view: ModulationView, now: number): ModulationDecision {
  const current = memory.setpoint?.value ?? 0;
  const keep = (reason: Reason, next: ModulationMemory = memory): ModulationDecision => ({ value: current, changed: false, reason, memory: next });
  if (view.override) return send(settings, memory, view.override.state === 'on' ? settings.max : 0, 'override', now, true);
  if (view.stale) {
    if (view.failSafe === 'hold') return keep('stale');
    return send(settings, memory, view.failSafe === 'closed' ? settings.max : 0, 'failSafe', now);
  }
  const { enableSince: _e, disableSince: _d, planRun: _p, ...rest } = memory;
  if (view.planW !== undefined && view.planW > 0) {
    // The plan buys this unit (cheapest, or the deadline leaves no choice): no delay, the surplus on top if there is more.
    return send(settings, { ...rest, planRun: true }, fitSetpoint(settings, Math.max(view.availableW ?? 0, view.planW)), view.planReason ?? 'cheapest', now);
  }
  if (view.availableW === null) return keep('noData');
  const available = view.availableW;
  const minW = settings.min * settings.wattsPerUnit;
  const surplus = view.mode === 'surplus';
  if (current === 0) {
    if (available < minW) return keep(surplus ? 'noSurplus' : 'overLimit', rest);
    const enableSince = memory.enableSince ?? now;
    if (now - enableSince < settings.enableDelayS * 1000) return keep('enableDelay', { ...rest, enableSince });
    return send(settings, rest, fitSetpoint(settings, available), surplus ? 'surplus' : 'belowLimit', now);
  }
  // Running in surplus mode, the setpoint is the largest step the surplus and gridAllowance cover together.
  const allowance = surplus ? settings.gridAllowanceW : 0;
  if (available + allowance >= minW) return send(settings, rest, fitSetpoint(settings, available + allowance), surplus ? 'surplus' : 'belowLimit', now);
  if (!surplus) return send(settings, rest, 0, 'overLimit', now);
  // The disable delay keeps a run through a passing cloud. A load drawing nothing has no run to keep, and one the
  // plan ran on the grid while the minimum was short is done when the plan is: the minimum would only be bought on.
  if (view.idle || memory.planRun) return send(settings, { ...rest, planRun: memory.planRun }, 0, 'noSurplus', now);
  const disableSince = memory.disableSince ?? now;
  if (now - disableSince < settings.disableDelayS * 1000) {
    return send(settings, { ...rest, disableSince }, settings.min, 'disableDelay', now);
  }
  return send(settings, rest, 0, 'noSurplus', now);
}

/** Moves to `want` when it is a start, a stop or a step away, and minInterval has passed (or `anyTime`). */
function send(settings: PowerSettings, memory: ModulationMemory, want: number, reason: Reason, now: number, anyTime = false): ModulationDecision {
  const current = memory.setpoint?.value ?? 0;
  const moves = want !== current && (want === 0 || current === 0 || Math.abs(want - current) >= settings.step - 1e-9);
  if (!moves) return { value: current, changed: false, reason, memory };
  const last = memory.setpoint?.at;
  if (!anyTime && last !== undefined && now - last < settings.minIntervalS * 1000) return { value: current, changed: false, reason: 'minInterval', memory };
  return { value: want, changed: true, reason, memory: { ...memory, setpoint: { value: want, at: now } } };
}

/** The modulation's part of a load's memory. */
export function modulationMemory(memory: LoadMemory): ModulationMemory {
  return { setpoint: memory.setpoint, enableSince: memory.enableSince, disableSince: memory.disableSince, planRun: memory.planRun };
}
