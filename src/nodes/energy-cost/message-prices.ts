// Prices that come in on a message (dynamic and spot tariffs): a list of {start, price[, end]}.
import { parseTime, type TimeInput } from '../../api/index.js';
import { parseMicros } from '../energy-tariff/money.js';

export interface PricePeriod {
  start: number;
  end: number;
  micros: number;
}

/**
 * Each price holds from its `start` until its `end`, else until the next price's start; the last one
 * without an `end` lasts as long as the one before it (a list of 30-minute spot prices ends 30 minutes
 * after its last start), or for ever when it is the only one.
 */
export function readPricePeriods(value: unknown, source: string): PricePeriod[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${source} must be a list of {start, price}`);
  const items = value.map((item: unknown, i) => {
    const where = `${source}[${i}]`;
    if (typeof item !== 'object' || item === null) throw new Error(`${where} must be an object {start, price}`);
    const { start, end, price } = item as { start?: unknown; end?: unknown; price?: unknown };
    return { start: time(start, `${where}.start`), end: end === undefined ? undefined : time(end, `${where}.end`), micros: micros(price, `${where}.price`) };
  }).sort((a, b) => a.start - b.start);
  return items.map((item, i) => {
    const next = items[i + 1];
    const previous = items[i - 1];
    const end = item.end ?? (next ? next.start : previous ? item.start + (item.start - previous.start) : Number.MAX_SAFE_INTEGER);
    if (end <= item.start) throw new Error(`${source}: the price starting at ${new Date(item.start * 1000).toISOString()} ends before it starts`);
    if (next && end > next.start) throw new Error(`${source}: the prices starting at ${new Date(item.start * 1000).toISOString()} and ${new Date(next.start * 1000).toISOString()} overlap`);
    return { start: item.start, end, micros: item.micros };
  });
}

/** The message price covering unix second `t`, if any (periods sorted, not overlapping). */
export function periodAt(periods: PricePeriod[], t: number): PricePeriod | undefined {
  let lo = 0;
  let hi = periods.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (periods[mid].end <= t) lo = mid + 1;
    else if (periods[mid].start > t) hi = mid - 1;
    else return periods[mid];
  }
  return undefined;
}

function time(value: unknown, where: string): number {
  if (typeof value !== 'number' && typeof value !== 'string' && !(value instanceof Date)) throw new Error(`${where} must be a time (unix s or ms, ISO text or a Date)`);
  try {
    return parseTime(value as TimeInput);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}

function micros(value: unknown, where: string): number {
  try {
    return parseMicros(value);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}
