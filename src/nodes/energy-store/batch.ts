import { GRANULARITIES, MsgError, MAX_TIMESTAMP_S, checkDeviceId } from '../../api/index.js';
import { describeValue } from '../shared/msg-guard.js';
import { nextTurn } from '../../domain/entries/chunks.js';
import { ELECTRIC_FIELDS, ENERGY_FIELDS, kwName, kwhName, type RowValues, type StoreBatch } from './fields.js';

/** Entries checked between two turns of the event loop. */
const SLICE = 500;

/** What the store reads of an `energy-query` msg (entries, pages, split or follow output). */
export interface EntriesMsg {
  payload?: unknown;
  deviceId?: unknown;
  topic?: unknown;
  kind?: unknown;
  granularity?: unknown;
}

/** Channels per entry the store accepts: far above any device (6), a bound on one msg's rows. */
const MAX_CHANNELS = 64;

const bad = (message: string): MsgError => new MsgError(message);

/**
 * The rows of one msg, every entry checked before any row is made: a msg with one bad entry is
 * refused whole, so nothing of it is half written.
 */
export async function batchOf(msg: EntriesMsg): Promise<StoreBatch> {
  const entries = entriesOf(msg.payload);
  const device = deviceOf(msg);
  const kind = msg.kind;
  if (kind !== 'short' && kind !== 'long') {
    throw bad(`msg.kind must be "short" or "long" (energy-query sets it); got ${describeValue(kind)}`);
  }
  let granularity = '';
  if (kind === 'long') {
    const g = msg.granularity ?? '5m';
    if (typeof g !== 'string' || !(GRANULARITIES as readonly string[]).includes(g)) {
      throw bad(`msg.granularity must be one of ${GRANULARITIES.join(', ')} for long energy; got ${describeValue(g)}`);
    }
    granularity = g;
  }
  const rows: RowValues[] = [];
  const seen = new Set<number>();
  let newest = 0;
  let oldest = Infinity;
  for (let i = 0; i < entries.length; i += 1) {
    // A year in one msg is 105,120 entries: a turn of the event loop every slice keeps Node-RED responsive.
    if (i > 0 && i % SLICE === 0) await nextTurn();
    const made = rowsOf(entries[i], i);
    if (seen.has(made.ts)) continue; // one entry twice in a msg is one row, as it is across msgs
    seen.add(made.ts);
    if (made.ts > newest) newest = made.ts;
    if (made.ts < oldest) oldest = made.ts;
    for (const row of made.rows) rows.push(row);
  }
  return { device, kind, granularity, rows, entries: seen.size, newest, oldest: seen.size ? oldest : undefined };
}

function entriesOf(payload: unknown): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (payload && typeof payload === 'object') return [payload];
  throw bad(`msg.payload must be energy entries (energy-query's entries, pages, split or follow output); got ${describeValue(payload)}`);
}

function deviceOf(msg: EntriesMsg): string {
  const raw = msg.deviceId ?? msg.topic;
  if (typeof raw !== 'string' || raw === '') {
    throw bad(`msg.deviceId must name the device the entries belong to (energy-query sets it); got ${describeValue(raw)}`);
  }
  return checkDeviceId(raw);
}

type Values = Array<number | null>;

/** One field's channel values, with the name the entry gave it. */
interface Field {
  name: string;
  values: Values;
}

/** The channel values of one field, from Joules or from the kWh or kW the query converted them to. */
function joulesOf(entry: Record<string, unknown>, field: string, duration: number, at: string): Field | undefined {
  const sources: Array<[string, number]> = [[field, 1], [kwhName(field), 3_600_000], [kwName(field), 1000 * duration]];
  for (const [name, factor] of sources) {
    if (entry[name] === undefined) continue;
    // The service's Joules are whole (spec 2.13): a kWh or kW value turned back is rounded to them, so a
    // re-read in another unit finds the same row unchanged instead of one off by float noise.
    return { name, values: numbers(entry[name], `${at}.${name}`).map((v) => (v === null ? null : factor === 1 ? v : Math.round(v * factor))) };
  }
  return undefined;
}

/** Every field holds one value per channel: arrays of different lengths would be stored as rows with holes. */
function channelCount(fields: ReadonlyArray<Field | undefined>, at: string): number {
  const present = fields.filter((f): f is Field => f !== undefined);
  const first = present[0];
  const other = present.find((f) => f.values.length !== first.values.length);
  if (other) {
    throw bad(`${at}: its channel arrays differ in length (${first.name} has ${first.values.length} values, ${other.name} ${other.values.length}): every field holds one value per channel`);
  }
  return first.values.length;
}

function numbers(value: unknown, at: string): Values {
  if (!Array.isArray(value)) throw bad(`${at} must be an array of numbers, one per channel; got ${describeValue(value)}`);
  if (value.length > MAX_CHANNELS) throw bad(`${at} has ${value.length} values: no device has more than ${MAX_CHANNELS} channels`);
  return value.map((v, c) => {
    if (v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`${at}[${c}] must be a number or null; got ${describeValue(v)}`);
    return v;
  });
}

function rowsOf(raw: unknown, i: number): { ts: number; rows: RowValues[] } {
  const at = `msg.payload[${i}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${at} is not an energy entry; got ${describeValue(raw)}`);
  const entry = raw as Record<string, unknown>;
  if ('series' in entry && 'x' in entry && 'y' in entry) {
    throw bad(`${at} is a chart point (energy-query's chart output): send its entries, pages or split output to the store`);
  }
  const ts = entry.timestamp;
  if (typeof ts !== 'number' || !Number.isInteger(ts) || ts <= 0 || ts > MAX_TIMESTAMP_S) {
    throw bad(`${at}.timestamp must be whole unix seconds; got ${describeValue(ts)}`);
  }
  const duration = entry.duration;
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration <= 0) {
    throw bad(`${at}.duration must be whole seconds above 0; got ${describeValue(duration)}`);
  }
  if (entry.groupedBy !== undefined) {
    throw bad(`${at} holds phase groups, not channels: the store keeps channels (read them with groupByPhase off)`);
  }
  const frequency = entry.frequency;
  if (frequency !== undefined && frequency !== null && (typeof frequency !== 'number' || !Number.isFinite(frequency))) {
    throw bad(`${at}.frequency must be a number; got ${describeValue(frequency)}`);
  }
  const energy = ENERGY_FIELDS.map(([field]) => joulesOf(entry, field, duration, at));
  if (energy[0] === undefined) throw bad(`${at} has no real energy (eReal, eRealKwh or pRealKw): it is not an energy entry`);
  const fields = energy.concat(ELECTRIC_FIELDS.map(([field]) => (entry[field] === undefined ? undefined : { name: field, values: numbers(entry[field], `${at}.${field}`) })));
  const channels = channelCount(fields, at);
  const hz = typeof frequency === 'number' ? frequency : null;
  const rows: RowValues[] = [];
  for (let c = 0; c < channels; c += 1) {
    const row: RowValues = [c + 1, ts, duration, hz];
    for (const f of fields) row.push(f?.values[c] ?? null);
    rows.push(row);
  }
  return { ts, rows };
}
