/**
 * Short and long energy entries of a device (spec 2.9, 2.10), read from the site's 5-minute
 * records (site/day.ts): long entries add whole records, short entries are the records' 30-second
 * slots, some of them lost on the way as UDP delivery loses them.
 */
import type { Granularity } from '../api/types.js';
import { forEachBucket } from './buckets.js';
import { frequencyAt, round } from './energyModel.js';
import type { RawEntry } from './energyOptions.js';
import { noise } from './site/random.js';
import { DAY, dayData, externalRecordJoules, RECORD, RECORDS_PER_DAY, SLOT, slotsOfRecord, type DayData } from './site/day.js';
import type { LongWindow, SimDevice } from './types.js';

export { RECORD } from './site/day.js';
export const SHORT_RETENTION = 31 * 86400;

/** Mains voltage of the device at t (the same on every channel). */
function voltsAt(dev: SimDevice, t: number): number {
  const seed = dev.id.charCodeAt(12);
  return 230 + 2.5 * Math.sin((2 * Math.PI * (t % DAY)) / DAY + seed) + 0.7 * Math.sin((2 * Math.PI * (t % 1370)) / 1370);
}

/** Reads records in time order, keeping the current day at hand. */
class RecordReader {
  private current: DayData | undefined;

  constructor(private readonly dev: SimDevice) {}

  day(record: number): DayData {
    const day = Math.floor(record / RECORDS_PER_DAY);
    if (this.current?.day !== day) this.current = dayData(this.dev, day);
    return this.current;
  }
}

/** Whether the short entry ending at ts never arrived (seeded, `dev.shortLoss` of them). */
function lost(dev: SimDevice, ts: number): boolean {
  return dev.shortLoss > 0 && noise(dev.seed, dev.site ^ 0x10, ts / SLOT) < dev.shortLoss;
}

/** Short entries with fromTs <= timestamp < toTs among those that exist at sim time `now`. */
export function shortEntries(dev: SimDevice, now: number, end: number, fromTs: number, toTs: number): RawEntry[] {
  const iv = SLOT;
  const earliest = Math.max(dev.dataStart + iv, now - SHORT_RETENTION, fromTs);
  const out: RawEntry[] = [];
  const reader = new RecordReader(dev);
  const n = dev.channels.length;
  let cachedRecord = Number.NaN;
  let real: number[][] = [];
  let reactive: number[][] = [];
  for (let ts = Math.ceil(earliest / iv) * iv; ts < toTs && ts <= end; ts += iv) {
    if (lost(dev, ts)) continue;
    const start = ts - iv;
    const record = Math.floor(start / RECORD);
    if (record !== cachedRecord) {
      const d = reader.day(record);
      const r = record - d.day * RECORDS_PER_DAY;
      real = [];
      reactive = [];
      for (let c = 0; c < n; c++) {
        real.push(slotsOfRecord(dev, d, c, r, 'real'));
        reactive.push(slotsOfRecord(dev, d, c, r, 'reactive'));
      }
      cachedRecord = record;
    }
    const s = (start - record * RECORD) / iv;
    const volts = voltsAt(dev, ts);
    const v = round(volts, 2);
    const eReal = real.map((parts) => parts[s]);
    out.push({
      timestamp: ts,
      duration: iv,
      frequency: frequencyAt(ts),
      energy: [['eReal', eReal], ['eReactive', reactive.map((parts) => parts[s])]],
      volts: [['vRMS', eReal.map(() => v)]],
      amps: [['iRMS', eReal.map((e) => round(Math.abs(e) / iv / volts, 3))]],
    });
  }
  return out;
}

