import type { EnergyEntry, Granularity, RangeQuery } from './types.js';

/**
 * How the service selects and labels long-energy entries.
 * - `timestamp` (the live service): a range returns the 5-minute records stamped `fromTs <= t < toTs`;
 *   a coarser entry is labelled with the stamp of the first record it sums, so a whole bucket
 *   labelled L covers [L - 300, L - 300 + duration).
 * - `coverage` (the spec's text): a range returns what lies inside it; every entry is stamped at the
 *   end of the period it covers.
 * A 5-minute record stamped t covers [t - 300, t) under both.
 */
export type LongWindow = 'timestamp' | 'coverage';

export const LONG_WINDOWS: readonly LongWindow[] = ['timestamp', 'coverage'];
/** The reading assumed until a response says otherwise: the live service's. */
export const LIVE_LONG_WINDOW: LongWindow = 'timestamp';
/** Length of a long-energy record, the unit every long entry is made of. */
export const RECORD_S = 300;

/** What one response shows of the reading. */
export interface ReadingEvidence {
  reading: LongWindow;
  /**
   * True when no other reading could have given the response. False for the coverage reading seen only
   * in the response's first entry starting at the first whole record of the range: the timestamp
   * reading gives that too when the device has no data just before it (where its history begins).
   */
  decisive: boolean;
}

/**
 * What a response tells of the reading, if anything. Only timestamp selection returns an entry that
 * starts before `fromTs` (e.g. one stamped exactly at an aligned fromTs); only coverage returns one
 * stamped at or after `toTs`. Coverage also starts exactly at the first whole record at or after
 * fromTs, where timestamp selection (with data there) starts 5 minutes earlier.
 */
export function readingOf(entries: readonly EnergyEntry[], request: RangeQuery): ReadingEvidence | undefined {
  let firstStart = Infinity;
  let lastEnd = -Infinity;
  for (const entry of entries) {
    const ts = entry?.timestamp;
    if (typeof ts !== 'number') continue;
    const duration = typeof entry.duration === 'number' && entry.duration > 0 ? entry.duration : RECORD_S;
    if (ts - duration < firstStart) firstStart = ts - duration;
    if (ts > lastEnd) lastEnd = ts;
  }
  if (firstStart === Infinity) return undefined;
  const byStamp = firstStart < request.fromTs;
  const byCoverage = lastEnd >= request.toTs;
  if (byStamp !== byCoverage) return { reading: byStamp ? 'timestamp' : 'coverage', decisive: true };
  if (byStamp) return undefined;
  if (firstStart === Math.ceil(request.fromTs / RECORD_S) * RECORD_S) return { reading: 'coverage', decisive: false };
  return undefined;
}

/**
 * The reading of one client: fixed by its option, or learnt from responses (the last decisive one
 * wins; a response that only suggests a reading counts until a decisive one is seen), the live
 * service's until then.
 */
export class LongWindowReading {
  private verdict: LongWindow;
  private readonly fixed: boolean;
  private decided = false;

  constructor(option?: LongWindow) {
    this.fixed = option !== undefined;
    this.verdict = option ?? LIVE_LONG_WINDOW;
  }

  current(): LongWindow {
    return this.verdict;
  }

  /** The reading to apply to this response: what it shows, else what was known before. */
  learn(entries: readonly EnergyEntry[], request: RangeQuery): LongWindow {
    if (this.fixed) return this.verdict;
    const seen = readingOf(entries, request);
    if (seen && (seen.decisive || !this.decided)) {
      this.verdict = seen.reading;
      this.decided ||= seen.decisive;
    }
    return this.verdict;
  }
}

/**
 * Entries in the client's one convention: `timestamp` is the END of the period the entry covers and
 * `duration` its length. 5-minute records are kept only when their period lies inside `periods`
 * (the planned span, asked for with 300 s more at its end); coarser entries of the timestamp reading
 * are moved from their first record's stamp to their end. Changes the parsed entries in place.
 */
export function asCoveredPeriods(entries: EnergyEntry[], granularity: Granularity, periods: RangeQuery, reading: LongWindow): EnergyEntry[] {
  if (granularity === '5m') {
    return entries.filter((e) => typeof e?.timestamp === 'number' && e.timestamp - RECORD_S >= periods.fromTs && e.timestamp <= periods.toTs);
  }
  if (reading === 'timestamp') {
    for (const e of entries) {
      if (typeof e?.timestamp === 'number' && typeof e.duration === 'number') e.timestamp = e.timestamp - RECORD_S + e.duration;
    }
  }
  return entries;
}

/**
 * The span a long read of [fromTs, toTs) covers, in unix seconds (start inclusive, end exclusive).
 * 5-minute reads are exactly the whole records inside the range under both readings; coarser reads
 * ask for the service's buckets [fromTs, toTs), which under the timestamp reading cover 5 minutes
 * earlier than the clock periods (a day read covers 23:55 to 23:55).
 */
export function coveredPeriod(fromTs: number, toTs: number, granularity: Granularity, reading: LongWindow): RangeQuery & { shiftS: number } {
  const up = (t: number): number => Math.ceil(t / RECORD_S) * RECORD_S;
  const down = (t: number): number => Math.floor(t / RECORD_S) * RECORD_S;
  if (granularity === '5m' || reading === 'coverage') return { fromTs: up(fromTs), toTs: down(toTs), shiftS: 0 };
  return { fromTs: up(fromTs) - RECORD_S, toTs: up(toTs) - RECORD_S, shiftS: -RECORD_S };
}
