import type { Pool, PoolClient } from 'pg';
import { ROW_VALUES, TABLE, type RowValues, type StoreBatch } from '../fields.js';
import type { Bucket } from '../buckets.js';
import { isNetworkFailure, messageOf, refused, unreachable } from './errors.js';
import { REQUIRED_COLUMNS, WATERMARKS, createTables, postgresUpsert, pruneStream, selectBuckets, selectEdge, selectRows, streamUpsert, STREAMS_TABLE } from './sql.js';
import type { RowRange, StoreBackend, StreamKey, Watermark, WriteResult } from './types.js';

export interface PostgresOptions {
  /** A libpq connection URI without the password (postgres://user@host:5432/db). */
  connection: string;
  password?: string;
}

/** Rows per statement: 19 arrays of this many values each, formatted by pg on Node-RED's thread (a few ms). */
const CHUNK_ROWS = 2000;

/** The connection text with any password in it taken out: never shown, logged or exported. */
export function connectionProblem(connection: string): string | undefined {
  if (!connection.trim()) return 'no connection: give one such as postgres://user@127.0.0.1:5432/energy';
  try {
    const url = new URL(connection);
    if (!/^postgres(ql)?:$/.test(url.protocol)) return `the connection must start with postgres://, not ${url.protocol}//`;
    if (url.password) return 'the connection holds a password: put it in the Password field (a credential), not in the connection';
  } catch {
    return 'the connection must be a URI such as postgres://user@127.0.0.1:5432/energy';
  }
  return undefined;
}

/**
 * Host, port, user and database from the URI (pg would let the URI's missing password override the
 * credential). `?host=/run/postgresql` reaches a local socket; `?sslmode=require|verify-full` asks for TLS.
 */
function connectionConfig(connection: string): { host: string; port: number; user?: string; database?: string; ssl?: { rejectUnauthorized: boolean } } {
  const url = new URL(connection);
  const sslmode = url.searchParams.get('sslmode');
  return {
    host: url.searchParams.get('host') || url.hostname || '127.0.0.1',
    port: Number(url.port) || 5432,
    user: decodeURIComponent(url.username) || undefined,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
    ...(sslmode && sslmode !== 'disable' && sslmode !== 'prefer' && sslmode !== 'allow' ? { ssl: { rejectUnauthorized: sslmode === 'verify-full' || sslmode === 'verify-ca' } } : {}),
  };
}

/**
 * SQLSTATE classes that say the database is there but will not do it (credentials, missing
 * database, permissions, schema, bad data): the batch waits for a fix instead of a retry.
 */
const REFUSING_CLASSES = ['28', '3D', '42', '22', '23', '2B', '0A', '25'];

function classify(err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  const text = messageOf(err);
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && REFUSING_CLASSES.includes(code.slice(0, 2))) {
    return refused(`PostgreSQL refused: ${text} (${code})`);
  }
  // pg's own refusal before the server is asked (no password given where one is needed).
  if (typeof code !== 'string' && /password/i.test(text)) return refused(`PostgreSQL refused: ${text}`);
  if (isNetworkFailure(err) || typeof code !== 'string' || /^(08|53|57)/.test(code)) return unreachable(`PostgreSQL unreachable: ${text}`);
  return refused(`PostgreSQL refused: ${text} (${code})`);
}

/** PostgreSQL through `pg` (loaded only when this backend is chosen). */
export class PostgresBackend implements StoreBackend {
  readonly name = 'postgres';
  private pool?: Pool;
  private ready = false;

  constructor(private readonly options: PostgresOptions) {}