/** Sums of whole records over [a, b) (multiples of 300) and their ranges of volts and amps. */
function longEntry(dev: SimDevice, reader: RecordReader, a: number, b: number): RawEntry {
  const n = dev.channels.length;
  const zeros = (): number[] => new Array<number>(n).fill(0);
  const realPos = zeros();
  const realNeg = zeros();
  const reactivePos = zeros();
  const reactiveNeg = zeros();
  const vMin = new Array<number>(n).fill(Infinity);
  const vMax = new Array<number>(n).fill(-Infinity);
  const iMin = new Array<number>(n).fill(Infinity);
  const iMax = new Array<number>(n).fill(-Infinity);
  for (let record = a / RECORD; record < b / RECORD; record++) {
    const d = reader.day(record);
    const r = record - d.day * RECORDS_PER_DAY;
    const t = record * RECORD;
    const v1 = voltsAt(dev, t);
    const v2 = voltsAt(dev, t + RECORD);
    const low = Math.min(v1, v2) - 0.4;
    const high = Math.max(v1, v2) + 0.4;
    for (let c = 0; c < n; c++) {
      // A device double on the channel (devices/) draws on top of the site's own record, as short energy shows it.
      const external = externalRecordJoules(dev, d, c, r);
      const e = d.real[c][r] + external;
      const q = d.reactive[c][r];
      if (e >= 0) realPos[c] += e;
      else realNeg[c] -= e;
      if (q >= 0) reactivePos[c] += q;
      else reactiveNeg[c] -= q;
      const amps = Math.abs(e) / RECORD / low;
      const slots = external !== 0 ? slotsOfRecord(dev, d, c, r, 'real') : d.slots[c]?.slice(r * (RECORD / SLOT), (r + 1) * (RECORD / SLOT));
      let lo = amps * 0.8;
      let hi = amps * 1.25;
      if (slots) {
        lo = Infinity;
        hi = 0;
        for (let s = 0; s < RECORD / SLOT; s++) {
          const slotAmps = Math.abs(slots[s]) / SLOT / low;
          lo = Math.min(lo, slotAmps);
          hi = Math.max(hi, slotAmps * 1.05);
        }
      }
      vMin[c] = Math.min(vMin[c], low);
      vMax[c] = Math.max(vMax[c], high);
      iMin[c] = Math.min(iMin[c], lo);
      iMax[c] = Math.max(iMax[c], hi);
    }
  }
  const net = (pos: number[], neg: number[]): number[] => pos.map((p, c) => p - neg[c]);
  const r2 = (xs: number[]): number[] => xs.map((x) => round(x, 2));
  const r3 = (xs: number[]): number[] => xs.map((x) => round(x, 3));
  return {
    timestamp: b,
    duration: b - a,
    energy: [
      ['eReal', net(realPos, realNeg)], ['eRealPositive', realPos], ['eRealNegative', realNeg],
      ['eReactive', net(reactivePos, reactiveNeg)], ['eReactivePositive', reactivePos], ['eReactiveNegative', reactiveNeg],
    ],
    volts: [['vRMSMin', r2(vMin)], ['vRMSMax', r2(vMax)]],
    amps: [['iRMSMin', r3(iMin)], ['iRMSMax', r3(iMax)]],
  };
}

/** Timestamp of the device's first 5-minute record (it covers the 5 minutes before it). */
export function firstRecordStamp(dev: SimDevice): number {
  return Math.ceil(dev.dataStart / RECORD) * RECORD + RECORD;
}

/**
 * Long entries of [fromTs, toTs) among the records that exist (from dataStart, ended by `end`).
 * 'coverage' (the spec's text): the records whose periods lie inside the range, summed per bucket, each
 * entry stamped at the end of the part of its bucket it covers. 'timestamp' (the live service): the
 * records stamped fromTs <= t < toTs, grouped by the bucket their stamp falls in, each group labelled
 * with its first record's stamp, so a whole bucket labelled L covers [L - 300, L + size - 300).
 */
export function longEntries(
  dev: SimDevice, end: number, g: Granularity, zone: string, fromTs: number, toTs: number, window: LongWindow,
): RawEntry[] {
  return window === 'timestamp' ? byStamp(dev, end, g, zone, fromTs, toTs) : byCoverage(dev, end, g, zone, fromTs, toTs);
}

function byCoverage(dev: SimDevice, end: number, g: Granularity, zone: string, fromTs: number, toTs: number): RawEntry[] {
  // Only whole 5-minute records inside [fromTs, toTs) count; the one in progress does not exist yet.
  const lo = Math.ceil(Math.max(fromTs, dev.dataStart) / RECORD) * RECORD;
  const hi = Math.floor(Math.min(toTs, end) / RECORD) * RECORD;
  const out: RawEntry[] = [];
  if (hi <= lo) return out;
  const reader = new RecordReader(dev);
  forEachBucket(g, zone, lo, hi, (bStart, bEnd) => {
    // Local calendar boundaries of zones with odd offsets still cut at whole records.
    const a = Math.ceil(Math.max(bStart, lo) / RECORD) * RECORD;
    const b = Math.ceil(Math.min(bEnd, hi) / RECORD) * RECORD;
    if (b <= a) return;
    out.push(longEntry(dev, reader, a, b));
  });
  return out;
}

function byStamp(dev: SimDevice, end: number, g: Granularity, zone: string, fromTs: number, toTs: number): RawEntry[] {
  // Stamps of existing records: ended by `end`, and each covering the 5 minutes before it.
  const first = Math.max(Math.ceil(fromTs / RECORD) * RECORD, firstRecordStamp(dev));
  const last = Math.min(Math.ceil(toTs / RECORD) * RECORD - RECORD, Math.floor(end / RECORD) * RECORD);
  const out: RawEntry[] = [];
  if (last < first) return out;
  const reader = new RecordReader(dev);
  forEachBucket(g, zone, first, last + 1, (bStart, bEnd) => {
    // The stamps inside this bucket and the range: multiples of 300 in [bStart, bEnd), first..last.
    const s1 = Math.max(Math.ceil(bStart / RECORD) * RECORD, first);
    const sn = Math.min(Math.ceil(bEnd / RECORD) * RECORD - RECORD, last);
    if (sn < s1) return;
    out.push({ ...longEntry(dev, reader, s1 - RECORD, sn), timestamp: s1 });
  });
  return out;
}
