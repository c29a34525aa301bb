import type { Device, EnergyConversion, EnergyEntry } from '../../api/index.js';
import { colourFor } from './chart-colours.js';

/** One point for FlowFuse Dashboard 2 `ui-chart` (Series = key `series`, X = key `x`, Y = key `y`). */
export interface ChartPoint {
  series: string;
  /** Unix ms of the START of the period the value covers (a day's bar sits on that day). */
  x: number;
  y: number;
}

export type ChartUnit = 'W' | 'kW' | 'Wh' | 'kWh';
export const CHART_UNITS: readonly ChartUnit[] = ['W', 'kW', 'Wh', 'kWh'];
/** How a long series is thinned to maxPoints: bucket averages, or each bucket's lowest and highest point (peaks kept). */
export type ChartReduce = 'average' | 'peaks';

export interface ChartOptions {
  unit: ChartUnit;
  /** At most this many points per series (0 = all). Energy units are summed per bucket, power averaged or min/max. */
  maxPoints: number;
  reduce: ChartReduce;
}

export interface ChartSeries {
  points: ChartPoint[];
  /** Series names in the order they first appear, and one colour for each (by channel category). */
  names: string[];
  colours: string[];
  unit: ChartUnit;
}

export const DEFAULT_MAX_POINTS = 500;
/** Entries handled between two yields to the event loop. */
const CHUNK = 2000;
const DECIMALS: Record<ChartUnit, number> = { W: 1, kW: 3, Wh: 1, kWh: 3 };

/** The unit when none is chosen: what the query returns (W for Joules, as before; kWh; kW). */
export function defaultUnit(convert: EnergyConversion | undefined): ChartUnit {
  return convert === 'kWh' ? 'kWh' : convert === 'kW' ? 'kW' : 'W';
}

/** Real energy per channel in Joules, whatever the query's conversion (null where missing). */
export function entryJoules(entry: EnergyEntry, convert: EnergyConversion | undefined): Array<number | null> {
  const duration = typeof entry.duration === 'number' && entry.duration > 0 ? entry.duration : undefined;
  if (convert === 'kWh') return numbers(entry.eRealKwh).map((v) => (v === null ? null : v * 3_600_000));
  if (convert === 'kW') return numbers(entry.pRealKw).map((v) => (v === null || !duration ? null : v * 1000 * duration));
  return numbers(entry.eReal);
}

function inUnit(joules: number, duration: number, unit: ChartUnit): number {
  switch (unit) {
    case 'W': return joules / duration;
    case 'kW': return joules / duration / 1000;
    case 'Wh': return joules / 3600;
    default: return joules / 3_600_000;
  }
}

function numbers(field: EnergyEntry[string]): Array<number | null> {
  if (!Array.isArray(field)) return [];
  return field.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
}

/** Series labels: channel labels (else the channel id), or "<phase> 1", "<phase> 2"… for phase groups. */
export function seriesNames(device: Device | undefined, count: number, grouped: boolean, phaseWord: string): string[] {
  return Array.from({ length: count }, (_, i) => {
    if (grouped) return `${phaseWord} ${i + 1}`;
    const channel = device?.channels?.[i];
    return channel?.label || channel?.id || `C${i + 1}`;
  });
}

const round = (value: number, unit: ChartUnit): number => {
  const f = 10 ** DECIMALS[unit];
  return Math.round(value * f) / f;
};

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Chart points of every entry, oldest first, one series per channel or phase group, named
 * "<label> (<unit>)" so tooltips carry the unit; null values are left out. Yields to the event
 * loop between chunks so a year of 5-minute data does not stall Node-RED.
 */
export async function chartSeries(
  entries: EnergyEntry[], convert: EnergyConversion | undefined, labels: (count: number) => string[],
  device: Device | undefined, grouped: boolean, options: ChartOptions,
): Promise<ChartSeries> {
  const bySeries = new Map<number, Array<{ x: number; y: number; duration: number }>>();
  let names: string[] = [];
  for (let start = 0; start < entries.length; start += CHUNK) {
    if (start > 0) await pause();
    for (const entry of entries.slice(start, start + CHUNK)) {
      const joules = entryJoules(entry, convert);
      const duration = typeof entry.duration === 'number' && entry.duration > 0 ? entry.duration : 0;
      if (joules.length > names.length) names = labels(joules.length);
      if (!duration) continue;
      const x = (entry.timestamp - duration) * 1000;
      joules.forEach((j, i) => {
        if (j === null) return;
        const list = bySeries.get(i) ?? [];
        list.push({ x, y: inUnit(j, duration, options.unit), duration });
        bySeries.set(i, list);
      });
    }
  }
  const order = [...bySeries.keys()].sort((a, b) => a - b);
  const seriesName = (i: number): string => `${names[i] ?? `C${i + 1}`} (${options.unit})`;
  const used: string[] = [];
  const colours = order.map((i) => colourFor(grouped ? undefined : device?.channels?.[i]?.categoryId, i, used));
  const points: ChartPoint[] = [];
  for (const i of order) {
    await pause();
    const reduced = reduce(bySeries.get(i) ?? [], options);
    for (const p of reduced) points.push({ series: seriesName(i), x: p.x, y: round(p.y, options.unit) });
  }
  points.sort((a, b) => a.x - b.x);
  return { points, names: order.map(seriesName), colours, unit: options.unit };
}

/** At most maxPoints per series: energy summed per bucket; power averaged (time-weighted) or min and max kept. */
export function reduce(list: Array<{ x: number; y: number; duration: number }>, options: ChartOptions): Array<{ x: number; y: number }> {
  const max = options.maxPoints;
  if (!max || list.length <= max) return list;
  const energy = options.unit === 'kWh' || options.unit === 'Wh';
  const peaks = !energy && options.reduce === 'peaks';
  const buckets = peaks ? Math.max(1, Math.floor(max / 2)) : max;
  const out: Array<{ x: number; y: number }> = [];
  for (let b = 0; b < buckets; b += 1) {
    const bucket = list.slice(Math.floor((b * list.length) / buckets), Math.floor(((b + 1) * list.length) / buckets));
    if (bucket.length === 0) continue;
    if (peaks) {
      let lo = bucket[0];
      let hi = bucket[0];
      for (const p of bucket) {
        if (p.y < lo.y) lo = p;
        if (p.y > hi.y) hi = p;
      }
      if (lo === hi) out.push(lo);
      else out.push(...(lo.x <= hi.x ? [lo, hi] : [hi, lo]));
    } else if (energy) {
      out.push({ x: bucket[0].x, y: bucket.reduce((a, p) => a + p.y, 0) });
    } else {
      const seconds = bucket.reduce((a, p) => a + p.duration, 0);
      out.push({ x: bucket[0].x, y: bucket.reduce((a, p) => a + p.y * p.duration, 0) / seconds });
    }
  }
  return out;
}
