import { ConfigError } from '../../api/index.js';
import { DateTime } from 'luxon';

/** The day a run target belongs to: it ends at `by` (local wall time) and starts at the `by` before. */
export interface TargetPeriod {
  start: number;
  end: number;
}

export const END_OF_DAY = 1440;

/** `HH:MM` (00:00 to 24:00) as minutes of the day; '' and 00:00 are the end of the day (24:00). */
export function parseBy(text: string | undefined): number {
  const value = (text ?? '').trim();
  if (value === '') return END_OF_DAY;
  const m = /^(\d{1,2}):(\d{2})$/.exec(value);
  const minute = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  if (!m || Number(m[2]) > 59 || minute > END_OF_DAY) throw new ConfigError(`by "${value.slice(0, 10)}" is not a local time such as 17:00 (24:00 or empty = end of the day)`);
  return minute === 0 ? END_OF_DAY : minute;
}

/** The instant of `minute` (of the day) on the local date of `day`; a time the clocks skip falls after the jump. */
function wallTime(day: DateTime, minute: number): DateTime {
  if (minute === END_OF_DAY) return day.startOf('day').plus({ days: 1 }).startOf('day');
  return day.set({ hour: Math.floor(minute / 60), minute: minute % 60, second: 0, millisecond: 0 });
}

/**
 * The period containing `nowS` in `zone`: from the previous `by` to the next one. With `by` at the end of
 * the day it is the local calendar day (23 or 25 hours on DST days); with `by` 17:00 it runs from 17:00 to
 * 17:00; with `by` 06:00 the target of the night is met by the next morning.
 */
export function targetPeriod(nowS: number, zone: string, byMinute: number): TargetPeriod {
  const now = DateTime.fromSeconds(nowS, { zone });
  let end = wallTime(now, byMinute);
  if (end.toSeconds() <= nowS) end = wallTime(now.plus({ days: 1 }), byMinute);
  const start = wallTime(end.minus({ days: 1 }), byMinute);
  // At 24:00 the end is the next midnight: the start is this midnight, not the one a day before it.
  const startS = byMinute === END_OF_DAY ? now.startOf('day').toSeconds() : start.toSeconds();
  return { start: Math.round(startS), end: Math.round(end.toSeconds()) };
}
