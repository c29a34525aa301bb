/**
 * Per-key rate limits (spec 7.3, 8): TPS as a sliding 1 s window of real time,
 * TPD per UTC day of the sim clock. Refused requests consume no budget.
 *
 * Each key's limits scale with the devices it may use, as the live service's do (real-service.md): a key of
 * the fixed fleet's size gets the service's example figures, 5/s and 10000/day; a bigger fleet about one
 * request per second per three devices (at least 5), and a day's budget for reading every device's short
 * energy every 30 s and its long energy and status every 5 minutes, plus a quarter. Limits set explicitly
 * (options, `/__sim/limits`) apply to every key instead.
 *
 * Header forms: 'live' (the service's X-RateLimit-Tps… and Tpd… headers, resets as SECONDS REMAINING:
 * TpsReset a float, TpdReset an integer), 'spec' (X-RateLimit-Limit/Remaining/Reset, reset as
 * unix seconds) or 'both'.
 */
import type { HeaderStyle } from './types.js';

const DAY = 86400;

interface KeyUsage {
  /** Date.now() ms of accepted requests in the last second. */
  recent: number[];
  day: number;
  dayCount: number;
}

export interface LimitDecision {
  /** Undefined when accepted. */
  exceeded?: 'TPS' | 'TPD';
  headers: Record<string, string>;
  /** The live service's wording of the refusal. */
  message?: string;
}

const seconds3 = (ms: number): string => String(Math.round(Math.max(0, ms)) / 1000);

export interface KeyLimits {
  tps: number;
  tpd: number;
}

/** Keys with at most this many devices (the fixed fleet's 8) get the example limits. */
const SMALL_KEY_DEVICES = 8;
const SMALL_KEY_LIMITS: KeyLimits = { tps: 5, tpd: 10000 };
/** Reads per device and day the daily limit is sized for: short energy every 30 s, long energy and status every 5 min. */
const READS_PER_DEVICE_DAY = DAY / 30 + 2 * (DAY / 300);

/** The limits the service gives a key that may use `devices` devices. */
export function fleetLimits(devices: number): KeyLimits {
  if (devices <= SMALL_KEY_DEVICES) return { ...SMALL_KEY_LIMITS };
  return { tps: Math.max(5, Math.round(devices / 3)), tpd: Math.ceil(1.25 * READS_PER_DEVICE_DAY * devices) };
}

export class RateLimiter {
  private usage = new Map<string, KeyUsage>();
  /** Limits set explicitly: they apply to every key. */
  private override: Partial<KeyLimits>;

  /** `devicesOf(key)`: how many devices the key may use, which sizes its limits. */
  constructor(override: Partial<KeyLimits>, public headerStyle: HeaderStyle, private readonly devicesOf: (key: string) => number) {
    this.override = { ...override };
  }

  /** Explicit limits for every key; an undefined field leaves that limit as it was. */
  setOverride(limits: Partial<KeyLimits>): void {
    if (limits.tps !== undefined) this.override.tps = limits.tps;
    if (limits.tpd !== undefined) this.override.tpd = limits.tpd;
  }

  /** Back to the start options' limits (undefined fields: sized by the key's fleet). */
  resetOverride(limits: Partial<KeyLimits>): void {
    this.override = { ...limits };
  }

  limitsFor(key: string): KeyLimits {
    const sized = fleetLimits(this.devicesOf(key));
    return { tps: this.override.tps ?? sized.tps, tpd: this.override.tpd ?? sized.tpd };
  }

  clear(): void {
    this.usage.clear();
  }

  /** Counts the request when it is within both limits, and returns the headers to send. */
  take(key: string, realMs: number, simNow: number): LimitDecision {
    const { tps, tpd } = this.limitsFor(key);
    const day = Math.floor(simNow / DAY);
    const u = this.usage.get(key) ?? { recent: [], day, dayCount: 0 };
    this.usage.set(key, u);
    if (u.day !== day) {
      u.day = day;
      u.dayCount = 0;
    }
    u.recent = u.recent.filter((t) => t > realMs - 1000);
    const tpdResetUnix = (day + 1) * DAY;
    let exceeded: 'TPS' | 'TPD' | undefined;
    if (u.dayCount >= tpd) exceeded = 'TPD';
    else if (u.recent.length >= tps) exceeded = 'TPS';
    else {
      u.recent.push(realMs);
      u.dayCount += 1;
    }
    // The window frees a slot when its oldest request is 1 s old; with slots left, the count
    // next drops when the oldest request leaves the window.
    const full = u.recent.length >= tps;
    const tpsFreeAtMs = full ? u.recent[u.recent.length - tps] + 1000 : realMs;
    const countDropsAtMs = full ? tpsFreeAtMs : (u.recent.length > 0 ? u.recent[0] + 1000 : realMs);
    const tpsRemaining = Math.max(0, tps - u.recent.length);
    const tpdRemaining = Math.max(0, tpd - u.dayCount);
    const headers: Record<string, string> = {};
    if (this.headerStyle !== 'spec') {
      Object.assign(headers, {
        'X-RateLimit-TpsLimit': String(tps),
        'X-RateLimit-TpsRemaining': String(tpsRemaining),
        'X-RateLimit-TpsReset': seconds3(countDropsAtMs - realMs),
        'X-RateLimit-TpdLimit': String(tpd),
        'X-RateLimit-TpdRemaining': String(tpdRemaining),
        'X-RateLimit-TpdReset': String(Math.ceil(tpdResetUnix - simNow)),
      });
    }
    if (this.headerStyle !== 'live') {
      const tpsScope = exceeded === 'TPS';
      Object.assign(headers, {
        'X-RateLimit-Limit': String(tpsScope ? tps : tpd),
        'X-RateLimit-Remaining': String(tpsScope ? 0 : tpdRemaining),
        'X-RateLimit-Reset': String(tpsScope ? Math.ceil(tpsFreeAtMs / 1000) : tpdResetUnix),
      });
    }
    if (exceeded === 'TPS') headers['Retry-After'] = String(Math.max(1, Math.ceil((tpsFreeAtMs - realMs) / 1000)));
    if (exceeded === 'TPD') headers['Retry-After'] = String(Math.max(1, Math.ceil(tpdResetUnix - simNow)));
    const message = exceeded === 'TPS'
      ? `You have exceeded the request limit of ${tps} per 1 second for your API key`
      : exceeded === 'TPD' ? `You have exceeded the request limit of ${tpd} per 1 day for your API key` : undefined;
    return { exceeded, headers, message };
  }
}
