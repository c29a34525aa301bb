import type { LoadMemory, LoadSettings, Outcome, SwitchReading } from './types.js';

export interface Observation {
  memory: LoadMemory;
  outcomes: Outcome[];
  /** A change is on its way (ours or one made elsewhere): nothing may be switched now. */
  pending: boolean;
}

/**
 * Brings the memory up to date with the device: a pending change of ours is confirmed or times out,
 * a change made elsewhere (dashboard, another flow, the device) is adopted rather than fought, and
 * an override past its end is dropped. Pure: `now` is node-clock ms.
 */
export function observe(settings: LoadSettings, before: LoadMemory, reading: SwitchReading | undefined, now: number): Observation {
  const memory: LoadMemory = { ...before };
  const outcomes: Outcome[] = [];
  memory.firstSeen ??= now;
  if (memory.override?.until !== undefined && memory.override.until <= now) delete memory.override;

  if (settings.dryRun) {
    // A dry run switches nothing, so the device's state says nothing about the decisions: keep our own.
    if (memory.state === undefined && reading) memory.state = reading.state;
    return { memory, outcomes, pending: false };
  }

  const change = memory.pending;
  if (change) {
    const afterS = Math.round((now - change.at) / 1000);
    if (reading && reading.state === change.target && reading.pending === undefined) {
      delete memory.pending;
      memory.state = change.target;
      // Holds count from the PATCH, so the request log shows them to the second.
      memory.since = change.at;
      outcomes.push({ kind: 'confirmed', target: change.target, afterS, change });
    } else if (now - change.at >= settings.timeoutS * 1000) {
      delete memory.pending;
      if (reading) memory.state = reading.state;
      // A flow's actuator that never answered leaves the state unknown: no command is repeated until it tells.
      else if (settings.actuator === 'flow') delete memory.state;
      outcomes.push({ kind: 'timedOut', target: change.target, afterS, change });
    } else {
      return { memory, outcomes, pending: true };
    }
  }
  if (!reading) return { memory, outcomes, pending: false };
  if (reading.pending !== undefined) return { memory, outcomes, pending: true };
  if (memory.state === undefined) {
    memory.state = reading.state;
  } else if (memory.state !== reading.state) {
    memory.state = reading.state;
    memory.since = now;
    outcomes.push({ kind: 'adopted', state: reading.state });
  }
  return { memory, outcomes, pending: false };
}
