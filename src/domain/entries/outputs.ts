import type { Device, EnergyConversion, EnergyEntry } from '../../api/index.js';
import { colourFor } from './chart-colours.js';
import { KWH_J } from './grid-energy.js';

/** One point for FlowFuse Dashboard 2 `ui-chart` (Series = key `series`, X = key `x`, Y = key `y`). */
export interface ChartPoint {
  series: string;
  /** Unix ms of the START of the clock period the value belongs to (a day's bar sits on that day). */
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

/** The entry's per-channel field the chart reads, and the factor that turns its values into Joules (0: none). */
function joulesSource(entry: EnergyEntry, convert: EnergyConversion | undefined, duration: number): { field: unknown; factor: number } {
  if (convert === 'kWh') return { field: entry.eRealKwh, factor: KWH_J };
  if (convert === 'kW') return { field: entry.pRealKw, factor: duration ? 1000 * duration : 0 };
  return { field: entry.eReal, factor: 1 };
}

function inUnit(joules: number, duration: number, unit: ChartUnit): number {
  switch (unit) {
    case 'W': return joules / duration;
    case 'kW': return joules / duration / 1000;
    case 'Wh': return joules / 3600;
    default: return joules / KWH_J;
  }
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

/** One series' points as columns: start (ms), value in the chart's unit, duration (s). */
export interface SeriesColumns {
  length: number;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  duration: ArrayLike<number>;
}

/** A series kept in growing typed arrays: 24 bytes a point instead of an object each. */
class GrowingSeries implements SeriesColumns {
  length = 0;
  x = new Float64Array(256);
  y = new Float64Array(256);
  duration = new Float64Array(256);

  /**
   * Adds a point; a point at the x of the last one is added into it (energy summed, power averaged
   * over time): two entries of one clock period make one bar, never two at the same place.
   */
  push(x: number, y: number, duration: number, energy: boolean): void {
    const last = this.length - 1;
    if (last >= 0 && this.x[last] === x) {
      const seconds = this.duration[last] + duration;
      this.y[last] = energy ? this.y[last] + y : (this.y[last] * this.duration[last] + y * duration) / seconds;
      this.duration[last] = seconds;
      return;
    }
    if (this.length === this.x.length) {
      const grow = (a: Float64Array): Float64Array<ArrayBuffer> => {
        const bigger = new Float64Array(a.length * 2);
        bigger.set(a);
        return bigger;
      };
      this.x = grow(this.x);
      this.y = grow(this.y);
      this.duration = grow(this.duration);
    }
    this.x[this.length] = x;
    this.y[this.length] = y;
    this.duration[this.length] = duration;
    this.length += 1;
  }
}

/** Where an entry's point goes: unix seconds of the start of the clock period it belongs to. */
export type PlacePoint = (start: number, duration: number) => number;

/** Entries already aligned to their periods (short energy, 5-minute records): the point at the entry's start. */
export const atStart: PlacePoint = (start) => start;

/**
 * Chart series built as entries arrive (page by page, oldest first), one per channel or phase group:
 * only numbers are kept, never the entries. `finish` thins each series to maxPoints and yields to the
 * event loop while it builds the points.
 */
export class ChartBuilder {
  private readonly series: GrowingSeries[] = [];
  private channels = 0;

  constructor(private readonly convert: EnergyConversion | undefined, private readonly options: ChartOptions, private readonly place: PlacePoint = atStart) {}

  add(entries: readonly EnergyEntry[]): void {
    const { unit } = this.options;
    const energy = unit === 'kWh' || unit === 'Wh';
    for (const entry of entries) {
      const duration = typeof entry.duration === 'number' && entry.duration > 0 ? entry.duration : 0;
      const { field, factor } = joulesSource(entry, this.convert, duration);
      if (!Array.isArray(field)) continue;
      if (field.length > this.channels) this.channels = field.length;
      if (!duration || !factor) continue;
      const x = this.place(entry.timestamp - duration, duration) * 1000;
      for (let i = 0; i < field.length; i += 1) {
        const v: unknown = field[i];
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        (this.series[i] ??= new GrowingSeries()).push(x, inUnit(v * factor, duration, unit), duration, energy);
      }
    }
  }

  /**
   * The points, oldest first, named "<label> (<unit>)" so tooltips carry the unit; null values are
   * left out. `labels(count)` names the channels (or phase groups) seen.
   */
  async finish(labels: (count: number) => string[], device: Device | undefined, grouped: boolean): Promise<ChartSeries> {
    const { unit } = this.options;
    const names = this.channels ? labels(this.channels) : [];
    const order = [...this.series.keys()].filter((i) => this.series[i] !== undefined);
    const seriesName = (i: number): string => `${names[i] ?? `C${i + 1}`} (${unit})`;
    const used: string[] = [];
    const colours = order.map((i) => colourFor(grouped ? undefined : device?.channels?.[i]?.categoryId, i, used));
    const reduced: SeriesColumns[] = [];
    for (const i of order) {
      await pause();
      reduced.push(reduce(this.series[i], this.options));
    }
    const points = await mergeByX(reduced, order.map(seriesName), unit);
    return { points, names: order.map(seriesName), colours, unit };
  }
}

/**
 * Chart points of every entry (see ChartBuilder), for entries already held; yields to the event loop
 * between chunks so a year of 5-minute data does not stall Node-RED.
 */
export async function chartSeries(
  entries: readonly EnergyEntry[], convert: EnergyConversion | undefined, labels: (count: number) => string[],
  device: Device | undefined, grouped: boolean, options: ChartOptions, place: PlacePoint = atStart,
): Promise<ChartSeries> {
  const builder = new ChartBuilder(convert, options, place);
  for (let start = 0; start < entries.length; start += CHUNK) {
    if (start > 0) await pause();
    builder.add(entries.slice(start, start + CHUNK));
  }
  return builder.finish(labels, device, grouped);
}

/** The series' points in one list ordered by x (ties in series order), built a chunk at a time. */
async function mergeByX(series: SeriesColumns[], names: string[], unit: ChartUnit): Promise<ChartPoint[]> {
  const cursor = series.map(() => 0);
  const total = series.reduce((n, s) => n + s.length, 0);
  const points: ChartPoint[] = [];
  while (points.length < total) {
    if (points.length > 0) await pause();
    const stop = Math.min(total, points.length + CHUNK * 4);
    while (points.length < stop) {
      let pick = -1;
      for (let s = 0; s < series.length; s += 1) {
        if (cursor[s] < series[s].length && (pick < 0 || series[s].x[cursor[s]] < series[pick].x[cursor[pick]])) pick = s;
      }
      const at = cursor[pick];
      cursor[pick] += 1;
      points.push({ series: names[pick], x: series[pick].x[at], y: round(series[pick].y[at], unit) });
    }
  }
  return points;
}

/** At most maxPoints per series: energy summed per bucket; power averaged (time-weighted) or min and max kept. */
export function reduce(list: SeriesColumns, options: ChartOptions): SeriesColumns {
  const max = options.maxPoints;
  const n = list.length;
  if (!max || n <= max) return list;
  const energy = options.unit === 'kWh' || options.unit === 'Wh';
  const peaks = !energy && options.reduce === 'peaks';
  const buckets = peaks ? Math.max(1, Math.floor(max / 2)) : max;
  const x: number[] = [];
  const y: number[] = [];
  const keep = (i: number): void => {
    x.push(list.x[i]);
    y.push(list.y[i]);
  };
  for (let b = 0; b < buckets; b += 1) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    if (to <= from) continue;
    if (peaks) {
      let lo = from;
      let hi = from;
      for (let i = from; i < to; i += 1) {
        if (list.y[i] < list.y[lo]) lo = i;
        if (list.y[i] > list.y[hi]) hi = i;
      }
      if (lo === hi) keep(lo);
      else if (list.x[lo] <= list.x[hi]) { keep(lo); keep(hi); } else { keep(hi); keep(lo); }
      continue;
    }
    let sum = 0;
    let seconds = 0;
    for (let i = from; i < to; i += 1) {
      sum += energy ? list.y[i] : list.y[i] * list.duration[i];
      seconds += list.duration[i];
    }
    x.push(list.x[from]);
    y.push(energy ? sum : sum / seconds);
  }
  return { length: x.length, x, y, duration: x.map(() => 0) };
}
