// The one price normaliser: every price list that reaches the package (msg.prices in any of the shapes in
// shapes.ts, Amber's intervals, the tariff's own slots) becomes sorted, non-overlapping slots in micro-units
// per kWh, or is refused whole with an error that names the slot. Nothing is half applied.
import { PriceError } from '../../api/index.js';
import { fromMicros } from './money.js';
import { readShape, type ReadContext } from './shapes.js';
import type { PricePeriod, PriceShape, PriceSlot, RawSlot } from './types.js';

export type { PricePeriod, PriceShape, PriceSlot } from './types.js';

/** More slots than a year of 15-minute prices is not a price list but a mistake (or an attack on memory). */
export const MAX_SLOTS = 40_000;

export interface ReadOptions extends ReadContext {
  /**
   * A list of one slot without an end: `forever` lets its price hold from its start on (energy-cost's flat
   * spot price), `refuse` says the list cannot tell how long it lasts. Default refuse.
   */
  single?: 'forever' | 'refuse';
}

export interface PriceList {
  shape: PriceShape;
  periods: PricePeriod[];
}

/**
 * Reads a price list of any known shape. Each slot holds from its `start` until its `end`, else until the
 * next slot's start; the last one without an end lasts as long as the one before it (a list of 30-minute
 * prices ends 30 minutes after its last start). Overlaps, gaps between slots and unreadable items are
 * refused. `undefined`/`null` is no list at all (an empty result).
 */
export function readPrices(value: unknown, options: ReadOptions): PriceList {
  if (value === undefined || value === null) return { shape: 'slots', periods: [] };
  return settleShape(readShape(value, options), options);
}

/** A price list from what readShape made of a value (undefined: no shape this package knows). */
export function settleShape(read: ReturnType<typeof readShape>, options: ReadOptions): PriceList {
  if (!read) {
    throw new PriceError(`${options.source} is not a price list this package knows: send [{start, end, price}], Amber's intervals, power-saver's priceData [{start, value}], Tibber's priceInfo or a Nord Pool node's list`);
  }
  if (read.items.length > MAX_SLOTS) throw new PriceError(`${options.source} has ${read.items.length} slots: more than ${MAX_SLOTS} is not accepted`);
  return { shape: read.shape, periods: settle(read.items, options) };
}

function settle(items: RawSlot[], options: ReadOptions): PricePeriod[] {
  const sorted = [...items].sort((a, b) => a.start - b.start);
  const iso = (t: number): string => new Date(t * 1000).toISOString();
  return sorted.map((item, i) => {
    const next = sorted[i + 1];
    const previous = sorted[i - 1];
    let end = item.end ?? next?.start;
    if (end === undefined && previous) end = item.start + ((previous.end ?? item.start) - previous.start);
    if (end === undefined) {
      if (options.single !== 'forever') throw new PriceError(`${item.where}: the only slot has no end, so its length is unknown (give it an end)`);
      end = Number.MAX_SAFE_INTEGER;
    }
    if (end <= item.start) throw new PriceError(`${item.where}: the slot starting ${iso(item.start)} ends before it starts`);
    if (next && next.start === item.start) throw new PriceError(`${next.where}: a second slot starting ${iso(item.start)}`);
    if (next && end > next.start) throw new PriceError(`${next.where}: the slot starting ${iso(next.start)} overlaps the one starting ${iso(item.start)}`);
    if (next && end < next.start) throw new PriceError(`${next.where}: nothing covers ${iso(end)} to ${iso(next.start)} before the slot starting ${iso(next.start)} (a partial list)`);
    const period: PricePeriod = { start: item.start, end, micros: item.micros };
    if (item.exportMicros !== undefined) period.exportMicros = item.exportMicros;
    if (item.estimate) period.estimate = true;
    if (item.spike) period.spike = true;
    return period;
  });
}

/** The slot covering unix second `t`, if any (periods sorted, not overlapping). */
export function periodAt<T extends { start: number; end: number }>(periods: readonly T[], t: number): T | undefined {
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

/** The slots as flows see them (`msg.prices`). */
export function toSlots(periods: readonly PricePeriod[]): PriceSlot[] {
  return periods.map((p) => {
    const slot: PriceSlot = { start: p.start, end: p.end, price: fromMicros(p.micros) };
    if (p.exportMicros !== undefined) slot.exportPrice = fromMicros(p.exportMicros);
    if (p.estimate) slot.estimate = true;
    if (p.spike) slot.spike = true;
    return slot;
  });
}

/** The export prices a list carries in its slots (`exportPrice`), as a list of their own. */
export function exportPeriods(periods: readonly PricePeriod[]): PricePeriod[] {
  return periods.filter((p) => p.exportMicros !== undefined).map((p) => ({ start: p.start, end: p.end, micros: p.exportMicros as number }));
}
