// Cuts a period into pieces inside which the price cannot change: at local midnights, at the
// tariff's time-of-use edges (both occurrences on a day the clocks go back), at DST jumps and
// at the starts and ends of message prices.
import { DateTime } from 'luxon';
import type { WallTime } from './tariff.js';

export interface Segment {
  start: number;
  end: number;
  /** Local date of the piece, 'YYYY-MM-DD'. */
  day: string;
  /** The wall time at the piece's start (prices are constant inside a piece). */
  wall: WallTime;
}

export interface LocalDay {
  day: string;
  start: number;
  end: number;
}

/** The local day containing unix second `t`. */
export function localDay(t: number, zone: string): LocalDay {
  const start = DateTime.fromSeconds(t, { zone }).startOf('day');
  return { day: start.toISODate() ?? '', start: start.toSeconds(), end: start.plus({ days: 1 }).startOf('day').toSeconds() };
}

interface DayInfo {
  day: LocalDay;
  cuts: number[];
  weekday: number;
  /** The local midnight's wall clock read as if it were UTC (seconds). */
  wallUtc: number;
  offsetBefore: number;
  /** The DST jump, if the day has one, and the offset after it (minutes). */
  jump?: number;
  offsetAfter: number;
}

/**
 * Cuts periods of one zone into pieces. The cuts of each local day are worked out once, so a
 * year of 5-minute entries costs one Luxon day computation per day, not per entry.
 */
export class Segmenter {
  private readonly days = new Map<number, DayInfo>();
  private last?: DayInfo;

  private readonly extraCuts: number[];

  constructor(private readonly zone: string, private readonly changeMinutes: number[], extraCuts: number[]) {
    this.extraCuts = [...new Set(extraCuts)].sort((a, b) => a - b);
  }

  segments(start: number, end: number): Segment[] {
    const out: Segment[] = [];
    let t = start;
    while (t < end) {
      const info = this.dayOf(t);
      const stop = Math.min(end, info.day.end);
      for (const cut of info.cuts) {
        if (cut <= t) continue;
        if (cut >= stop) break;
        out.push({ start: t, end: cut, day: info.day.day, wall: this.wallOf(info, t) });
        t = cut;
      }
      out.push({ start: t, end: stop, day: info.day.day, wall: this.wallOf(info, t) });
      t = stop;
    }
    if (this.extraCuts.length === 0) return out;
    return out.flatMap((piece) => {
      const inside: number[] = [];
      for (let i = firstAfter(this.extraCuts, piece.start); i < this.extraCuts.length && this.extraCuts[i] < piece.end; i += 1) inside.push(this.extraCuts[i]);
      if (inside.length === 0) return [piece];
      const edges = [piece.start, ...inside, piece.end];
      const info = this.dayOf(piece.start);
      return edges.slice(1).map((e, i) => ({ start: edges[i], end: e, day: piece.day, wall: this.wallOf(info, edges[i]) }));
    });
  }

  private wallOf(info: DayInfo, t: number): WallTime {
    const offset = info.jump !== undefined && t >= info.jump ? info.offsetAfter : info.offsetBefore;
    return { date: info.day.day, weekday: info.weekday, minute: Math.floor((t + offset * 60 - info.wallUtc) / 60), zone: this.zone };
  }

  private dayOf(t: number): DayInfo {
    if (this.last && t >= this.last.day.start && t < this.last.day.end) return this.last;
    const day = localDay(t, this.zone);
    let found = this.days.get(day.start);
    if (!found) {
      const jumps = dstJumps(day, this.zone);
      const cuts = new Set<number>(jumps);
      for (const minute of this.changeMinutes) for (const c of wallTimes(day, minute, this.zone)) cuts.add(c);
      const midnight = DateTime.fromSeconds(day.start, { zone: this.zone });
      found = {
        day,
        cuts: [...cuts].filter((c) => c > day.start && c < day.end).sort((a, b) => a - b),
        weekday: midnight.weekday,
        wallUtc: Date.UTC(midnight.year, midnight.month - 1, midnight.day) / 1000,
        offsetBefore: midnight.offset,
        jump: jumps[0],
        offsetAfter: offsetAt(day.end - 1, this.zone),
      };
      this.days.set(day.start, found);
    }
    this.last = found;
    return found;
  }
}

/** Index of the first element of the ascending `list` greater than `t`. */
function firstAfter(list: number[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const offsetAt = (t: number, zone: string): number => DateTime.fromSeconds(t, { zone }).offset;

/** Instants in the day where the UTC offset changes (found to the second by bisection). */
function dstJumps(day: LocalDay, zone: string): number[] {
  if (offsetAt(day.start, zone) === offsetAt(day.end - 1, zone)) return [];
  let lo = day.start;
  let hi = day.end - 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid, zone) === offsetAt(lo, zone)) lo = mid;
    else hi = mid;
  }
  return [hi];
}

/** Every instant of the day whose wall clock reads `minute` (none in a skipped hour, two in a repeated one). */
function wallTimes(day: LocalDay, minute: number, zone: string): number[] {
  const midnight = DateTime.fromSeconds(day.start, { zone });
  const wallAsUtc = Date.UTC(midnight.year, midnight.month - 1, midnight.day) / 1000 + minute * 60;
  const offsets = new Set([offsetAt(day.start, zone), offsetAt(day.end - 1, zone)]);
  const out: number[] = [];
  for (const offset of offsets) {
    const t = wallAsUtc - offset * 60;
    const local = DateTime.fromSeconds(t, { zone });
    if (t >= day.start && t < day.end && local.hour * 60 + local.minute === minute % 1440 && local.second === 0) out.push(t);
  }
  return out;
}

/** Splits `total` over parts weighted by `weights` so the parts are integers summing exactly to `total` (largest remainder). */
export function apportion(total: number, weights: number[]): number[] {
  if (weights.length === 1) return [total];
  const sum = BigInt(weights.reduce((a, b) => a + b, 0));
  if (sum <= 0n) return weights.map(() => 0);
  // BigInt: a month of Joules times its seconds passes 2^53.
  const scaled = weights.map((w) => BigInt(total) * BigInt(w));
  const parts = scaled.map((x) => x / sum);
  let left = BigInt(total) - parts.reduce((a, b) => a + b, 0n);
  const order = scaled.map((x, i) => ({ i, rest: x % sum })).sort((a, b) => (a.rest === b.rest ? a.i - b.i : a.rest > b.rest ? -1 : 1));
  for (let k = 0; left > 0n && k < order.length; k += 1, left -= 1n) parts[order[k].i] += 1n;
  return parts.map(Number);
}
