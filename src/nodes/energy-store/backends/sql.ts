/**
 * The SQL both SQL backends run: one `energy` table keyed by (device, kind, granularity, ts, channel),
 * so a repeated entry is one row and a re-read corrects it, and a small `energy_streams` table with
 * the newest timestamp of every stream (the watermark, without scanning the big table).
 * Written once with $1-style parameters; SQLite gets ?1-style (same numbering).
 */
import { ALL_COLUMNS, KEY_COLUMNS, TABLE, VALUE_COLUMNS } from '../fields.js';
import type { Bucket } from '../buckets.js';
import { stampBounds } from './stamps.js';
import type { StreamKey } from './types.js';

export type Dialect = 'sqlite' | 'postgres';
export const STREAMS_TABLE = 'energy_streams';

export function forDialect(sql: string, dialect: Dialect): string {
  return dialect === 'sqlite' ? sql.replace(/\$(\d+)/g, '?$1') : sql;
}

export function createTables(dialect: Dialect): string[] {
  const real = dialect === 'sqlite' ? 'REAL' : 'double precision';
  const int = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  const values = VALUE_COLUMNS.map((c) => `  ${c} ${real}`).join(',\n');
  const tail = dialect === 'sqlite' ? ' WITHOUT ROWID' : '';
  return [
    `CREATE TABLE IF NOT EXISTS ${TABLE} (
  device text NOT NULL,
  kind text NOT NULL,
  granularity text NOT NULL,
  ts ${int} NOT NULL,
  channel ${dialect === 'sqlite' ? 'INTEGER' : 'smallint'} NOT NULL,
  duration ${dialect === 'sqlite' ? 'INTEGER' : 'integer'} NOT NULL,
  frequency ${real},
${values},
  PRIMARY KEY (${KEY_COLUMNS.join(', ')})
)${tail}`,
    `CREATE TABLE IF NOT EXISTS ${STREAMS_TABLE} (
  device text NOT NULL,
  kind text NOT NULL,
  granularity text NOT NULL,
  newest ${int} NOT NULL,
  PRIMARY KEY (device, kind, granularity)
)${tail}`,
  ];
}

/** Columns the store needs in each table, to check a table it did not create. */
export const REQUIRED_COLUMNS: Record<string, readonly string[]> = {
  [TABLE]: ALL_COLUMNS,
  [STREAMS_TABLE]: ['device', 'kind', 'granularity', 'newest'],
};

/** Rows that repeat what is stored change nothing (and are not counted as changed). */
const UPDATE = `ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET ${['duration', 'frequency', ...VALUE_COLUMNS].map((c) => `${c} = excluded.${c}`).join(', ')}
  WHERE ${['duration', 'frequency', ...VALUE_COLUMNS].map((c) => `${TABLE}.${c} IS DISTINCT FROM excluded.${c}`).join(' OR ')}`;

/** SQLite: one row per run of a prepared statement, inside the batch's transaction. */
export const SQLITE_UPSERT = forDialect(
  `INSERT INTO ${TABLE} (${ALL_COLUMNS.join(', ')}) VALUES (${ALL_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ${UPDATE}`,
  'sqlite',
);

/** PostgreSQL: a whole batch in one statement, one array parameter per column. */
export function postgresUpsert(): string {
  const types = ['bigint', 'smallint', 'integer', 'double precision', ...VALUE_COLUMNS.map(() => 'double precision')];
  const names = ['ts', 'channel', 'duration', 'frequency', ...VALUE_COLUMNS];
  const arrays = types.map((t, i) => `$${i + 4}::${t}[]`).join(', ');
  return `INSERT INTO ${TABLE} (${ALL_COLUMNS.join(', ')})
SELECT $1, $2, $3, ${names.map((n) => `u.${n}`).join(', ')} FROM unnest(${arrays}) AS u(${names.join(', ')}) ${UPDATE}`;
}

export function streamUpsert(dialect: Dialect): string {
  const newer = dialect === 'sqlite' ? 'max' : 'GREATEST';
  return forDialect(`INSERT INTO ${STREAMS_TABLE} (device, kind, granularity, newest) VALUES ($1, $2, $3, $4)
ON CONFLICT (device, kind, granularity) DO UPDATE SET newest = ${newer}(${STREAMS_TABLE}.newest, excluded.newest)`, dialect);
}

export const WATERMARKS = `SELECT device, kind, granularity, newest FROM ${STREAMS_TABLE}`;

const SELECTED = ['channel', 'ts', 'duration', 'frequency', ...VALUE_COLUMNS].join(', ');
const STREAM = 'device = $1 AND kind = $2 AND granularity = $3';

export function selectRows(dialect: Dialect, kind: StreamKey['kind']): string {
  const { above, upTo } = stampBounds(kind);
  return forDialect(`SELECT ${SELECTED} FROM ${TABLE} WHERE ${STREAM} AND ts ${above} $4 AND ts ${upTo} $5 ORDER BY ts, channel`, dialect);
}

export function selectEdge(dialect: Dialect, which: 'first' | 'latest'): string {
  return forDialect(`SELECT ${which === 'first' ? 'min' : 'max'}(ts) AS ts FROM ${TABLE} WHERE ${STREAM}`, dialect);
}

/**
 * Sums per bucket and channel. The bucket bounds are integers the store computed (never user text),
 * written into the statement so one statement serves any number of buckets.
 */
export function selectBuckets(dialect: Dialect, buckets: readonly Bucket[]): string {
  const values = buckets.map((b) => `(${Math.trunc(b.lo)}, ${Math.trunc(b.hi)})`).join(', ');
  const sums = VALUE_COLUMNS.map((c) => {
    if (c === 'v_rms' || c === 'i_rms') return `NULL AS ${c}`;
    if (c.endsWith('_min')) return `min(e.${c}) AS ${c}`;
    if (c.endsWith('_max')) return `max(e.${c}) AS ${c}`;
    return `sum(e.${c}) AS ${c}`;
  }).join(', ');
  // Every column named: rows come back as objects keyed by column name.
  return forDialect(`WITH b(lo, hi) AS (VALUES ${values})
SELECT e.channel AS channel, b.hi AS ts, b.hi - b.lo AS duration, NULL AS frequency, ${sums}
FROM b JOIN ${TABLE} e ON e.device = $1 AND e.kind = $2 AND e.granularity = $3 AND e.ts > b.lo AND e.ts <= b.hi
GROUP BY b.lo, b.hi, e.channel ORDER BY b.hi, e.channel`, dialect);
}

export function pruneStream(dialect: Dialect): string {
  return forDialect(`DELETE FROM ${TABLE} WHERE ${STREAM} AND ts < $4`, dialect);
}
