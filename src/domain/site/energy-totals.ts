import type { Device, EnergyEntry } from '../../api/index.js';
import { KWH_J } from '../entries/grid-energy.js';

/** The site's own totals, beside each channel's. */
export type SiteTotal = 'grid_imported' | 'grid_exported' | 'solar_produced';

/** The number of a channel or switch from its id (`D…_C3` → 3), else its position from 1. */
export function memberNumber(id: string, index: number): number {
  const m = /_[CS](\d+)$/.exec(id);
  return m ? Number(m[1]) : index + 1;
}

/** Long energy is stored as 5-minute records; an entry's timestamp is the END of its period. */
export const RECORD_S = 300;
/** A record missing between counted ones is awaited this long, then given up (the service will not send it any more). */
export const LATE_HORIZON_S = 86400;
/** After a long stop the totals catch up at most this far back (5 requests of 7 days). */
export const CATCH_UP_MAX_S = 31 * 86400;
const GRID_CONNECT = 1;
const SOLAR_GENERATION = 5;
const NOT_CONNECTED = 0;

/** Which channels the totals follow, and which of them are the grid connection and the solar panels. */
export interface EnergyLayout {
  /** Index in the entries' arrays, and the channel's number (1…). */
  channels: Array<{ index: number; number: number }>;
  grid: number[];
  solar: number[];
}

/**
 * The energy counted so far for one device, as persisted: Joules per total (`c1_imported`,
 * `grid_exported`…), the newest record counted, and the records below it still awaited.
 */
export interface TotalsState {
  /** Timestamp of the newest 5-minute record counted. */
  through: number;
  /** Timestamps at or below `through` not yet seen, within LATE_HORIZON_S of now. */
  gaps: number[];
  joules: Record<string, number>;
}

export function energyLayout(device: Device): EnergyLayout {
  const channels = device.channels.map((c, index) => ({ index, number: memberNumber(c.id, index), categoryId: c.categoryId }))
    .filter((c) => c.categoryId !== NOT_CONNECTED);
  return {
    channels: channels.map(({ index, number }) => ({ index, number })),
    grid: channels.filter((c) => c.categoryId === GRID_CONNECT).map((c) => c.index),
    solar: channels.filter((c) => c.categoryId === SOLAR_GENERATION).map((c) => c.index),
  };
}

export const channelTotal = (number: number, direction: 'imported' | 'exported'): string => `c${number}_${direction}`;

/** Counting starts with the record of the period that ends next: nothing before the node first ran is counted. */
export function freshTotals(nowS: number): TotalsState {
  return { through: Math.floor(nowS / RECORD_S) * RECORD_S, gaps: [], joules: {} };
}

/** A persisted state as read back, or undefined when it is not one (a store from another release, hand edits). */
export function checkTotals(value: unknown): TotalsState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<TotalsState>;
  if (!Number.isInteger(v.through) || !Array.isArray(v.gaps) || !v.gaps.every(Number.isInteger)) return undefined;
  if (typeof v.joules !== 'object' || v.joules === null || !Object.values(v.joules).every((j) => typeof j === 'number' && Number.isFinite(j) && j >= 0)) return undefined;
  return { through: v.through as number, gaps: [...v.gaps], joules: { ...v.joules } };
}

/** True when a record may exist that is not counted yet: a newer period has ended, or a late record is awaited. */
export function hasNews(state: TotalsState, nowS: number): boolean {
  return state.gaps.length > 0 || Math.floor(nowS / RECORD_S) * RECORD_S > state.through;
}

/**
 * The range to read: from the oldest record not counted (one record earlier, so that either reading of a
 * range's edges returns it) up to the period that ended last, at most CATCH_UP_MAX_S back.
 */
export function readRange(state: TotalsState, nowS: number): { fromTs: number; toTs: number } {
  const lastEnd = Math.floor(nowS / RECORD_S) * RECORD_S;
  const oldest = Math.min(state.through, ...state.gaps);
  return { fromTs: Math.max(oldest - RECORD_S, lastEnd - CATCH_UP_MAX_S), toTs: lastEnd + RECORD_S };
}

