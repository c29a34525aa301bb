// The tariff as data, with no Node-RED imports: rows as the editor saves them, checked and turned
// into price schedules that answer "what does a kWh cost at this instant" in a time zone.
import { ConfigError } from '../../api/index.js';
import { DateTime } from 'luxon';
import { parseMicros } from './money.js';

/** One row as the editor saves it. `since` '' = from the beginning; `days` e.g. "all", "mon-fri", "sat,sun". */
export interface RateRow {
  since?: string;
  days?: string;
  from?: string;
  to?: string;
  price?: string | number;
}

/** A daily charge row: `price` per day from `since`. */
export interface DailyRow {
  since?: string;
  price?: string | number;
}

export interface TariffDef {
  currency?: string;
  timezone?: string;
  importRates?: RateRow[];
  exportRates?: RateRow[];
  supplyCharges?: DailyRow[];
}

interface Rate {
  /** Bit i set = weekday i (1 = Monday … 7 = Sunday, Luxon's numbering). */
  days: number;
  fromMin: number;
  toMin: number;
  micros: number;
  text: string;
}

interface Version<T> {
  /** ISO date 'YYYY-MM-DD', or '' for "from the beginning". */
  since: string;
  items: T[];
}

/** A price per kWh (or per day) that changes by date, weekday and time of day. */
export class Schedule {
  constructor(readonly name: string, private readonly versions: Array<Version<Rate>>) {}

  get empty(): boolean {
    return this.versions.length === 0;
  }

  /** Minutes of the day at which some row starts or ends (where the price may change). */
  changeMinutes(): number[] {
    const set = new Set<number>();
    for (const v of this.versions) for (const r of v.items) set.add(r.fromMin % 1440).add(r.toMin % 1440);
    return [...set].sort((a, b) => a - b);
  }

  /** Price in micro-units of the currency per kWh at a local wall time; throws when no row covers it. */
  microsAt(local: WallTime): number {
    const version = pickVersion(this.versions, local.date);
    const rate = version?.items.find((r) => coversDay(r, local.weekday) && inWindow(r, local.minute));
    if (!rate) {
      const when = describeWallTime(local);
      throw new ConfigError(version
        ? `no ${this.name} price for ${when}: the rows from ${version.since || 'the beginning'} do not cover that day and time`
        : `no ${this.name} price for ${when}: the first rows start on ${this.versions[0]?.since}`);
    }
    return rate.micros;
  }
}

/** A local wall time: date 'YYYY-MM-DD', weekday 1 (Monday) to 7, minute of the day, and its zone. */
export interface WallTime {
  date: string;
  weekday: number;
  minute: number;
  zone: string;
}

export function describeWallTime(w: WallTime): string {
  const hhmm = `${String(Math.floor(w.minute / 60)).padStart(2, '0')}:${String(w.minute % 60).padStart(2, '0')}`;
  return `${WEEKDAY_NAMES[w.weekday - 1]} ${w.date} ${hhmm} (${w.zone})`;
}

/** A charge per day that changes by date. */
export class DailyCharge {
  constructor(private readonly versions: Array<Version<number>>) {}

  microsOn(isoDate: string): number {
    return pickVersion(this.versions, isoDate)?.items[0] ?? 0;
  }
}

export interface Tariff {
  currency: string;
  /** '' = the device's own zone. */
  timezone: string;
  importPrice: Schedule;
  exportPrice: Schedule;
  supplyCharge: DailyCharge;
}

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const ALL_DAYS = 0b11111110;

/** Checks the editor's rows; every problem is named with its row so the user can fix it. */
export function buildTariff(def: TariffDef): Tariff {
  const currency = String(def.currency ?? '').trim();
  if (!/^[A-Za-z$€£¥¢ ]{1,8}$/.test(currency)) throw new ConfigError(`the currency "${currency.slice(0, 20)}" should be a short code such as AUD, EUR or USD`);
  const timezone = String(def.timezone ?? '').trim();
  if (timezone && !DateTime.now().setZone(timezone).isValid) throw new ConfigError(`"${timezone.slice(0, 64)}" is not a time zone name (use e.g. Australia/Sydney, or leave empty for the device's own)`);
  return {
    currency,
    timezone,
    importPrice: schedule('import', def.importRates ?? []),
    exportPrice: schedule('export', def.exportRates ?? []),
    supplyCharge: new DailyCharge(group((def.supplyCharges ?? []).map((row, i) => ({
      since: sinceOf(row.since, `supply charge row ${i + 1}`),
      item: micros(row.price, `supply charge row ${i + 1}`),
    })))),
  };
}

