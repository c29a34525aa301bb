import { DateTime, IANAZone } from 'luxon';
import { EnergyApiError } from './errors.js';

/** What a user may give as a time: unix seconds or ms, ISO text, a Date, or relative text. */
export type TimeInput = number | string | Date;

export interface TimeContext {
  /** IANA zone for `today`, `yesterday` and ISO text without an offset. Default UTC. */
  timezone?: string;
  /** Current time in ms (default Date.now()). */
  nowMs?: number;
}

const UNIT_SECONDS: Record<string, number> = {
  s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86400, w: 604800,
};
const CALENDAR_UNITS: Record<string, 'months' | 'years'> = { mo: 'months', y: 'years' };
const RELATIVE = /^([+-])\s*(\d+)\s*(s|sec|m|min|h|d|w|mo|y)$/i;
/** Unix seconds below this are taken as seconds, above as milliseconds (year 5138 in seconds). */
const MS_THRESHOLD = 1e11;

/**
 * A TZ database name spelt exactly as the database does. The service compares names case-sensitively,
 * while luxon and Intl accept any case: a name that is a case variant of a canonical zone must equal
 * it, and a link (US/Eastern, Etc/UTC) must start each part with a capital as the database does.
 */
export function isValidTimezone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  // Every check builds Intl formatters (tenths of a ms each, several per msg): answers are kept per name.
  const known = zoneVerdicts.get(zone);
  if (known !== undefined) return known;
  if (zoneVerdicts.size >= MAX_ZONE_VERDICTS) zoneVerdicts.clear();
  const verdict = judgeTimezone(zone);
  zoneVerdicts.set(zone, verdict);
  return verdict;
}

/** Far more than the zones in use: names sent by msgs are unbounded, the memo is not. */
const MAX_ZONE_VERDICTS = 1000;
const zoneVerdicts = new Map<string, boolean>();

function judgeTimezone(zone: string): boolean {
  if (!IANAZone.isValidZone(zone)) return false;
  const canonical = canonicalZone(zone);
  if (canonical === undefined) return false;
  if (canonical === zone || canonicalZones().has(zone)) return true;
  if (canonical.toLowerCase() === zone.toLowerCase()) return false;
  const shouted = zone.includes('/') && zone === zone.toUpperCase();
  return !shouted && zone.split('/').every((part) => /^[A-Z]/.test(part));
}

let zoneSet: Set<string> | undefined;
function canonicalZones(): Set<string> {
  zoneSet ??= new Set(Intl.supportedValuesOf('timeZone'));
  return zoneSet;
}

function canonicalZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The one time parser: any user time to integer unix seconds. Throws INVALID_REQUEST with a readable reason. */
export function parseTime(input: TimeInput, ctx: TimeContext = {}): number {
  const zone = ctx.timezone && isValidTimezone(ctx.timezone) ? ctx.timezone : 'UTC';
  const nowMs = ctx.nowMs ?? Date.now();
  if (input instanceof Date) {
    if (Number.isNaN(input.getTime())) throw EnergyApiError.invalid('the Date given as a time is invalid');
    return Math.floor(input.getTime() / 1000);
  }
  if (typeof input === 'number') return fromNumber(input);
  if (typeof input !== 'string') throw EnergyApiError.invalid(`cannot read a time from ${typeof input}`);
  const text = input.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return fromNumber(Number(text));
  // Built only for calendar words and units: "now" and "-1h" need no zone (a zoned DateTime costs tenths of a ms,
  // and a node following hundreds of devices reads these for every msg).
  const now = (): DateTime => DateTime.fromMillis(nowMs, { zone });
  const lower = text.toLowerCase();
  if (lower === 'now') return Math.floor(nowMs / 1000);
  if (lower === 'today') return toSeconds(now().startOf('day'));
  if (lower === 'yesterday') return toSeconds(now().startOf('day').minus({ days: 1 }));
  if (lower === 'tomorrow') return toSeconds(now().startOf('day').plus({ days: 1 }));
  const relative = RELATIVE.exec(text);
  if (relative) {
    const sign = relative[1] === '-' ? -1 : 1;
    const amount = Number(relative[2]) * sign;
    const unit = relative[3].toLowerCase();
    const calendar = CALENDAR_UNITS[unit];
    if (calendar) return toSeconds(now().plus({ [calendar]: amount }));
    return Math.floor(nowMs / 1000) + amount * UNIT_SECONDS[unit];
  }
  const iso = DateTime.fromISO(text, { zone, setZone: true });
  if (iso.isValid) return toSeconds(iso);
  throw EnergyApiError.invalid(
    `cannot read "${text.slice(0, 40)}" as a time: use unix seconds or ms, ISO 8601 text, a Date, "now", "today", "yesterday", or relative text such as "-24h", "-7d", "-1mo"`,
  );
}

function fromNumber(value: number): number {
  if (!Number.isFinite(value) || value < 0) throw EnergyApiError.invalid(`${value} is not a valid time`);
  if (value >= MS_THRESHOLD) return Math.floor(value / 1000);
  if (!Number.isInteger(value)) throw EnergyApiError.invalid(`${value} is not a whole number of unix seconds (the API takes integer seconds)`);
  return value;
}

function toSeconds(dt: DateTime): number {
  return Math.floor(dt.toMillis() / 1000);
}

/** ISO text of unix seconds in a zone (for messages and chart labels). */
export function formatTime(unixSeconds: number, timezone = 'UTC'): string {
  return DateTime.fromSeconds(unixSeconds, { zone: isValidTimezone(timezone) ? timezone : 'UTC' }).toISO({ suppressMilliseconds: true }) ?? String(unixSeconds);
}

/** Start of the calendar unit containing `unixSeconds`, in `timezone`. */
export function startOfUnit(unixSeconds: number, unit: 'hour' | 'day' | 'week' | 'month', timezone: string): number {
  return toSeconds(DateTime.fromSeconds(unixSeconds, { zone: timezone }).startOf(unit));
}

/** Adds calendar units in `timezone` (DST-correct). */
export function addUnits(unixSeconds: number, unit: 'hours' | 'days' | 'weeks' | 'months' | 'years', amount: number, timezone: string): number {
  return toSeconds(DateTime.fromSeconds(unixSeconds, { zone: timezone }).plus({ [unit]: amount }));
}
