// The price shapes other sources and Node-RED price nodes emit, each read into raw slots in micro-units
// per kWh. Which shape a value is, is told by the fields of its items; nothing is guessed from values.
import { PriceError } from '../../api/index.js';
import { parseTime, type TimeInput } from '../../api/time.js';
import { parseMicros } from './money.js';
import { amberSlots, isAmberInterval } from './amber.js';
import type { PriceShape, RawSlot } from './types.js';

export interface ReadContext {
  /** Names the value in errors: `msg.prices`. */
  source: string;
  /** Zone for times written without an offset (Nord Pool's first node writes local "2026-07-15 13:00"). */
  timezone?: string;
}

type Item = Record<string, unknown>;

const isObject = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (item: unknown, ...names: string[]): boolean => isObject(item) && names.every((n) => item[n] !== undefined);

/** The shape of a value and its raw slots; undefined when no shape fits. */
export function readShape(value: unknown, ctx: ReadContext): { shape: PriceShape; items: RawSlot[] } | undefined {
  if (Array.isArray(value)) return readList(value, ctx.source, ctx);
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.priceData)) return readList(value.priceData, `${ctx.source}.priceData`, ctx, 'power-saver');
  const tibber = tibberLists(value, ctx.source);
  if (tibber) return { shape: 'tibber', items: tibber.flatMap(([list, where]) => list.map((item, i) => tibberItem(item, `${where}[${i}]`, ctx))) };
  const attributes = isObject(value.attributes) ? value.attributes : undefined;
  if (attributes && Array.isArray(attributes.raw_today)) {
    const lists: Array<[unknown[], string]> = [[attributes.raw_today, `${ctx.source}.attributes.raw_today`]];
    if (Array.isArray(attributes.raw_tomorrow)) lists.push([attributes.raw_tomorrow, `${ctx.source}.attributes.raw_tomorrow`]);
    return { shape: 'home-assistant', items: lists.flatMap(([list, where]) => list.map((item, i) => valueItem(item, `${where}[${i}]`, ctx))) };
  }
  return undefined;
}

function readList(list: unknown[], source: string, ctx: ReadContext, named?: PriceShape): { shape: PriceShape; items: RawSlot[] } | undefined {
  const first = list.find((item) => item !== null && item !== undefined);
  if (first === undefined) return { shape: named ?? 'slots', items: [] };
  const at = (i: number): string => `${source}[${i}]`;
  if (isAmberInterval(first)) return { shape: 'amber', items: amberSlots(list, source) };
  if (has(first, 'start', 'price')) return { shape: named ?? 'slots', items: list.map((item, i) => slotItem(item, at(i), ctx)) };
  if (has(first, 'start', 'value')) return { shape: named ?? 'power-saver', items: list.map((item, i) => valueItem(item, at(i), ctx)) };
  if (has(first, 'startsAt', 'total')) return { shape: 'tibber', items: list.map((item, i) => tibberItem(item, at(i), ctx)) };
  if (has(first, 'timestamp', 'price') || has(first, 'Price') ) return { shape: 'nordpool', items: list.map((item, i) => nordPoolItem(item, at(i), ctx)) };
  return undefined;
}

/** This package's own shape (and energy-cost's `[{start, price}]`). */
function slotItem(item: unknown, where: string, ctx: ReadContext): RawSlot {
  const o = objectAt(item, where, '{start, price}');
  return {
    where,
    start: time(o.start, `${where}.start`, ctx),
    end: o.end === undefined ? undefined : time(o.end, `${where}.end`, ctx),
    micros: money(o.price, `${where}.price`),
    exportMicros: o.exportPrice === undefined || o.exportPrice === null ? undefined : money(o.exportPrice, `${where}.exportPrice`),
    estimate: flag(o.estimate, `${where}.estimate`),
    spike: flag(o.spike, `${where}.spike`),
  };
}

/** power-saver's priceData and Home Assistant's Nord Pool raw_today: `{start, end?, value}`. */
function valueItem(item: unknown, where: string, ctx: ReadContext): RawSlot {
  const o = objectAt(item, where, '{start, value}');
  return {
    where,
    start: time(o.start, `${where}.start`, ctx),
    end: o.end === undefined || o.end === null ? undefined : time(o.end, `${where}.end`, ctx),
    micros: money(o.value, `${where}.value`),
  };
}

