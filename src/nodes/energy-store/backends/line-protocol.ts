import { MEASUREMENT, ROW_CHANNEL, ROW_DURATION, ROW_FREQUENCY, ROW_TS, ROW_VALUES, VALUE_COLUMNS, type StoreBatch } from '../fields.js';

/**
 * InfluxDB line protocol, second precision: measurement `energy`, tags channel, device, granularity
 * (absent for short energy), kind; one float field per stored value. Same tags and timestamp = the
 * same point, so a repeat overwrites instead of adding one (InfluxDB's own upsert).
 */
const escapeTag = (text: string): string => text.replace(/[,= \\]/g, (c) => `\\${c}`);

/** A float field value: a bare number is a float in line protocol (never the `1i` integer form), so one field keeps one type. */
const float = (value: number): string => String(value);

export function linesOf(batch: StoreBatch): string[] {
  const tags = (channel: number): string => {
    const parts = [`channel=${channel}`, `device=${escapeTag(batch.device)}`];
    if (batch.granularity) parts.push(`granularity=${escapeTag(batch.granularity)}`);
    parts.push(`kind=${batch.kind}`);
    return parts.join(',');
  };
  return batch.rows.map((row) => {
    const fields = [`duration=${float(Number(row[ROW_DURATION]))}`];
    if (row[ROW_FREQUENCY] !== null) fields.push(`frequency=${float(Number(row[ROW_FREQUENCY]))}`);
    VALUE_COLUMNS.forEach((column, k) => {
      const v = row[ROW_VALUES + k];
      if (v !== null && v !== undefined) fields.push(`${column}=${float(v)}`);
    });
    return `${MEASUREMENT},${tags(Number(row[ROW_CHANNEL]))} ${fields.join(',')} ${row[ROW_TS]}`;
  });
}

/** An InfluxQL string literal. */
export const influxString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
