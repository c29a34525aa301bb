import { performance } from 'node:perf_hooks';

/** What the limiter asks its store for one start: the key's window and pace as it knows them now. */
export interface PaceRequest {
  /** Requests allowed in any window of `windowMs`. */
  tps: number;
  /** One second plus the learnt margin. */
  windowMs: number;
  /** Even spacing of starts: windowMs / tps. */
  spacingMs: number;
  /** Of a late start's delay, at most this much is made up by starting the next ones sooner. */
  catchUpMs: number;
  /** How long the request has been queued: it cannot have been due before. */
  waitedMs: number;
}

/** One granted start: the store counts it from when its request reached the wire. */
export interface PaceTicket {
  /** The request is written to its socket. */
  sent(): void;
  /** The request ended; one never sent counts from its grant. */
  settled(): void;
}

/** A start granted now, or the ms to wait before asking again (Infinity: until an unsent request is sent). */
export type PaceDecision = { ticket: PaceTicket } | { waitMs: number };

/**
 * Where a key's sliding window over the wire lives: in this process (LocalPaceStore), or in Redis for every process
 * of the key (SharedLimiter). The limiter's algorithm is the same over both: the store only decides and records starts.
 */
export interface PaceStore {
  /** Grants one start when the window, the spacing and the key's pause allow it now. */
  tryStart(request: PaceRequest): PaceDecision | Promise<PaceDecision>;
  /** Every start of the key waits `ms` from now (after a 429), in every process the store reaches. */
  pauseFor(ms: number): void;
  close(): Promise<void>;
}

interface Slot {
  reservedAt: number;
  /** When the request reached the socket; undefined while it may still be on its way. */
  sentAt?: number;
  /** Settled without being sent: it counts from its reservation. */
  settled: boolean;
}

/** The key's window in this process, on a monotonic clock. */
export class LocalPaceStore implements PaceStore {
  private slots: Slot[] = [];
  /** When the last start was due by the limits (not when a late timer ran it): the spacing counts from here. */
  private lastStartAt = -Infinity;
  private pausedUntil = 0;

  constructor(private readonly monotonic: () => number = () => performance.now()) {}

  tryStart(request: PaceRequest): PaceDecision {
    const t = this.monotonic();
    const dueAt = this.startDueAt(t, request);
    if (dueAt > t) return { waitMs: dueAt === Infinity ? Infinity : dueAt - t };
    // A timer that ran late (a busy event loop) does not push every later start back: the spacing counts from
    // when this start was due, catching up by at most a quarter of a spacing or catchUpMs, whichever is more.
    const onTime = Math.max(dueAt, t - request.waitedMs);
    this.lastStartAt = Math.min(t, Math.max(onTime, t - Math.max(request.spacingMs / 4, request.catchUpMs)));
    const slot: Slot = { reservedAt: t, settled: false };
    this.slots.push(slot);
    return {
      ticket: {
        sent: () => {
          if (slot.sentAt === undefined) slot.sentAt = this.monotonic();
        },
        settled: () => {
          slot.settled = true;
        },
      },
    };
  }

  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.monotonic() + Math.max(0, ms));
  }

  /** Forgets every start (a store taking over after another, which held the key meanwhile). */
  reset(holdMs: number): void {
    this.slots = [];
    this.lastStartAt = -Infinity;
    this.pausedUntil = this.monotonic() + holdMs;
  }

  async close(): Promise<void> {
    this.slots = [];
  }

  /**
   * Monotonic ms from which the next start is allowed (Infinity: once an unsent request reaches the wire):
   * the pause after a 429, the sliding window, the spacing.
   */
  private startDueAt(t: number, { tps, windowMs, spacingMs }: PaceRequest): number {
    // Unsent requests count as arriving now; settled unsent ones from their reservation.
    const times = this.slots.map((s) => s.sentAt ?? (s.settled ? s.reservedAt : Infinity));
    this.slots = this.slots.filter((_, i) => times[i] > t - windowMs);
    const live = times.filter((at) => at > t - windowMs).sort((a, b) => a - b);
    const windowFreeAt = live.length >= tps ? live[live.length - tps] + windowMs : -Infinity;
    return Math.max(this.pausedUntil, windowFreeAt, this.lastStartAt + spacingMs);
  }
}
