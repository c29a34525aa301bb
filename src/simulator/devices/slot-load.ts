/** A load a device double drives, stepped through sim time so that what it drew shows in the site's energy. */
import type { ExternalDraw } from '../types.js';

/** The load is stepped in ticks of this many seconds (device delays resolve to it). */
export const TICK_S = 5;
const SLOT_S = 30;
/** What was drawn is kept this long (short energy is read back a day at most by the nodes). */
const KEEP_S = 2 * 86400;

/**
 * Steps a load through sim time in TICK_S ticks, on demand (an energy read, a request to the double): each tick
 * applies the commands that have taken effect by then, asks the load's power and lets it take the energy. What it
 * drew per 30-second slot is kept for the site's energy. Deterministic: it depends on the commands and the clock only.
 */
export abstract class SlotLoad implements ExternalDraw {
  private drawn = new Map<number, number>();
  private t?: number;
  private queue: Array<{ at: number; apply: () => void }> = [];

  constructor(
    readonly deviceId: string,
    readonly channel: number,
    protected readonly now: () => number,
  ) {}

  /** Watts drawn from instant t (the commands in effect applied). */
  protected abstract powerAt(t: number): number;
  /** The load took `joules` over [t, t + TICK_S). */
  protected abstract took(joules: number, t: number): void;
  /** Back to the state it started in. */
  protected abstract restart(): void;

  /** A command that takes effect `delayS` after now (the device's own reaction time). */
  protected command(delayS: number, apply: () => void): void {
    this.advance();
    this.queue.push({ at: this.now() + delayS, apply });
  }

  /** Steps to the sim clock now. */
  advance(to = this.now()): void {
    let t: number = this.t ?? Math.floor(to / TICK_S) * TICK_S;
    this.t = t;
    for (; t + TICK_S <= to; t = this.t) {
      while (this.queue.length > 0 && this.queue[0].at <= t) (this.queue.shift() as { apply: () => void }).apply();
      const joules = this.powerAt(t) * TICK_S;
      const slot = Math.floor(t / SLOT_S) * SLOT_S;
      this.drawn.set(slot, (this.drawn.get(slot) ?? 0) + joules);
      this.took(joules, t);
      this.t = t + TICK_S;
      if (slot % 3600 === 0 && t === slot) for (const k of this.drawn.keys()) if (k < slot - KEEP_S) this.drawn.delete(k);
    }
  }

  slotJoules(slotStart: number): number {
    this.advance(Math.min(this.now(), slotStart + SLOT_S));
    return this.drawn.get(slotStart) ?? 0;
  }

  reset(): void {
    this.drawn.clear();
    this.queue = [];
    this.t = undefined;
    this.restart();
  }
}
