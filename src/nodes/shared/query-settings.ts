import {
  EnergyApiError, GRANULARITIES, isValidTimezone, parseTime,
  type EnergyConversion, type EnergyKind, type EnergyOptions, type Granularity, type TimeInput,
} from '../../api/index.js';
import type { FlowNodeDef } from './flow-node.js';
import { describeValue } from './msg-guard.js';

export type QueryMode = 'range' | 'first' | 'latest';
/** entries: one msg with the array; chart: Dashboard 2 points; split: one msg per entry; pages: one msg per request (msg.parts). */
export type OutputFormat = 'entries' | 'chart' | 'split' | 'pages';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['entries', 'chart', 'split', 'pages'];

/** The node's properties as the editor saves them (issue 3 contract names). */
export interface EnergyQueryDef extends FlowNodeDef {
  kind?: string;
  query?: string;
  fromTs?: string;
  toTs?: string;
  granularity?: string;
  timezone?: string;
  convert?: string;
  powerFactor?: boolean;
  groupByPhase?: boolean;
  output?: string;
  follow?: boolean;
  catchUp?: string | number;
  /** Most requests one msg may cost (default DEFAULT_MAX_REQUESTS). */
  maxRequests?: string | number;
}

/** The msg properties that override the node's settings. */
export interface QueryMsg {
  deviceId?: unknown;
  kind?: unknown;
  query?: unknown;
  fromTs?: unknown;
  toTs?: unknown;
  granularity?: unknown;
  timezone?: unknown;
  convert?: unknown;
  powerFactor?: unknown;
  groupByPhase?: unknown;
}

/** Everything of a query that does not need the device: checked before any request. */
export interface QuerySettings {
  kind: EnergyKind;
  query: QueryMode;
  /** Long energy only. */
  granularity?: Granularity;
  /** msg.timezone or the node's own; undefined = the device's, then the config node's. */
  timezone?: string;
  options: EnergyOptions;
  fromInput: { value: TimeInput; source: string };
  toInput: { value: TimeInput; source: string };
}

export const DEFAULT_FROM = '-1h';
export const DEFAULT_TO = 'now';
export const DEFAULT_CATCH_UP_HOURS = 6;

const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

function pick(msg: QueryMsg, def: EnergyQueryDef, name: keyof QueryMsg & keyof EnergyQueryDef): { value: unknown; source: string } {
  if (given(msg[name])) return { value: msg[name], source: `msg.${name}` };
  return { value: def[name], source: `the node's ${name}` };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, source: string): T {
  if (!given(value)) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw EnergyApiError.invalid(`${source} must be one of ${allowed.join(', ')}; got ${describeValue(value)}`);
}

function flag(value: unknown, source: string): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw EnergyApiError.invalid(`${source} must be true or false; got ${describeValue(value)}`);
}

function timeInput(value: unknown, fallback: string, source: string): { value: TimeInput; source: string } {
  if (!given(value)) return { value: fallback, source };
  if (typeof value === 'number' || typeof value === 'string' || value instanceof Date) return { value, source };
  throw EnergyApiError.invalid(`${source} must be unix seconds or ms, ISO text, a Date or relative text such as "-24h"; got ${describeValue(value)}`);
}

/** Reads and checks the node's properties and the msg overrides (spec 4.6 to 4.12 rules). */
export function readSettings(def: EnergyQueryDef, msg: QueryMsg): QuerySettings {
  const kindIn = pick(msg, def, 'kind');
  const kind = oneOf<EnergyKind>(kindIn.value, ['short', 'long'], 'short', kindIn.source);
  const queryIn = pick(msg, def, 'query');
  const query = oneOf<QueryMode>(queryIn.value, ['range', 'first', 'latest'], 'range', queryIn.source);

  let granularity: Granularity | undefined;
  if (kind === 'long' && query === 'range') {
    const g = pick(msg, def, 'granularity');
    granularity = oneOf<Granularity>(g.value, GRANULARITIES, '5m', g.source);
  }

  const tz = pick(msg, def, 'timezone');
  if (given(tz.value) && (typeof tz.value !== 'string' || !isValidTimezone(tz.value))) {
    throw EnergyApiError.invalid(`${tz.source} ${describeValue(tz.value)} is not a time zone name (use a TZ database name such as Europe/Berlin)`);
  }

  const conv = pick(msg, def, 'convert');
  const convert = given(conv.value) ? oneOf<EnergyConversion>(conv.value, ['kWh', 'kW'], 'kWh', conv.source) : undefined;
  const pf = pick(msg, def, 'powerFactor');
  const grp = pick(msg, def, 'groupByPhase');
  const powerFactor = flag(pf.value, pf.source);
  const groupByPhase = flag(grp.value, grp.source);
  if (powerFactor && groupByPhase) {
    throw EnergyApiError.invalid(`${pf.source} and ${grp.source} cannot both be true: power factor cannot be combined with grouping by phase (spec 4.12)`);
  }

  if (query !== 'range') {
    for (const name of ['fromTs', 'toTs'] as const) {
      if (given(msg[name])) throw EnergyApiError.invalid(`msg.${name} does not apply to a "${query}" query (it returns one entry, not a range)`);
    }
  }

  const from = pick(msg, def, 'fromTs');
  const to = pick(msg, def, 'toTs');
  return {
    kind,
    query,
    granularity,
    timezone: given(tz.value) ? String(tz.value) : undefined,
    options: { convert, powerFactor: powerFactor || undefined, groupByPhase: groupByPhase || undefined },
    fromInput: timeInput(from.value, DEFAULT_FROM, from.source),
    toInput: timeInput(to.value, DEFAULT_TO, to.source),
  };
}

/** Both ends of the range in unix seconds, read in `timezone` by the one time parser. */
export function resolveRange(settings: QuerySettings, timezone: string | undefined, nowMs: number): { fromTs: number; toTs: number } {
  const read = (input: { value: TimeInput; source: string }): number => {
    try {
      return parseTime(input.value, { timezone, nowMs });
    } catch (err) {
      throw EnergyApiError.invalid(`${input.source}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const fromTs = read(settings.fromInput);
  const toTs = read(settings.toInput);
  if (toTs <= fromTs) {
    throw EnergyApiError.invalid(`the range is empty: ${settings.toInput.source} (${toTs}) must be after ${settings.fromInput.source} (${fromTs})`);
  }
  return { fromTs, toTs };
}

export function catchUpSeconds(def: EnergyQueryDef): number {
  const hours = def.catchUp === undefined || def.catchUp === '' ? DEFAULT_CATCH_UP_HOURS : Number(def.catchUp);
  if (!Number.isFinite(hours) || hours < 0) {
    throw EnergyApiError.invalid(`the node's catchUp must be a number of hours (0 or more); got "${String(def.catchUp)}"`);
  }
  return Math.round(hours * 3600);
}
