/** Short and long energy entries of a device (spec 2.9, 2.10). */
import type { Granularity } from '../api/types.js';
import { forEachBucket } from './buckets.js';
import { countersAt, diff, frequencyAt, iRmsAt, rangeOver, vRmsAt, type Counters } from './energyModel.js';
import type { RawEntry } from './energyOptions.js';
import type { SimDevice } from './types.js';

export const SHORT_RETENTION = 31 * 86400;

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

function longEntry(dev: SimDevice, a: number, b: number, before: Counters, after: Counters): RawEntry {
  const realPos = diff(before.realPos, after.realPos);
  const realNeg = diff(before.realNeg, after.realNeg);
  const reactivePos = diff(before.reactivePos, after.reactivePos);
  const reactiveNeg = diff(before.reactiveNeg, after.reactiveNeg);
  const v = rangeOver((t) => vRmsAt(dev, t), a, b);
  const i = rangeOver((t) => iRmsAt(dev, t), a, b);
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
  const lo = Math.max(fromTs, dev.dataStart);
  const hi = Math.min(toTs, end);
  const out: RawEntry[] = [];
  if (hi <= lo) return out;
  let before: Counters | undefined;
  let beforeAt = NaN;
  forEachBucket(g, zone, lo, hi, (bStart, bEnd) => {
    const a = Math.max(bStart, lo);
    const b = Math.min(bEnd, hi);
    if (b <= a) return;
    if (before === undefined || beforeAt !== a) before = countersAt(dev, a);
    const after = countersAt(dev, b);
    out.push(longEntry(dev, a, b, before, after));
    before = after;
    beforeAt = b;
  });
  return out;
}
