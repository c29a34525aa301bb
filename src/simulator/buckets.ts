/** Long-energy bucket boundaries and span limits (spec 4.8). */
import { DateTime, IANAZone, type DurationLikeObject } from 'luxon';
import type { Granularity } from '../api/types.js';

export const GRANULARITY_VALUES: readonly Granularity[] = ['5m', '15m', '30m', 'hour', 'day', 'week', 'month'];

const FIXED_SECONDS: Partial<Record<Granularity, number>> = { '5m': 300, '15m': 900, '30m': 1800 };

type CalendarUnit = 'hour' | 'day' | 'week' | 'month';

export const MAX_SPAN: Record<Granularity, { amount: number; unit: 'days' | 'months' | 'years' }> = {
  '5m': { amount: 7, unit: 'days' },
  '15m': { amount: 14, unit: 'days' },
  '30m': { amount: 31, unit: 'days' },
  hour: { amount: 3, unit: 'months' },
  day: { amount: 3, unit: 'years' },
  week: { amount: 5, unit: 'years' },
  month: { amount: 10, unit: 'years' },
};

export const isGranularity = (g: string): g is Granularity => (GRANULARITY_VALUES as readonly string[]).includes(g);
export const needsTimezone = (g: Granularity): boolean => FIXED_SECONDS[g] === undefined;
export const isValidZone = (zone: string): boolean => IANAZone.isValidZone(zone);

/** Latest allowed toTs: fromTs plus the maximum span, in calendar units of UTC. */
export function maxToTs(fromTs: number, amount: number, unit: 'days' | 'months' | 'years'): number {
  const span: DurationLikeObject = { [unit]: amount };
  return DateTime.fromSeconds(fromTs, { zone: 'utc' }).plus(span).toSeconds();
}

/**
 * Calls `visit(start, end)` for each bucket that overlaps [lo, hi), in order.
 * 5m/15m/30m align to epoch multiples; larger granularities to local calendar units of `zone`.
 */
export function forEachBucket(g: Granularity, zone: string, lo: number, hi: number, visit: (start: number, end: number) => void): void {
  const fixed = FIXED_SECONDS[g];
  if (fixed !== undefined) {
    for (let s = Math.floor(lo / fixed) * fixed; s < hi; s += fixed) visit(s, s + fixed);
    return;
  }
  const unit = g as CalendarUnit;
  let start = DateTime.fromSeconds(lo, { zone }).startOf(unit);
  while (start.toSeconds() < hi) {
    // startOf after plus keeps local boundaries right across DST changes.
    const next = start.plus({ [`${unit}s`]: 1 }).startOf(unit);
    const end = next.toSeconds() > start.toSeconds() ? next : start.plus({ hours: 1 });
    visit(start.toSeconds(), end.toSeconds());
    start = end;
  }
}
