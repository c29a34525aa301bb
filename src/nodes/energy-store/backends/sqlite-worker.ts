/**
 * The thread that owns the SQLite connection. node:sqlite is synchronous: a year's read or a large
 * batch written on Node-RED's own thread would stall every flow for the whole statement, so every
 * statement runs here and only its result crosses over.
 */
import { parentPort } from 'node:worker_threads';
import { STREAMS_TABLE, REQUIRED_COLUMNS, SQLITE_UPSERT, WATERMARKS, createTables, pruneStream, selectBuckets, selectEdge, selectRows, streamUpsert } from './sql.js';
import { ROW_VALUES, ROW_WIDTH, packRows, type PackedBatch, type RowValues } from '../fields.js';
import type { Bucket } from '../buckets.js';
import type { RowRange, StreamKey, Watermark, WriteResult } from './types.js';

interface Statement {
  run(...params: unknown[]): { changes: number | bigint };
  all(...params: unknown[]): Array<Record<string, unknown>>;
  get(...params: unknown[]): Record<string, unknown> | undefined;
}
interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}
interface SqliteModule {
  DatabaseSync: new (path: string) => Database;
}

export interface WorkerRequest {
  id: number;
  op: string;
  args: unknown[];
}
export interface WorkerReply {
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

let db: Database | undefined;
const statements = new Map<string, Statement>();

function statement(sql: string): Statement {
  let s = statements.get(sql);
  if (!s) {
    s = (db as Database).prepare(sql);
    statements.set(sql, s);
  }
  return s;
}

/** node:sqlite, without Node.js 22's one-line "SQLite is an experimental feature" warning in Node-RED's log. */
function loadSqlite(): SqliteModule {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!/SQLite is an experimental feature/.test(String(warning))) (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite') as SqliteModule;
  } finally {
    process.emitWarning = emit;
  }
}

function open(file: string): void {
  if (db) return;
  // Loaded here, not at the top: the main thread checks the Node.js version before it starts this worker.
  const { DatabaseSync } = loadSqlite();
  db = new DatabaseSync(file);
  // WAL lets Grafana (or sqlite3) read while the store writes; FULL makes a commit durable before
  // the store removes the batch from its disk queue.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;');
  for (const sql of createTables('sqlite')) db.exec(sql);
  for (const [table, required] of Object.entries(REQUIRED_COLUMNS)) {
    const have = new Set(db.prepare(`PRAGMA table_info(${table})`).all().map((c) => String(c.name)));
    const missing = required.filter((c) => !have.has(c));
    if (missing.length) throw Object.assign(new Error(`the table "${table}" in this file has other columns than the store's (missing ${missing.join(', ')}): choose another file`), { refused: true });
  }
}

function write(batches: PackedBatch[]): WriteResult {
  const database = db as Database;
  const upsert = statement(SQLITE_UPSERT);
  const stream = statement(streamUpsert('sqlite'));
  let rows = 0;
  const changed: number[] = [];
  database.exec('BEGIN IMMEDIATE');
  try {
    for (const b of batches) {
      changed.push(0);
      const count = b.rows.length / ROW_WIDTH;
      const values: Array<number | null> = new Array(ROW_WIDTH - ROW_VALUES);
      for (let r = 0; r < count; r += 1) {
        const at = r * ROW_WIDTH;
        for (let k = ROW_VALUES; k < ROW_WIDTH; k += 1) values[k - ROW_VALUES] = nullable(b.rows[at + k]);
        // The table's key order: device, kind, granularity, ts, channel, then duration, frequency, values.
        changed[changed.length - 1] += Number(upsert.run(b.device, b.kind, b.granularity, b.rows[at + 1], b.rows[at], b.rows[at + 2], nullable(b.rows[at + 3]), ...values).changes);
        rows += 1;
      }
      if (count) stream.run(b.device, b.kind, b.granularity, b.newest);
    }
    database.exec('COMMIT');
  } catch (err) {
    database.exec('ROLLBACK');
    throw err;
  }
  return { rows, changed };
}

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);
const arrayOf = (row: Record<string, unknown>): RowValues => Object.values(row).map((v) => (v === null || v === undefined ? null : Number(v)));

const ops: Record<string, (...args: never[]) => unknown> = {
  open: (file: string) => open(file),
  write: (batches: PackedBatch[]) => write(batches),
  watermarks: (): Watermark[] => statement(WATERMARKS).all().map((r) => ({ device: String(r.device), kind: r.kind as 'short' | 'long', granularity: String(r.granularity), newest: Number(r.newest) })),
  readRows: (r: RowRange) => packRows(statement(selectRows('sqlite', r.kind)).all(r.device, r.kind, r.granularity, r.fromTs, r.toTs).map(arrayOf)),
  readBuckets: (k: StreamKey, buckets: Bucket[]) => packRows((db as Database).prepare(selectBuckets('sqlite', buckets)).all(k.device, k.kind, k.granularity).map(arrayOf)),
  edge: (k: StreamKey, which: 'first' | 'latest') => {
    const ts = statement(selectEdge('sqlite', which)).get(k.device, k.kind, k.granularity)?.ts;
    return ts === null || ts === undefined ? undefined : Number(ts);
  },
  prune: (beforeTs: number) => {
    let deleted = 0;
    for (const s of statement(`SELECT device, kind, granularity FROM ${STREAMS_TABLE}`).all()) {
      deleted += Number(statement(pruneStream('sqlite')).run(s.device, s.kind, s.granularity, beforeTs).changes);
    }
    return deleted;
  },
  close: () => {
    statements.clear();
    db?.close();
    db = undefined;
  },
};

/** SQLite's result codes (primary, low byte) that a later try may get past; every other one is a refusal. */
const TRANSIENT = new Set([5 /* BUSY */, 6 /* LOCKED */, 10 /* IOERR */, 13 /* FULL */, 14 /* CANTOPEN */]);

function classify(err: unknown): { code: string; message: string } {
  const e = err as { errcode?: unknown; message?: unknown; refused?: boolean };
  const message = String(e?.message ?? err).slice(0, 300);
  if (e?.refused) return { code: 'STORE_REFUSED', message };
  const primary = typeof e?.errcode === 'number' ? e.errcode & 0xff : undefined;
  return { code: primary !== undefined && TRANSIENT.has(primary) ? 'STORE_UNREACHABLE' : 'STORE_REFUSED', message: `SQLite: ${message}` };
}

parentPort?.on('message', (req: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const op = ops[req.op];
    if (!op) throw new Error(`unknown operation ${req.op}`);
    if (req.op !== 'open' && !db) throw Object.assign(new Error('the database is not open'), { errcode: 14 });
    reply = { id: req.id, result: (op as (...a: unknown[]) => unknown)(...req.args) };
  } catch (err) {
    reply = { id: req.id, error: classify(err) };
  }
  // Packed rows go back as their buffer, not a copy.
  parentPort?.postMessage(reply, reply.result instanceof Float64Array ? [reply.result.buffer as ArrayBuffer] : []);
});
