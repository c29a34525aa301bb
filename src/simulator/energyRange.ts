/** Short and long energy entries of a device (spec 2.9, 2.10). */
import type { Granularity } from '../api/types.js';
import { forEachBucket } from './buckets.js';
import { countersAt, diff, frequencyAt, instantAt, iRmsAt, rangeOver, vRmsAt, type Counters, type Instant } from './energyModel.js';
import type { RawEntry } from './energyOptions.js';
import type { SimDevice } from './types.js';

export const SHORT_RETENTION = 31 * 86400;
/** Long energy is stored on the device as 5-minute records. */
export const RECORD = 300;

function net(pos: number[], neg: number[]): number[] {
  return pos.map((p, i) => p - neg[i]);
}

function shortEntry(dev: SimDevice, before: Counters, after: Counters, ts: number, duration: number): RawEntry {
  const realPos = diff(before.realPos, after.realPos);
  const realNeg = diff(before.realNeg, after.realNeg);
  const reactivePos = diff(before.reactivePos, after.reactivePos);
  const reactiveNeg = diff(before.reactiveNeg, after.reactiveNeg);
  return {
    timestamp: ts,
    duration,
    frequency: frequencyAt(dev, ts),
    energy: [['eReal', net(realPos, realNeg)], ['eReactive', net(reactivePos, reactiveNeg)]],
    volts: [['vRMS', vRmsAt(dev, ts)]],
    amps: [['iRMS', iRmsAt(dev, ts)]],
  };
}

/** Short entries with fromTs <= timestamp < toTs among those that exist at sim time `now`. */
export function shortEntries(dev: SimDevice, now: number, end: number, fromTs: number, toTs: number): RawEntry[] {
  const iv = dev.interval;
  const earliest = Math.max(dev.dataStart + iv, now - SHORT_RETENTION, fromTs);
  const out: RawEntry[] = [];
  let ts = Math.ceil(earliest / iv) * iv;
  let before = countersAt(dev, ts - iv);
  for (; ts < toTs && ts <= end; ts += iv) {
    const after = countersAt(dev, ts);
    out.push(shortEntry(dev, before, after, ts, iv));
    before = after;
  }
  return out;
}

interface Boundary {
  t: number;
  counters: Counters;
  instant: Instant;
}

function boundaryAt(dev: SimDevice, t: number): Boundary {
  return { t, counters: countersAt(dev, t), instant: instantAt(dev, t) };
}

function longEntry(dev: SimDevice, start: Boundary, end: Boundary): RawEntry {
  const a = start.t;
  const b = end.t;
  const before = start.counters;
  const after = end.counters;
  const realPos = diff(before.realPos, after.realPos);
  const realNeg = diff(before.realNeg, after.realNeg);
  const reactivePos = diff(before.reactivePos, after.reactivePos);
  const reactiveNeg = diff(before.reactiveNeg, after.reactiveNeg);
  const { v, i } = rangeOver(dev, a, b, start.instant, end.instant);
  return {
    timestamp: b,
    duration: b - a,
    energy: [
      ['eReal', net(realPos, realNeg)], ['eRealPositive', realPos], ['eRealNegative', realNeg],
      ['eReactive', net(reactivePos, reactiveNeg)], ['eReactivePositive', reactivePos], ['eReactiveNegative', reactiveNeg],
    ],
    volts: [['vRMSMin', v.min], ['vRMSMax', v.max]],
    amps: [['iRMSMin', i.min], ['iRMSMax', i.max]],
  };
}

/**
 * Long entries: each bucket intersected with [fromTs, toTs) and the data available
 * ([dataStart, end)); the entry's timestamp is the end of the covered part.
 */
export function longEntries(dev: SimDevice, end: number, g: Granularity, zone: string, fromTs: number, toTs: number): RawEntry[] {
  // Only whole 5-minute records inside [fromTs, toTs) count; the one in progress does not exist yet.
  const lo = Math.ceil(Math.max(fromTs, dev.dataStart) / RECORD) * RECORD;
  const hi = Math.floor(Math.min(toTs, end) / RECORD) * RECORD;
  const out: RawEntry[] = [];
  if (hi <= lo) return out;
  let previous: Boundary | undefined;
  forEachBucket(g, zone, lo, hi, (bStart, bEnd) => {
    const a = Math.max(bStart, lo);
    const b = Math.min(bEnd, hi);
    if (b <= a) return;
    const start = previous !== undefined && previous.t === a ? previous : boundaryAt(dev, a);
    const end = boundaryAt(dev, b);
    out.push(longEntry(dev, start, end));
    previous = end;
  });
  return out;
}