/** Tibber's priceInfo entries: `{total, startsAt}` (total: the price per kWh with taxes). */
function tibberItem(item: unknown, where: string, ctx: ReadContext): RawSlot {
  const o = objectAt(item, where, '{startsAt, total}');
  return { where, start: time(o.startsAt, `${where}.startsAt`, ctx), micros: money(o.total, `${where}.total`) };
}

/** The priceInfo lists of the first Tibber home that has any (tibber-query's answer, or its `viewer`). */
function tibberLists(value: Item, source: string): Array<[unknown[], string]> | undefined {
  const viewer = isObject(value.viewer) ? value.viewer : isObject(value.data) && isObject(value.data.viewer) ? value.data.viewer : undefined;
  if (!viewer || !Array.isArray(viewer.homes)) return undefined;
  const base = value.viewer ? `${source}.viewer` : `${source}.data.viewer`;
  for (const [h, home] of viewer.homes.entries()) {
    const info = isObject(home) && isObject(home.currentSubscription) && isObject(home.currentSubscription.priceInfo) ? home.currentSubscription.priceInfo : undefined;
    if (!info) continue;
    const where = `${base}.homes[${h}].currentSubscription.priceInfo`;
    const lists: Array<[unknown[], string]> = [];
    for (const day of ['yesterday', 'today', 'tomorrow']) if (Array.isArray(info[day])) lists.push([info[day] as unknown[], `${where}.${day}`]);
    if (lists.length > 0) return lists;
  }
  return undefined;
}

/**
 * Nord Pool nodes: `{timestamp, price, currency, area}` (node-red-contrib-nordpool-api-plus) or
 * `{Timestamp, StartTime, EndTime, Price, Valuta, Area}` (node-red-contrib-nordpool-api). Nord Pool quotes
 * day-ahead prices per MWh: divided by 1000, unless the unit says per kWh.
 */
function nordPoolItem(item: unknown, where: string, ctx: ReadContext): RawSlot {
  const o = objectAt(item, where, '{timestamp, price}');
  const startField = o.timestamp !== undefined ? 'timestamp' : o.StartTime !== undefined ? 'StartTime' : 'Timestamp';
  const priceField = o.price !== undefined ? 'price' : 'Price';
  const unit = String(o.Valuta ?? o.currency ?? '');
  const perKwh = /\/\s*kwh/i.test(unit);
  const raw = o[priceField];
  const value = typeof raw === 'string' ? Number(raw.replace(/\s/g, '').replace(',', '.')) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new PriceError(`${where}.${priceField}: ${describe(raw)} is not a price`);
  return {
    where,
    start: time(localText(o[startField]), `${where}.${startField}`, ctx),
    end: o.EndTime === undefined ? undefined : time(localText(o.EndTime), `${where}.EndTime`, ctx),
    micros: Math.round(perKwh ? value * 1e6 : value * 1e3),
  };
}

/** "2026-07-15 13:00" (a local time, as the first Nord Pool node writes it) as ISO text. */
const localText = (value: unknown): unknown => (typeof value === 'string' ? value.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})/, '$1T$2') : value);

function objectAt(item: unknown, where: string, expected: string): Item {
  if (!isObject(item)) throw new PriceError(`${where} must be an object ${expected}, not ${describe(item)}`);
  return item;
}

/** Unix seconds from any time a user may give (unix s or ms, ISO text, a Date). */
export function time(value: unknown, where: string, ctx: { timezone?: string } = {}): number {
  if (typeof value !== 'number' && typeof value !== 'string' && !(value instanceof Date)) throw new PriceError(`${where} must be a time (unix s or ms, ISO text or a Date), not ${describe(value)}`);
  try {
    return parseTime(value as TimeInput, { timezone: ctx.timezone });
  } catch (err) {
    throw new PriceError(`${where}: ${(err as Error).message}`);
  }
}

/** A decimal price per kWh to micro-units (at most 6 decimals). */
export function money(value: unknown, where: string): number {
  if (typeof value !== 'number' && typeof value !== 'string') throw new PriceError(`${where}: ${describe(value)} is not a price (use a number such as 0.2875)`);
  try {
    return parseMicros(value);
  } catch (err) {
    throw new PriceError(`${where}: ${(err as Error).message}`);
  }
}

function flag(value: unknown, where: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new PriceError(`${where} must be true or false, not ${describe(value)}`);
  return value;
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `"${value.slice(0, 30)}"`;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.slice(0, 40);
}
