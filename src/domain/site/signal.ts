import type { ShortEntry } from './types.js';

/** Entries whose measurement period ends inside the window `(nowS - windowS, nowS]`. */
export function inWindow<T extends ShortEntry>(entries: readonly T[], nowS: number, windowS: number): T[] {
  return entries.filter((e) => e.timestamp > nowS - windowS && e.timestamp <= nowS && (e.duration ?? 0) > 0);
}

function joules(entry: ShortEntry, channel: number): number | null {
  const values = entry.eReal;
  if (!Array.isArray(values)) return null;
  const value = values[channel];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Power over the window (W): the sum of eReal over the entries and channels divided by the sum of
 * their durations, so a missing entry leaves a gap instead of a false zero, and one spike counts
 * only for its own share of the time. Null when no entry carries every channel.
 */
export function averagePower(entries: readonly ShortEntry[], channels: readonly number[]): number | null {
  let energy = 0;
  let seconds = 0;
  for (const entry of entries) {
    const values = channels.map((c) => joules(entry, c));
    if (values.some((v) => v === null)) continue;
    energy += (values as number[]).reduce((a, b) => a + b, 0);
    seconds += entry.duration ?? 0;
  }
  return seconds > 0 ? energy / seconds : null;
}

/** The load's power while it drew any (W): entries where a thermostat had cut it off do not count. */
export function runningPower(entries: readonly ShortEntry[], channel: number): number | null {
  const running = entries.filter((e) => (joules(e, channel) ?? 0) > 0);
  return running.length > 0 ? averagePower(running, [channel]) : null;
}

/** Newest entry end (unix s), or null. */
export function newestTimestamp(entries: readonly ShortEntry[]): number | null {
  let newest: number | null = null;
  for (const e of entries) if (newest === null || e.timestamp > newest) newest = e.timestamp;
  return newest;
}

/** The channel index (0-based) of `<device>_C<n>` or of a bare number n (1-based). */
export function channelIndex(deviceId: string, raw: string): number | null {
  const text = raw.trim();
  const match = /^(?:([A-Za-z0-9]{13})_C)?(\d+)$/.exec(text);
  if (!match) return null;
  if (match[1] !== undefined && match[1] !== deviceId) return null;
  const n = Number(match[2]);
  return Number.isInteger(n) && n >= 1 ? n - 1 : null;
}
