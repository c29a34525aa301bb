import type { RowValues, StoreBatch } from '../fields.js';
import type { Bucket } from '../buckets.js';

/** One series the store holds: a device's short energy, or its long energy at one granularity. */
export interface StreamKey {
  device: string;
  kind: 'short' | 'long';
  /** '' for short energy. */
  granularity: string;
}

export interface Watermark extends StreamKey {
  /** Timestamp of the newest entry held. */
  newest: number;
}

export interface WriteResult {
  /** Channel rows in the batches. */
  rows: number;
  /**
   * Per batch, the rows inserted or corrected (a repeat of a row the store already holds is not
   * counted); undefined when the database cannot tell (InfluxDB).
   */
  changed?: number[];
}

/** The entries of a stream a read of [fromTs, toTs) answers with: selected by stamp as stampBounds says. */
export interface RowRange extends StreamKey {
  fromTs: number;
  toTs: number;
}

/**
 * A database behind the store. Every method either does all it was asked or fails with an
 * StoreError whose code says why: STORE_UNREACHABLE (try again later: the batch stays queued),
 * STORE_REFUSED (the database said no: credentials, schema, permissions) or STORE_UNAVAILABLE (this
 * backend cannot run here at all).
 */
export interface StoreBackend {
  readonly name: string;
  /** Connects, and creates the table (or checks the one there) the first time. */
  open(): Promise<void>;
  /** Every batch in one transaction (InfluxDB: in one request per backend limit, see docs/energy-store.md). */
  write(batches: readonly StoreBatch[]): Promise<WriteResult>;
  watermarks(): Promise<Watermark[]>;
  /** Rows ordered by timestamp, then channel. */
  readRows(range: RowRange): Promise<RowValues[]>;
  /**
   * The 5-minute rows of a long-energy stream summed per bucket (min/max for the voltage and current
   * extremes), one row per bucket and channel that holds data, stamped `hi` with duration hi − lo.
   */
  readBuckets(key: StreamKey, buckets: readonly Bucket[]): Promise<RowValues[]>;
  /** Timestamp of the oldest or newest entry of a stream; undefined when it holds none. */
  edge(key: StreamKey, which: 'first' | 'latest'): Promise<number | undefined>;
  /** Deletes every row older than `beforeTs`; returns how many (when known). */
  prune(beforeTs: number): Promise<number | undefined>;
  close(): Promise<void>;
}
