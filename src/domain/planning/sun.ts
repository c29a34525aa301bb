import { MsgError } from '../../api/index.js';
import { parseTime, type TimeInput } from '../../api/time.js';
import { describeValue } from '../describe-value.js';
import { RECORD_S, readEntry, type HistoryEntry } from './forecast.js';

/** One slot of a solar forecast (`msg.forecast`): the array's mean power over [start, end) in W, unix s. */
export interface SunSlot {
  start: number;
  end: number;
  powerW: number;
  p10?: number;
  p90?: number;
}

/** What the plan's sun runs on: a fresh msg.forecast, the last one (older than FRESH_S or marked stale), or yesterday's sun. */
export type SunBasis = 'forecast' | 'lastForecast' | 'persistence';

/** A forecast older than this is "the last forecast": the source has not been heard from for a while. */
export const FRESH_S = 6 * 3600;
const MAX_SLOTS = 2000;
const WEEK_S = 7 * 86400;
const DAY_S = 86400;

function watts(value: unknown, where: string, required: boolean): number | undefined {
  if (value === undefined || value === null) {
    if (required) throw new MsgError(`${where} is missing: give the forecast's mean power in W`);
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new MsgError(`${where}: ${describeValue(value)} is not a power in W (a number ≥ 0)`);
  return value;
}

function instant(value: unknown, where: string): number {
  if (typeof value !== 'number' && typeof value !== 'string' && !(value instanceof Date)) throw new MsgError(`${where} must be a time (unix s or ms, ISO text), not ${describeValue(value)}`);
  try {
    return parseTime(value as TimeInput);
  } catch (err) {
    throw new MsgError(`${where}: ${(err as Error).message}`);
  }
}

/**
 * `msg.forecast` as energy-forecast sends it: `[{start, end, power, p10?, p90?}]`, times in unix s or ms (read as the
 * price lists are), power in W. Sorted; a slot that cannot be read refuses the whole list (a half-read forecast would
 * plan on a sun that is not there); overlapping slots are refused.
 */
export function readForecast(value: unknown): SunSlot[] {
  if (!Array.isArray(value)) throw new MsgError(`msg.forecast must be a list of {start, end, power}, not ${describeValue(value)}`);
  if (value.length === 0) throw new MsgError('msg.forecast is an empty list: send the forecast from now on');
  if (value.length > MAX_SLOTS) throw new MsgError(`msg.forecast has ${value.length} slots: more than ${MAX_SLOTS} is not accepted`);
  const slots = value.map((item: unknown, i) => {
    const where = `msg.forecast[${i}]`;
    if (typeof item !== 'object' || item === null) throw new MsgError(`${where} must be an object {start, end, power}, not ${describeValue(item)}`);
    const o = item as Record<string, unknown>;
    const start = instant(o.start, `${where}.start`);
    const end = instant(o.end, `${where}.end`);
    if (end <= start) throw new MsgError(`${where} ends before it starts`);
    const slot: SunSlot = { start, end, powerW: watts(o.power, `${where}.power`, true) as number };
    const p10 = watts(o.p10, `${where}.p10`, false);
    const p90 = watts(o.p90, `${where}.p90`, false);
    if (p10 !== undefined) slot.p10 = p10;
    if (p90 !== undefined) slot.p90 = p90;
    return slot;
  }).sort((a, b) => a.start - b.start);
  slots.forEach((s, i) => {
    if (i > 0 && s.start < slots[i - 1].end) throw new MsgError(`msg.forecast has overlapping slots at ${new Date(s.start * 1000).toISOString()}`);
  });
  return slots;
}

/** The sun's mean power (W) over [from, to) from the slots, and the share of it they cover. */
export function sunAverage(slots: readonly SunSlot[], from: number, to: number): { watts: number; covered: number } {
  if (to <= from) return { watts: 0, covered: 0 };
  let joules = 0;
  let seconds = 0;
  for (const s of slots) {
    if (s.end <= from) continue;
    if (s.start >= to) break;
    const overlap = Math.min(to, s.end) - Math.max(from, s.start);
    joules += s.powerW * overlap;
    seconds += overlap;
  }
  return { watts: seconds > 0 ? joules / seconds : 0, covered: seconds / (to - from) };
}

/**
 * The house's own draw (W) from the device's history: the same weekday and time a week before, else the same time
 * of the last day. The house is what the grid and the sun gave minus what the controlled loads drew; without a
 * solar channel the sun the house used is not seen, so it reads as the grid import alone.
 */
export class HouseForecast {
  private readonly byStart = new Map<number, number>();
  private latest = -Infinity;

  constructor(entries: readonly HistoryEntry[], signalChannels: readonly number[], solarChannels: readonly number[], loadChannels: readonly number[]) {
    for (const e of entries) {
      const read = readEntry(e);
      if (!read) continue;
      const { duration, joules } = read;
      const grid = signalChannels.map(joules);
      if (grid.some((v) => v === null)) continue;
      const sum = (channels: readonly number[]): number => channels.reduce((s, c) => s + (joules(c) ?? 0), 0);
      const house = ((grid as number[]).reduce((a, b) => a + b, 0) + sum(solarChannels) - sum(loadChannels)) / duration;
      const start = e.timestamp - duration;
      this.byStart.set(Math.floor(start / RECORD_S) * RECORD_S, Math.max(0, house));
      this.latest = Math.max(this.latest, start);
    }
  }

  private at(t: number): number | undefined {
    const slot = Math.floor(t / RECORD_S) * RECORD_S;
    const weekAgo = this.byStart.get(slot - WEEK_S);
    if (weekAgo !== undefined) return weekAgo;
    // The last day at the same time (a day of 23 or 25 hours shifts it by an hour: a rough guess anyway).
    for (let back = slot - DAY_S; back >= slot - WEEK_S; back -= DAY_S) {
      if (back <= this.latest) return this.byStart.get(back);
    }
    return undefined;
  }

  /** Mean draw over [from, to) (W); 0 where the history says nothing. */
  average(from: number, to: number): number {
    if (to <= from) return 0;
    let weighted = 0;
    for (let t = from; t < to;) {
      const next = Math.min(to, (Math.floor(t / RECORD_S) + 1) * RECORD_S);
      weighted += (this.at(t) ?? 0) * (next - t);
      t = next;
    }
    return weighted / (to - from);
  }
}

/** A received forecast as the plan uses it. */
export interface SunInput {
  slots: readonly SunSlot[];
  /** Unix s it was received. */
  receivedS: number;
  /** The sender marked it as its last good one (its source failing). */
  stale?: boolean;
}

/** Which basis a unit [from, to) plans on, given the forecast (if any) and now. */
export function basisOf(sun: SunInput | undefined, nowS: number, from: number, to: number): SunBasis {
  if (!sun || sunAverage(sun.slots, from, to).covered < 0.5) return 'persistence';
  return sun.stale || nowS - sun.receivedS > FRESH_S ? 'lastForecast' : 'forecast';
}

/**
 * The surplus a load may expect over [from, to) (W): the forecast's sun minus the house's own draw where the
 * forecast reaches, else yesterday's surplus at the same time (persistence).
 */
export function expectedSurplus(sources: {
  persistence?: { average(from: number, to: number): number };
  house?: HouseForecast;
  sun?: SunInput;
  nowS: number;
}): (from: number, to: number) => number {
  const { persistence, house, sun, nowS } = sources;
  return (from, to) => {
    if (!sun || basisOf(sun, nowS, from, to) === 'persistence') return persistence?.average(from, to) ?? 0;
    return Math.max(0, sunAverage(sun.slots, from, to).watts - (house?.average(from, to) ?? 0));
  };
}
