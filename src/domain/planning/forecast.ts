import { IANAZone } from 'luxon';

export const RECORD_S = 300;

/** A history entry's length (s) and its channels' energy (J; null where not a number), or undefined when unusable. */
export function readEntry(e: HistoryEntry): { duration: number; joules: (channel: number) => number | null } | undefined {
  const duration = e.duration ?? RECORD_S;
  if (!Array.isArray(e.eReal) || duration <= 0) return undefined;
  const values = e.eReal as unknown[];
  return {
    duration,
    joules: (c) => {
      const v = values[c];
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    },
  };
}
const DAY_S = 86400;

/** One 5-minute long-energy entry as the API gives it: Joules per channel, stamped at its end. */
export interface HistoryEntry {
  timestamp: number;
  duration?: number;
  eReal?: unknown;
}

/**
 * Surplus the loads could have used, by local time of day, from the device's own last day: a persistence
 * forecast ("tomorrow's sun at 11:00 is like today's at 11:00"), dependency-free and one request a day.
 */
export class SurplusForecast {
  /** W per local 5-minute slot of the day (0..287); missing slots are unknown. */
  private readonly bySlot = new Map<number, number>();
  private readonly zone: IANAZone;
  /** The zone's offset (minutes) per hour since 1970: offsets change only on the hour, and asking the zone is slow. */
  private readonly offsets = new Map<number, number>();

  constructor(entries: readonly HistoryEntry[], signalChannels: readonly number[], loadChannels: readonly number[], zone: string) {
    this.zone = IANAZone.create(zone);
    for (const e of entries) {
      const read = readEntry(e);
      if (!read) continue;
      const { duration, joules } = read;
      const signal = signalChannels.map(joules);
      if (signal.some((v) => v === null)) continue;
      // Export on the signal channels (import positive), plus what the controlled loads drew from it.
      const used = loadChannels.reduce((sum, c) => sum + (joules(c) ?? 0), 0);
      const watts = (-(signal as number[]).reduce((a, b) => a + b, 0) + used) / duration;
      this.bySlot.set(this.slotOf(e.timestamp - duration), Math.max(0, watts));
    }
  }

  get empty(): boolean {
    return this.bySlot.size === 0;
  }

  private slotOf(t: number): number {
    const hour = Math.floor(t / 3600);
    let offset = this.offsets.get(hour);
    if (offset === undefined) {
      offset = this.zone.offset(hour * 3600 * 1000);
      this.offsets.set(hour, offset);
    }
    const local = t + offset * 60;
    return Math.floor((((local % DAY_S) + DAY_S) % DAY_S) / RECORD_S);
  }

  /** Expected surplus (W) averaged over [from, to); 0 where the last day says nothing. */
  average(from: number, to: number): number {
    if (to <= from) return 0;
    let weighted = 0;
    for (let t = from; t < to;) {
      const next = Math.min(to, (Math.floor(t / RECORD_S) + 1) * RECORD_S);
      weighted += (this.bySlot.get(this.slotOf(t)) ?? 0) * (next - t);
      t = next;
    }
    return weighted / (to - from);
  }
}
