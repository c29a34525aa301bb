import { addUnits, floorToBucket, type Granularity } from '../../api/index.js';

/**
 * One period of a coarser granularity built from stored 5-minute rows: the rows whose period ends in
 * (lo, hi] (a 5-minute entry stamped t covers t − 300 … t). Its entry is stamped `hi`, the END of the
 * period as every energy entry is, with duration hi − lo: a period cut by the range's ends is partial,
 * as the service's own boundary entries are (spec 4.8).
 */
export interface Bucket {
  lo: number;
  hi: number;
}

const FIXED: Partial<Record<Granularity, number>> = { '5m': 300, '15m': 900, '30m': 1800 };
const CALENDAR = { hour: 'hours', day: 'days', week: 'weeks', month: 'months' } as const;

/** The boundary after `start` (a boundary itself) in `timezone`: DST days are 23 or 25 hours. */
export function nextBoundary(start: number, granularity: Granularity, timezone: string): number {
  const fixed = FIXED[granularity];
  if (fixed) return start + fixed;
  return addUnits(start, CALENDAR[granularity as keyof typeof CALENDAR], 1, timezone);
}

/** The periods of `granularity` that cover [fromTs, toTs), oldest first, cut to the range. */
export function bucketsOf(fromTs: number, toTs: number, granularity: Granularity, timezone: string): Bucket[] {
  const buckets: Bucket[] = [];
  let start = floorToBucket(fromTs, granularity, timezone);
  while (start < toTs) {
    const end = nextBoundary(start, granularity, timezone);
    buckets.push({ lo: Math.max(start, fromTs), hi: Math.min(end, toTs) });
    start = end;
  }
  return buckets;
}
