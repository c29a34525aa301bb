import type { TargetPeriod } from './period.js';

/** Run time counted toward the target of one period; part of the load's persisted memory. */
export interface RunCount {
  /** Start (unix s) of the period the count belongs to. */
  period: number;
  /** Seconds the load ran in it so far. */
  seconds: number;
  /** Unix s up to which time is counted. */
  at: number;
  /** Whether the load was on at `at`. */
  on: boolean;
}

export interface RunObservation {
  nowS: number;
  period: TargetPeriod;
  /** The load's state now (confirmed by the device, or on paper in a dry run). */
  on: boolean;
  /** Unix s of the last change of state, if known. */
  sinceS?: number;
  /** Seconds since `at` in which the load channel shows the load drawing power while the node had it off. */
  drawnWhileOffS?: number;
  /** Time not seen for longer than this is not counted (a restart, a long gap without evaluations). */
  maxGapS: number;
}

/**
 * Adds the time since the last count: the load counts as running while it was on (a thermostat that
 * cut it out counts too: it could take no more) and, with a load channel, while it drew power with the
 * switch thought off. Time before the period's start belongs to the period before and is dropped.
 */
export function countRun(previous: RunCount | undefined, o: RunObservation): RunCount {
  const fresh = (): RunCount => ({ period: o.period.start, seconds: 0, at: Math.max(o.period.start, o.nowS), on: o.on });
  if (!previous || previous.at > o.nowS || o.nowS - previous.at > o.maxGapS) {
    return previous && previous.period === o.period.start ? { ...previous, at: o.nowS, on: o.on } : fresh();
  }
  const from = Math.max(previous.at, o.period.start);
  const to = o.nowS;
  const since = o.sinceS !== undefined && o.sinceS >= from && o.sinceS <= to ? o.sinceS : undefined;
  let ran = 0;
  if (previous.on && o.on) ran = to - from;
  else if (previous.on) ran = (since ?? to) - from;
  else if (o.on) ran = to - (since ?? from);
  else ran = Math.min(to - from, o.drawnWhileOffS ?? 0);
  const base = previous.period === o.period.start ? previous.seconds : 0;
  return { period: o.period.start, seconds: base + Math.max(0, ran), at: to, on: o.on };
}
