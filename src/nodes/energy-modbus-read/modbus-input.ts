import { EnergyApiError, formatTime, parseTime, type Edge, type RangeQuery, type TimeContext, type TimeInput } from '../../api/index.js';
import { describeValue } from '../shared/msg-guard.js';

export type ModbusQuery = 'range' | Edge;
export type ModbusScale = 'raw' | 'units';

/** The node's own properties that decide a read (all text, as the editor stores them). */
export interface ModbusReadSettings {
  query?: string;
  fromTs?: string;
  toTs?: string;
  scale?: string;
}

/** What a msg may override. */
export interface ModbusReadOverrides {
  query?: unknown;
  fromTs?: unknown;
  toTs?: unknown;
  scale?: unknown;
}

const QUERIES: readonly ModbusQuery[] = ['range', 'first', 'latest'];
const SCALES: readonly ModbusScale[] = ['raw', 'units'];
export const DEFAULT_FROM = '-24h';
export const DEFAULT_TO = 'now';
export const DEFAULT_SCALE: ModbusScale = 'units';

function pick(msgValue: unknown, nodeValue: string | undefined, fallback: string): unknown {
  if (msgValue !== undefined && msgValue !== null && msgValue !== '') return msgValue;
  return nodeValue === undefined || nodeValue === '' ? fallback : nodeValue;
}

export function readQuery(msg: ModbusReadOverrides, settings: ModbusReadSettings): ModbusQuery {
  const value = pick(msg.query, settings.query, 'range');
  if (typeof value === 'string' && (QUERIES as readonly string[]).includes(value)) return value as ModbusQuery;
  throw EnergyApiError.invalid(`query must be "range", "first" or "latest", not ${describeValue(value)}`);
}

export function readScale(msg: ModbusReadOverrides, settings: ModbusReadSettings): ModbusScale {
  const value = pick(msg.scale, settings.scale, DEFAULT_SCALE);
  if (typeof value === 'string' && (SCALES as readonly string[]).includes(value)) return value as ModbusScale;
  throw EnergyApiError.invalid(`scale must be "raw" (values as stored on the meter) or "units" (kWh and kvarh), not ${describeValue(value)}`);
}

function readTime(property: 'fromTs' | 'toTs', value: unknown, ctx: TimeContext): number {
  if (typeof value !== 'number' && typeof value !== 'string' && !(value instanceof Date)) {
    throw EnergyApiError.invalid(`${property} must be unix seconds or ms, ISO text, a Date or relative text such as "-24h", not ${describeValue(value)}`);
  }
  try {
    return parseTime(value as TimeInput, ctx);
  } catch (err) {
    throw EnergyApiError.invalid(`${property}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `[fromTs, toTs)` in unix seconds; relative and calendar text is read in `ctx.timezone`. */
export function readRange(msg: ModbusReadOverrides, settings: ModbusReadSettings, ctx: TimeContext): RangeQuery {
  const fromTs = readTime('fromTs', pick(msg.fromTs, settings.fromTs, DEFAULT_FROM), ctx);
  const toTs = readTime('toTs', pick(msg.toTs, settings.toTs, DEFAULT_TO), ctx);
  if (fromTs >= toTs) {
    throw EnergyApiError.invalid(
      `fromTs (${formatTime(fromTs, ctx.timezone)}) must be before toTs (${formatTime(toTs, ctx.timezone)})`,
    );
  }
  return { fromTs, toTs };
}
