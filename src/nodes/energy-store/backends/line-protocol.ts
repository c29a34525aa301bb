import { MEASUREMENT, ROW_CHANNEL, ROW_DURATION, ROW_FREQUENCY, ROW_TS, ROW_VALUES, VALUE_COLUMNS, type StoreBatch } from '../fields.js';

/**
 * InfluxDB line protocol, second precision: measurement `energy`, tags channel, device, granularity
 * (absent for short energy), kind; one float field per stored value. Same tags and timestamp = the
 * same point, so a repeat overwrites instead of adding one (InfluxDB's own upsert).
 */
const escapeTag = (text: string): string => text.replace(/[,= \\]/g, (c) => `\\${c}`);

/** A float field value: a bare number is a float in line protocol (never the `1i` integer form), so one field keeps one type. */
const float = (value: number): string => String(value);

function lineOf(batch: StoreBatch, row: StoreBatch['rows'][number]): string {
  const tags = [`channel=${Number(row[ROW_CHANNEL])}`, `device=${escapeTag(batch.device)}`];
  if (batch.granularity) tags.push(`granularity=${escapeTag(batch.granularity)}`);
  tags.push(`kind=${batch.kind}`);
  const fields = [`duration=${float(Number(row[ROW_DURATION]))}`];
  if (row[ROW_FREQUENCY] !== null) fields.push(`frequency=${float(Number(row[ROW_FREQUENCY]))}`);
  VALUE_COLUMNS.forEach((column, k) => {
    const v = row[ROW_VALUES + k];
    if (v !== null && v !== undefined) fields.push(`${column}=${float(v)}`);
  });
  return `${MEASUREMENT},${tags.join(',')} ${fields.join(',')} ${row[ROW_TS]}`;
}

/**
 * The batches' lines in bodies of at most `size` lines, each built only when asked for: a write of
 * 60,000 rows built whole held the event loop for over 100 ms.
 */
export function* lineBodies(batches: readonly StoreBatch[], size: number): Generator<{ body: string; lines: number }> {
  let lines: string[] = [];
  for (const batch of batches) {
    for (const row of batch.rows) {
      lines.push(lineOf(batch, row));
      if (lines.length === size) {
        yield { body: lines.join('\n'), lines: lines.length };
        lines = [];
      }
    }
  }
  if (lines.length) yield { body: lines.join('\n'), lines: lines.length };
}

/** An InfluxQL string literal. */
export const influxString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
