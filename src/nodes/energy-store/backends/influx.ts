import { MEASUREMENT, VALUE_COLUMNS, type RowValues, type StoreBatch } from '../fields.js';
import type { Bucket } from '../buckets.js';
import { messageOf, refused, unreachable } from './errors.js';
import { influxString, lineBodies } from './line-protocol.js';
import { stampBounds } from './stamps.js';
import type { RowRange, StoreBackend, StreamKey, Watermark, WriteResult } from './types.js';

export type InfluxApi = 'v1' | 'v2' | 'v3';

export interface InfluxOptions {
  url: string;
  api: InfluxApi;
  /** v1 and v3. */
  database?: string;
  /** v2. */
  org?: string;
  bucket?: string;
  /** v2 and v3. */
  token?: string;
  /** v1. */
  user?: string;
  password?: string;
}

/** Lines per write request: well under every version's request size limit. */
const LINES_PER_REQUEST = 5000;
/** Bucket statements per /query request. */
const STATEMENTS_PER_QUERY = 100;
const TIMEOUT_MS = 30_000;

interface QueryResult {
  statement_id?: number;
  error?: string;
  series?: Array<{ tags?: Record<string, string>; columns: string[]; values: unknown[][] }>;
}

export function influxProblem(o: InfluxOptions): string | undefined {
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return 'the InfluxDB url must be an address such as http://127.0.0.1:8086';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the InfluxDB url must start with http:// or https://';
  if (url.username || url.password) return 'the InfluxDB url holds a user or password: put them in the credential fields';
  if (o.api === 'v2' && (!o.org || !o.bucket)) return 'InfluxDB 2 needs an org and a bucket';
  if (o.api !== 'v2' && !o.database) return `InfluxDB ${o.api === 'v3' ? '3' : '1'} needs a database`;
  if (o.api !== 'v1' && !o.token) return `InfluxDB ${o.api === 'v3' ? '3' : '2'} needs a token`;
  return undefined;
}

/** InfluxDB over plain HTTP (fetch): line protocol writes at second precision, InfluxQL reads on /query. */
export class InfluxBackend implements StoreBackend {
  readonly name = 'influxdb';
  private readonly base: string;

  constructor(private readonly o: InfluxOptions) {
    this.base = o.url.replace(/\/+$/, '');
  }

  async open(): Promise<void> {
    const problem = influxProblem(this.o);
    if (problem) throw refused(problem);
    if (this.o.api !== 'v1') return;
    // v1 creates a database idempotently; a user who may write but not create gets 403 here, and the writes tell.
    try {
      await this.query(`CREATE DATABASE "${(this.o.database ?? '').replace(/["\\]/g, '')}"`, 'POST');
    } catch (err) {
      if (!(err as { status?: number }).status || (err as { status?: number }).status !== 403) throw err;
    }
  }

  async write(batches: readonly StoreBatch[]): Promise<WriteResult> {
    let rows = 0;
    for (const { body, lines } of lineBodies(batches, LINES_PER_REQUEST)) {
      await this.request(this.writePath(), 'POST', body);
      rows += lines;
    }
    return { rows };
  }

  /**
   * InfluxDB 1 is asked; InfluxDB 2 and 3 answer InfluxQL only with their v1 compatibility set up (a DBRP
   * mapping in 2): there the watermarks the node keeps beside its queue answer alone.
   */
  async watermarks(): Promise<Watermark[]> {
    if (this.o.api !== 'v1') return [];
    const [result] = await this.query(`SELECT last("duration") FROM ${MEASUREMENT} GROUP BY "device", "kind", "granularity"`);
    return (result?.series ?? []).map((s) => ({
      device: s.tags?.device ?? '',
      kind: s.tags?.kind === 'short' ? 'short' : 'long',
      granularity: s.tags?.granularity ?? '',
      newest: Number(s.values[0]?.[0]),
    }));
  }

