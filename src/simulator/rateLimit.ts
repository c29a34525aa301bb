/**
 * Per-key rate limits (spec 7.3, 8): TPS as a sliding 1 s window of real time,
 * TPD per UTC day of the sim clock. Refused requests consume no budget.
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

export class RateLimiter {
  private usage = new Map<string, KeyUsage>();

  constructor(public tps: number, public tpd: number, public headerStyle: HeaderStyle) {}

  clear(): void {
    this.usage.clear();
  }

  /** Counts the request when it is within both limits, and returns the headers to send. */
  take(key: string, realMs: number, simNow: number): LimitDecision {
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
    if (u.dayCount >= this.tpd) exceeded = 'TPD';
    else if (u.recent.length >= this.tps) exceeded = 'TPS';
    else {
      u.recent.push(realMs);
      u.dayCount += 1;
    }
    // The window frees a slot when its oldest request is 1 s old; with slots left, the count
    // next drops when the oldest request leaves the window.
    const full = u.recent.length >= this.tps;
    const tpsFreeAtMs = full ? u.recent[u.recent.length - this.tps] + 1000 : realMs;
    const countDropsAtMs = full ? tpsFreeAtMs : (u.recent.length > 0 ? u.recent[0] + 1000 : realMs);
    const tpsRemaining = Math.max(0, this.tps - u.recent.length);
    const tpdRemaining = Math.max(0, this.tpd - u.dayCount);
    const headers: Record<string, string> = {};
    if (this.headerStyle !== 'spec') {
      Object.assign(headers, {
        'X-RateLimit-TpsLimit': String(this.tps),
        'X-RateLimit-TpsRemaining': String(tpsRemaining),
        'X-RateLimit-TpsReset': seconds3(countDropsAtMs - realMs),
        'X-RateLimit-TpdLimit': String(this.tpd),
        'X-RateLimit-TpdRemaining': String(tpdRemaining),
        'X-RateLimit-TpdReset': String(Math.ceil(tpdResetUnix - simNow)),
      });
    }
    if (this.headerStyle !== 'live') {
      const tpsScope = exceeded === 'TPS';
      Object.assign(headers, {
        'X-RateLimit-Limit': String(tpsScope ? this.tps : this.tpd),
        'X-RateLimit-Remaining': String(tpsScope ? 0 : tpdRemaining),
        'X-RateLimit-Reset': String(tpsScope ? Math.ceil(tpsFreeAtMs / 1000) : tpdResetUnix),
      });
    }
    if (exceeded === 'TPS') headers['Retry-After'] = String(Math.max(1, Math.ceil((tpsFreeAtMs - realMs) / 1000)));
    if (exceeded === 'TPD') headers['Retry-After'] = String(Math.max(1, Math.ceil(tpdResetUnix - simNow)));
    const message = exceeded === 'TPS'
      ? `You have exceeded the request limit of ${this.tps} per 1 second for your API key`
      : exceeded === 'TPD' ? `You have exceeded the request limit of ${this.tpd} per 1 day for your API key` : undefined;
    return { exceeded, headers, message };
  }
}
