import { coveredPeriod, floorToBucket, type EnergyKind, type Granularity, type LongWindow } from '../../api/index.js';
import { atStart, type PlacePoint } from './outputs.js';

/** msg.period of a long range read: the span its entries cover, in unix seconds. */
export interface ReadPeriod {
  /** Start of the first period covered (inclusive). */
  fromTs: number;
  /** End of the last period covered (exclusive). */
  toTs: number;
  /**
   * 0, or -300 when each coarse entry covers its clock period moved 5 minutes earlier (the live
   * service labels a bucket with its first 5-minute record: a day is 23:55 to 23:55).
   */
  shiftS: number;
}

/** What a long read of [fromTs, toTs) covers under the service's reading; undefined for short energy. */
export function readPeriod(kind: EnergyKind, granularity: Granularity | undefined, fromTs: number, toTs: number, reading: LongWindow): ReadPeriod | undefined {
  if (kind !== 'long') return undefined;
  return coveredPeriod(fromTs, toTs, granularity ?? '5m', reading);
}

/** -300 when the reading moves each coarse long entry 5 minutes before its clock period (see ReadPeriod.shiftS), else 0. */
export function shiftOf(kind: EnergyKind, granularity: Granularity | undefined, reading: LongWindow): number {
  return kind === 'long' && granularity !== undefined ? coveredPeriod(0, 0, granularity, reading).shiftS : 0;
}

/**
 * Where a chart point goes: the start of the clock period (in `zone`) holding the middle of what the
 * entry covers. A day covering 23:55 to 23:55 sits on its day, not on 23:55 of the day before.
 */
export function chartPlacement(kind: EnergyKind, granularity: Granularity | undefined, zone: string): PlacePoint {
  if (kind !== 'long' || granularity === undefined || granularity === '5m') return atStart;
  return (start, duration) => floorToBucket(start + Math.floor(duration / 2), granularity, zone);
}