function schedule(name: string, rows: RateRow[]): Schedule {
  return new Schedule(name, group(rows.map((row, i) => {
    const where = `${name} price row ${i + 1}`;
    const fromMin = minuteOf(row.from ?? '00:00', where, false);
    const toMin = minuteOf(row.to ?? '24:00', where, true);
    if (fromMin === toMin) throw new ConfigError(`${where}: "from" and "to" are the same time, so the row covers nothing (use 00:00 to 24:00 for the whole day)`);
    return {
      since: sinceOf(row.since, where),
      item: { days: daysOf(row.days ?? 'all', where), fromMin, toMin, micros: micros(row.price, where), text: `${row.from}-${row.to}` },
    };
  })));
}

function group<T>(rows: Array<{ since: string; item: T }>): Array<Version<T>> {
  const bySince = new Map<string, T[]>();
  for (const { since, item } of rows) bySince.set(since, [...(bySince.get(since) ?? []), item]);
  return [...bySince.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([since, items]) => ({ since, items }));
}

/** The version in force on a local date: the latest whose `since` is not after it. */
function pickVersion<T>(versions: Array<Version<T>>, isoDate: string): Version<T> | undefined {
  let found: Version<T> | undefined;
  for (const v of versions) if (v.since <= isoDate) found = v;
  return found;
}

function coversDay(rate: Rate, weekday: number): boolean {
  return (rate.days & (1 << weekday)) !== 0;
}

/** [from, to) in minutes of the day; a window with to < from wraps past midnight (22:00 to 07:00). */
function inWindow(rate: Rate, minute: number): boolean {
  if (rate.fromMin < rate.toMin) return minute >= rate.fromMin && minute < rate.toMin;
  return minute >= rate.fromMin || minute < rate.toMin;
}

function sinceOf(value: unknown, where: string): string {
  const text = String(value ?? '').trim();
  if (text === '') return '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || !DateTime.fromISO(text).isValid) throw new ConfigError(`${where}: "since" must be a date like 2026-07-01, or empty for "always"; got "${text.slice(0, 20)}"`);
  return text;
}

function minuteOf(value: string, where: string, endOfDay: boolean): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(String(value).trim());
  const minute = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  if (!m || Number(m[2]) > 59 || minute > 1440 || (minute === 1440 && !endOfDay)) {
    throw new ConfigError(`${where}: "${String(value).slice(0, 10)}" is not a time of day like 07:00${endOfDay ? ' (24:00 = midnight at the end)' : ''}`);
  }
  return minute;
}

/** "all", "weekdays", "weekends", or a list like "mon-fri", "sat,sun", "mon,wed-fri". */
export function daysOf(text: string, where: string): number {
  const value = text.trim().toLowerCase();
  if (value === '' || value === 'all') return ALL_DAYS;
  if (value === 'weekdays') return daysOf('mon-fri', where);
  if (value === 'weekends') return daysOf('sat,sun', where);
  let bits = 0;
  for (const part of value.split(',').map((p) => p.trim())) {
    const [a, b = a] = part.split('-').map((p) => WEEKDAYS.indexOf(p.trim().slice(0, 3)) + 1);
    if (a < 1 || b < 1) throw new ConfigError(`${where}: days "${text.slice(0, 30)}" should be all, weekdays, weekends or a list such as mon-fri or sat,sun`);
    for (let d = a; ; d = (d % 7) + 1) {
      bits |= 1 << d;
      if (d === b) break;
    }
  }
  return bits;
}

function micros(value: unknown, where: string): number {
  try {
    return parseMicros(value);
  } catch (err) {
    throw new ConfigError(`${where}: ${(err as Error).message}`);
  }
}
