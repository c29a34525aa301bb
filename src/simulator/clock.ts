/** The simulator's clock: real time shifted by an offset, or frozen at a given instant. */
import type { ClockSettings } from './types.js';

export class SimClock {
  private frozenAt: number | null;
  private offset = 0;

  constructor(private readonly startAt: number | undefined) {
    this.frozenAt = startAt ?? null;
  }

  /** Unix seconds (fractional when running). */
  now(): number {
    return this.frozenAt ?? Date.now() / 1000 + this.offset;
  }

  /** Whole unix seconds. */
  nowInt(): number {
    return Math.floor(this.now());
  }

  set(settings: ClockSettings): void {
    if (settings.now !== undefined) {
      this.frozenAt = settings.now;
    }
    if (settings.advance !== undefined) {
      if (this.frozenAt !== null) this.frozenAt += settings.advance;
      else this.offset += settings.advance;
    }
    if (settings.real === true) {
      const current = this.now();
      this.frozenAt = null;
      this.offset = current - Date.now() / 1000;
    }
  }

  reset(): void {
    this.frozenAt = this.startAt ?? null;
    this.offset = 0;
  }
}
