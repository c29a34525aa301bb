/**
 * Stored rows back into energy entries as energy-query gives them: one entry per timestamp, one array
 * element per channel. Types only from the client: the SQLite worker imports this file too.
 */
import type { EnergyConversion, EnergyEntry } from '../../api/index.js';
import { ELECTRIC_FIELDS, ENERGY_FIELDS, ROW_CHANNEL, ROW_DURATION, ROW_FREQUENCY, ROW_TS, ROW_VALUES, kwName, kwhName, type RowValues } from './fields.js';

/** How the entries are given back: the query's conversion, power factor, and which channels (1-based; empty = all). */
export interface EntryShape {
  convert?: EnergyConversion;
  powerFactor?: boolean;
  channels?: readonly number[];
}

/**
 * Rows ordered by timestamp then channel, grouped into entries. A channel the store holds no row of
 * at some timestamp is null there, so every entry has as many elements as the widest of the read.
 */
export function entriesFromRows(rows: readonly RowValues[], shape: EntryShape): EnergyEntry[] {
  const channels = shape.channels?.length ? shape.channels : undefined;
  let width = 0;
  for (const row of rows) width = Math.max(width, Number(row[ROW_CHANNEL]));
  const picked = channels ?? Array.from({ length: width }, (_, i) => i + 1);
  const entries: EnergyEntry[] = [];
  let i = 0;
  while (i < rows.length) {
    const ts = Number(rows[i][ROW_TS]);
    const byChannel = new Map<number, RowValues>();
    let j = i;
    for (; j < rows.length && Number(rows[j][ROW_TS]) === ts; j += 1) byChannel.set(Number(rows[j][ROW_CHANNEL]), rows[j]);
    const first = rows[i];
    entries.push(entryOf(ts, Number(first[ROW_DURATION]), first[ROW_FREQUENCY], picked.map((c) => byChannel.get(c)), shape));
    i = j;
  }
  return entries;
}

/** One entry from its channels' rows (undefined: no row for that channel). */
export function entryOf(ts: number, duration: number, frequency: number | null, rows: ReadonlyArray<RowValues | undefined>, shape: EntryShape): EnergyEntry {
  const entry: EnergyEntry = { timestamp: ts, duration };
  if (frequency !== null && frequency !== undefined) entry.frequency = frequency;
  const column = (k: number): Array<number | null> => rows.map((row) => (row ? (row[ROW_VALUES + k] as number | null) : null));
  ENERGY_FIELDS.forEach(([field], k) => {
    const joules = column(k);
    if (joules.every((v) => v === null)) return;
    if (shape.convert === 'kWh') entry[kwhName(field)] = joules.map((j) => (j === null ? null : j / 3_600_000));
    else if (shape.convert === 'kW') entry[kwName(field)] = joules.map((j) => (j === null ? null : j / (1000 * duration)));
    else entry[field] = joules;
  });
  ELECTRIC_FIELDS.forEach(([field], k) => {
    const values = column(ENERGY_FIELDS.length + k);
    if (values.some((v) => v !== null)) entry[field] = values;
  });
  if (shape.powerFactor) entry.powerFactor = powerFactor(column(0), column(3));
  return entry;
}

/** The service's formula (spec 2.11): eReal / sqrt(eReal² + eReactive²), 3 decimals, null when both are 0. */
function powerFactor(real: Array<number | null>, reactive: Array<number | null>): Array<number | null> {
  return real.map((p, i) => {
    const q = reactive[i];
    if (p === null || q === null) return null;
    const denominator = Math.sqrt(p * p + q * q);
    return denominator === 0 ? null : Math.round((p / denominator) * 1000) / 1000;
  });
}