  async readRows(r: RowRange): Promise<RowValues[]> {
    const columns = ['duration', 'frequency', ...VALUE_COLUMNS];
    const { above, upTo } = stampBounds(r.kind);
    const [result] = await this.query(`SELECT ${columns.map(ident).join(', ')} FROM ${MEASUREMENT} WHERE ${where(r)} AND time ${above} ${r.fromTs}s AND time ${upTo} ${r.toTs}s GROUP BY "channel"`);
    const rows: RowValues[] = [];
    for (const s of result?.series ?? []) {
      const channel = Number(s.tags?.channel);
      for (const v of s.values) rows.push([channel, Number(v[0]), ...columns.map((_, k) => nullable(v[k + 1]))]);
    }
    return rows.sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[0]) - Number(b[0]));
  }

  async readBuckets(k: StreamKey, buckets: readonly Bucket[]): Promise<RowValues[]> {
    const aggregates = VALUE_COLUMNS.map((c) => (c === 'v_rms' || c === 'i_rms' ? undefined : `${c.endsWith('_min') ? 'min' : c.endsWith('_max') ? 'max' : 'sum'}(${ident(c)}) AS ${ident(c)}`));
    const select = aggregates.filter(Boolean).join(', ');
    const rows: RowValues[] = [];
    for (let start = 0; start < buckets.length; start += STATEMENTS_PER_QUERY) {
      const chunk = buckets.slice(start, start + STATEMENTS_PER_QUERY);
      const statements = chunk.map((b) => `SELECT ${select} FROM ${MEASUREMENT} WHERE ${where(k)} AND time > ${b.lo}s AND time <= ${b.hi}s GROUP BY "channel"`);
      const results = await this.query(statements.join('; '));
      results.forEach((result, i) => {
        const b = chunk[result.statement_id ?? i];
        const found = (result.series ?? []).map((s) => {
          const named = new Map(s.columns.map((c, j) => [c, s.values[0]?.[j]]));
          return [Number(s.tags?.channel), b.hi, b.hi - b.lo, null, ...VALUE_COLUMNS.map((c) => nullable(named.get(c)))] as RowValues;
        });
        rows.push(...found.sort((x, y) => Number(x[0]) - Number(y[0])));
      });
    }
    return rows;
  }

  async edge(k: StreamKey, which: 'first' | 'latest'): Promise<number | undefined> {
    const [result] = await this.query(`SELECT ${which === 'first' ? 'first' : 'last'}("duration") FROM ${MEASUREMENT} WHERE ${where(k)}`);
    const ts = result?.series?.[0]?.values[0]?.[0];
    return ts === undefined ? undefined : Number(ts);
  }

  /** InfluxDB 1 deletes by statement; InfluxDB 2 and 3 keep data by the bucket's or database's own retention period. */
  async prune(beforeTs: number): Promise<number | undefined> {
    if (this.o.api === 'v1') await this.query(`DELETE FROM ${MEASUREMENT} WHERE time < ${beforeTs}s`, 'POST');
    return undefined;
  }

  async close(): Promise<void> {
    // Nothing held open: every request is its own.
  }

  private writePath(): string {
    const q = new URLSearchParams();
    if (this.o.api === 'v2') {
      q.set('org', this.o.org ?? '');
      q.set('bucket', this.o.bucket ?? '');
      q.set('precision', 's');
      return `/api/v2/write?${q}`;
    }
    q.set('db', this.o.database ?? '');
    if (this.o.api === 'v3') {
      q.set('precision', 'second');
      // All or nothing: a batch with one refused line writes none of it.
      q.set('accept_partial', 'false');
      return `/api/v3/write_lp?${q}`;
    }
    q.set('precision', 's');
    return `/write?${q}`;
  }

  private async query(q: string, method: 'GET' | 'POST' = 'GET'): Promise<QueryResult[]> {
    const params = new URLSearchParams({ db: this.o.api === 'v2' ? this.o.bucket ?? '' : this.o.database ?? '', epoch: 's', q });
    const body = await this.request(method === 'GET' ? `/query?${params}` : '/query', method, method === 'POST' ? params.toString() : undefined, method === 'POST');
    let parsed: { results?: QueryResult[]; error?: string };
    try {
      parsed = JSON.parse(body) as { results?: QueryResult[]; error?: string };
    } catch {
      throw unreachable(`InfluxDB answered /query with something that is not JSON: ${body.slice(0, 100)}`);
    }
    if (parsed.error) throw refused(`InfluxDB refused the query: ${parsed.error}`);
    const failed = parsed.results?.find((r) => r.error);
    if (failed) throw refused(`InfluxDB refused the query: ${failed.error}`);
    return parsed.results ?? [];
  }

  private headers(form: boolean): Record<string, string> {
    const h: Record<string, string> = { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'text/plain; charset=utf-8', Accept: 'application/json' };
    if (this.o.api === 'v2' && this.o.token) h.Authorization = `Token ${this.o.token}`;
    else if (this.o.api === 'v3' && this.o.token) h.Authorization = `Bearer ${this.o.token}`;
    else if (this.o.user) h.Authorization = `Basic ${Buffer.from(`${this.o.user}:${this.o.password ?? ''}`).toString('base64')}`;
    return h;
  }

  private async request(pathAndQuery: string, method: string, body?: string, form = false): Promise<string> {
    let res: Response;
    const where = pathAndQuery.split('?')[0];
    try {
      res = await fetch(`${this.base}${pathAndQuery}`, { method, headers: this.headers(form), body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      // fetch says only "fetch failed"; its cause says why (connect ECONNREFUSED 127.0.0.1:8086, a timeout).
      const cause = (err as { cause?: { message?: unknown; errors?: Array<{ message?: unknown }> } }).cause;
      const why = cause?.errors?.[0]?.message ?? cause?.message;
      throw unreachable(`InfluxDB unreachable (${where}): ${typeof why === 'string' && why ? why.slice(0, 200) : messageOf(err)}`);
    }
    const text = await res.text();
    if (res.ok) return text;
    const reason = `InfluxDB answered ${where} with ${res.status}: ${influxMessage(text)}`;
    // 5xx, 429 and 503 (busy, starting): try again later; every other answer is a refusal.
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw unreachable(reason, res.status);
    const hint = res.status === 401 || res.status === 403 ? ' (check the credentials)' : '';
    throw refused(`${reason}${hint}`, res.status);
  }
}

/** A quoted identifier: `duration` is an InfluxQL keyword. */
const ident = (name: string): string => `"${name}"`;

function where(k: StreamKey): string {
  return `"device" = ${influxString(k.device)} AND "kind" = ${influxString(k.kind)} AND "granularity" = ${influxString(k.granularity)}`;
}

function nullable(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** The `error` or `message` of InfluxDB's JSON error body, else the start of the text. */
function influxMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    return String(body.error ?? body.message ?? text).slice(0, 300);
  } catch {
    return text.slice(0, 300) || 'no message';
  }
}