  async open(): Promise<void> {
    const problem = connectionProblem(this.options.connection);
    if (problem) throw refused(problem);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pg = require('pg') as typeof import('pg');
    this.pool ??= new pg.Pool({
      ...connectionConfig(this.options.connection),
      password: this.options.password,
      max: 2,
      connectionTimeoutMillis: 5000,
      query_timeout: 120_000,
      idleTimeoutMillis: 30_000,
      application_name: 'node-red-energy-store',
    });
    // An idle connection the server drops (a restart) must not become an uncaught 'error'.
    this.pool.on('error', () => undefined);
    if (!this.ready) {
      await this.run(async (c) => {
        for (const sql of createTables('postgres')) await c.query(sql);
        for (const [table, required] of Object.entries(REQUIRED_COLUMNS)) {
          const have = await c.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [table]);
          const names = new Set(have.rows.map((r) => r.column_name));
          const missing = required.filter((col) => !names.has(col));
          if (missing.length) throw refused(`the table "${table}" has other columns than the store's (missing ${missing.join(', ')}): use another schema or database`);
        }
      });
      this.ready = true;
    }
  }

  async write(batches: readonly StoreBatch[]): Promise<WriteResult> {
    return this.run(async (c) => {
      let rows = 0;
      const changed: number[] = [];
      await c.query('BEGIN');
      try {
        for (const b of batches) {
          changed.push(0);
          for (let start = 0; start < b.rows.length; start += CHUNK_ROWS) {
            const chunk = b.rows.slice(start, start + CHUNK_ROWS);
            const columns = [1, 0, 2, 3, ...Array.from({ length: chunk[0].length - ROW_VALUES }, (_, i) => ROW_VALUES + i)].map((k) => chunk.map((r) => r[k]));
            const result = await c.query(postgresUpsert(), [b.device, b.kind, b.granularity, ...columns]);
            changed[changed.length - 1] += result.rowCount ?? 0;
            rows += chunk.length;
          }
          if (b.rows.length) await c.query(streamUpsert('postgres'), [b.device, b.kind, b.granularity, b.newest]);
        }
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      return { rows, changed };
    });
  }

  watermarks(): Promise<Watermark[]> {
    return this.run(async (c) => (await c.query(WATERMARKS)).rows.map((r) => ({ device: r.device, kind: r.kind, granularity: r.granularity, newest: Number(r.newest) })));
  }

  readRows(r: RowRange): Promise<RowValues[]> {
    return this.run(async (c) => numbers((await c.query({ text: selectRows('postgres', r.kind), values: [r.device, r.kind, r.granularity, r.fromTs, r.toTs], rowMode: 'array' })).rows));
  }

  readBuckets(k: StreamKey, buckets: readonly Bucket[]): Promise<RowValues[]> {
    return this.run(async (c) => numbers((await c.query({ text: selectBuckets('postgres', buckets), values: [k.device, k.kind, k.granularity], rowMode: 'array' })).rows));
  }

  edge(k: StreamKey, which: 'first' | 'latest'): Promise<number | undefined> {
    return this.run(async (c) => {
      const ts = (await c.query(selectEdge('postgres', which), [k.device, k.kind, k.granularity])).rows[0]?.ts;
      return ts === null || ts === undefined ? undefined : Number(ts);
    });
  }

  prune(beforeTs: number): Promise<number | undefined> {
    return this.run(async (c) => {
      let deleted = 0;
      for (const s of (await c.query(`SELECT device, kind, granularity FROM ${STREAMS_TABLE}`)).rows) {
        deleted += (await c.query(pruneStream('postgres'), [s.device, s.kind, s.granularity, beforeTs])).rowCount ?? 0;
      }
      return deleted;
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.ready = false;
    await pool?.end().catch(() => undefined);
  }

  /** One pooled connection for `work`; failures become the store's error codes. */
  private async run<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    if (!this.pool) throw unreachable(`PostgreSQL: the ${TABLE} store is not open`);
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      return await work(client);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'STORE_REFUSED' || (err as { code?: unknown }).code === 'STORE_UNREACHABLE') throw err;
      // A broken connection is not given back to the pool.
      client?.release(err instanceof Error ? err : true);
      client = undefined;
      throw classify(err);
    } finally {
      client?.release();
    }
  }
}

/** pg gives bigint and numeric columns as text. */
function numbers(rows: unknown[][]): RowValues[] {
  return rows.map((row) => row.map((v) => (v === null || v === undefined ? null : Number(v))));
}
