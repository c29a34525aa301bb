/**
 * What the store keeps of an energy entry: one row per channel, its energy in Joules whatever
 * conversion the query asked for, so that a re-read in kWh corrects the row a read in J wrote.
 * Plain constants only: the SQLite worker imports this file too.
 */

/** The entry's per-channel energy fields (Joules, spec 2.9/2.10) and their column names. */
export const ENERGY_FIELDS = [
  ['eReal', 'e_real'],
  ['eRealPositive', 'e_real_positive'],
  ['eRealNegative', 'e_real_negative'],
  ['eReactive', 'e_reactive'],
  ['eReactivePositive', 'e_reactive_positive'],
  ['eReactiveNegative', 'e_reactive_negative'],
] as const;

/** Per-channel voltage and current fields: short energy has vRMS/iRMS, long energy the min/max. */
export const ELECTRIC_FIELDS = [
  ['vRMS', 'v_rms'],
  ['iRMS', 'i_rms'],
  ['vRMSMin', 'v_rms_min'],
  ['vRMSMax', 'v_rms_max'],
  ['iRMSMin', 'i_rms_min'],
  ['iRMSMax', 'i_rms_max'],
] as const;

/** Every value column of a row, in row order after [channel, ts, duration, frequency]. */
export const VALUE_COLUMNS: readonly string[] = [...ENERGY_FIELDS, ...ELECTRIC_FIELDS].map(([, column]) => column);
/** Every column of the `energy` table, key first. */
export const KEY_COLUMNS = ['device', 'kind', 'granularity', 'ts', 'channel'] as const;
export const ALL_COLUMNS: readonly string[] = [...KEY_COLUMNS, 'duration', 'frequency', ...VALUE_COLUMNS];

/** The stored name of the kWh field (`eRealKwh`) and of the kW field (`pRealKw`) of an energy field. */
export const kwhName = (field: string): string => `${field}Kwh`;
export const kwName = (field: string): string => `p${field.slice(1)}Kw`;

export const TABLE = 'energy';
export const MEASUREMENT = 'energy';

/**
 * One channel of one entry: [channel (1-based), ts (unix s, end of period), duration (s), frequency,
 * ...VALUE_COLUMNS] with null where the entry had no value. Arrays, not objects: a year of 5-minute
 * data for a 6-channel device is 630,720 of them.
 */
export type RowValues = Array<number | null>;
export const ROW_CHANNEL = 0;
export const ROW_TS = 1;
export const ROW_DURATION = 2;
export const ROW_FREQUENCY = 3;
export const ROW_VALUES = 4;

/** The rows of one msg: one device, kind and granularity ('' for short energy). */
export interface StoreBatch {
  device: string;
  kind: 'short' | 'long';
  granularity: string;
  rows: RowValues[];
  /** Entries (distinct timestamps) in the batch. */
  entries: number;
  /** Newest and oldest timestamp in the batch. */
  newest: number;
  oldest?: number;
}

/** Values per row: [channel, ts, duration, frequency, ...VALUE_COLUMNS]. */
export const ROW_WIDTH = ROW_VALUES + VALUE_COLUMNS.length;

/**
 * Rows as one Float64Array (null as NaN: stored values are always finite), to cross to and from the SQLite
 * worker as one buffer: a structured clone of thousands of small arrays costs Node-RED's thread far more.
 */
export function packRows(rows: readonly RowValues[]): Float64Array {
  const packed = new Float64Array(rows.length * ROW_WIDTH);
  for (let r = 0; r < rows.length; r += 1) {
    const row = rows[r];
    for (let k = 0; k < ROW_WIDTH; k += 1) packed[r * ROW_WIDTH + k] = row[k] ?? NaN;
  }
  return packed;
}

export function unpackRows(packed: Float64Array): RowValues[] {
  const rows: RowValues[] = new Array(packed.length / ROW_WIDTH);
  for (let r = 0; r < rows.length; r += 1) {
    const row: RowValues = new Array(ROW_WIDTH);
    for (let k = 0; k < ROW_WIDTH; k += 1) {
      const v = packed[r * ROW_WIDTH + k];
      row[k] = Number.isNaN(v) ? null : v;
    }
    rows[r] = row;
  }
  return rows;
}

/** A batch as it crosses to the SQLite worker: its rows packed. */
export type PackedBatch = Omit<StoreBatch, 'rows'> & { rows: Float64Array };