/**
 * Adds the whole 5-minute records not counted yet (newer than `through`, or awaited in `gaps`); a record
 * is counted once whatever the reads return twice. Pure: returns the new state and how many records counted.
 */
export function countRecords(state: TotalsState, entries: readonly EnergyEntry[], layout: EnergyLayout, nowS: number): { state: TotalsState; counted: number } {
  const joules = { ...state.joules };
  const gaps = new Set(state.gaps);
  const horizon = nowS - LATE_HORIZON_S;
  let through = state.through;
  let counted = 0;
  const records = entries.filter((e) => Number.isInteger(e.timestamp) && e.duration === RECORD_S && e.timestamp % RECORD_S === 0 && e.timestamp <= nowS)
    .sort((a, b) => a.timestamp - b.timestamp);
  for (const entry of records) {
    const ts = entry.timestamp;
    if (ts > through) {
      for (let t = Math.max(through, Math.floor(horizon / RECORD_S) * RECORD_S) + RECORD_S; t < ts; t += RECORD_S) gaps.add(t);
      through = ts;
    } else if (gaps.has(ts)) {
      gaps.delete(ts);
    } else {
      continue;
    }
    add(joules, entry, layout);
    counted += 1;
  }
  const kept = [...gaps].filter((t) => t > horizon && t < through).sort((a, b) => a - b);
  return { state: { through, gaps: kept, joules }, counted };
}

function add(joules: Record<string, number>, entry: EnergyEntry, layout: EnergyLayout): void {
  for (const [key, j] of Object.entries(recordEnergy(entry, layout))) joules[key] = (joules[key] ?? 0) + j;
}

/** What one 5-minute record adds to each total (Joules by total name: `c1_imported`, `grid_exported`…). */
export function recordEnergy(entry: EnergyEntry, layout: EnergyLayout): Record<string, number> {
  const joules: Record<string, number> = {};
  const part = (index: number): { imported: number; exported: number } => {
    const pos = valueAt(entry.eRealPositive, index);
    const neg = valueAt(entry.eRealNegative, index);
    if (pos !== undefined && neg !== undefined) return { imported: Math.max(0, pos), exported: Math.abs(neg) };
    const net = valueAt(entry.eReal, index) ?? 0;
    return { imported: Math.max(0, net), exported: Math.max(0, -net) };
  };
  const bump = (key: string, j: number): void => { joules[key] = (joules[key] ?? 0) + j; };
  for (const { index, number } of layout.channels) {
    const { imported, exported } = part(index);
    bump(channelTotal(number, 'imported'), imported);
    bump(channelTotal(number, 'exported'), exported);
  }
  if (layout.grid.length === 1) {
    // One phase: its positive and negative parts, which the device itself measures within the 5 minutes.
    const { imported, exported } = part(layout.grid[0]);
    bump('grid_imported', imported);
    bump('grid_exported', exported);
  } else if (layout.grid.length > 1) {
    // Several phases: netted across the phases per record, as a meter bills (one phase exporting while another imports
    // is not an export). The 5-minute record is the finest the service gives for every phase at once: within it, when
    // one phase exported and another imported cannot be told, so each phase enters with its net energy of the 5 minutes.
    const net = layout.grid.reduce((sum, index) => {
      const { imported, exported } = part(index);
      return sum + imported - exported;
    }, 0);
    bump('grid_imported', Math.max(0, net));
    bump('grid_exported', Math.max(0, -net));
  }
  // Solar generation measures what the panels produce: its positive part (the inverter's standby draw, if metered, is the negative one).
  for (const index of layout.solar) bump('solar_produced', part(index).imported);
  return joules;
}

function valueAt(values: EnergyEntry[string], index: number): number | undefined {
  if (!Array.isArray(values)) return undefined;
  const v = values[index];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** kWh as published: 4 decimals (0.1 Wh), so a day's difference of two published totals is within 1 Wh of the records. */
export function kwh(joules: number | undefined): string {
  return ((joules ?? 0) / KWH_J).toFixed(4);
}

export const SITE_TOTALS: readonly SiteTotal[] = ['grid_imported', 'grid_exported', 'solar_produced'];
