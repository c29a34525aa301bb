import type { Node } from 'node-red';
import { floorToBucket, type EnergyEntry, type EnergyKind, type Granularity } from '../../api/index.js';

/** What follow mode keeps between triggers (and restarts, in the node's context). */
export interface FollowState {
  /** Unix seconds the follow started from (the first trigger's fromTs). */
  startTs: number;
  /** Timestamp of the newest entry emitted so far. */
  cursor?: number;
  /** Timestamps emitted at or after `cursor - catchUp`, ascending. */
  emitted: number[];
}

export interface FollowWindow {
  /** Where this trigger starts reading (before flooring to a bucket boundary). */
  fromTs: number;
  /** Entries older than this are never emitted again (they are outside the catch-up window). */
  threshold: number;
}

/** Context key: changing the device, kind or granularity starts a fresh follow. */
export function followKey(deviceId: string, kind: EnergyKind, granularity: Granularity | undefined): string {
  return `follow:${deviceId}:${kind}${kind === 'long' ? `:${granularity ?? '5m'}` : ''}`;
}

/** The window a trigger re-reads: [max(cursor - catchUp, start), to). */
export function followWindow(state: FollowState, catchUpS: number): FollowWindow {
  if (state.cursor === undefined) return { fromTs: state.startTs, threshold: state.startTs };
  const threshold = Math.max(state.cursor - catchUpS, state.startTs);
  return { fromTs: threshold, threshold };
}

/**
 * Long energy: only whole buckets (the still-growing current bucket and partial edges are not emitted).
 * `shiftS` is -300 when the service's buckets cover their clock periods 5 minutes early (its live
 * reading): an entry then is whole when it covers [B - 300, next B - 300) for clock boundaries B.
 */
export function isCompleteBucket(entry: EnergyEntry, granularity: Granularity, timezone: string, shiftS = 0): boolean {
  if (typeof entry.duration !== 'number') return false;
  const end = entry.timestamp - shiftS;
  const start = end - entry.duration;
  return floorToBucket(end, granularity, timezone) === end && floorToBucket(end - 1, granularity, timezone) === start;
}

/** Entries not emitted yet, oldest first, and the state after emitting them. */
export function selectNew(entries: EnergyEntry[], state: FollowState, window: FollowWindow, catchUpS: number): { fresh: EnergyEntry[]; next: FollowState } {
  const seen = new Set(state.emitted);
  const fresh = entries.filter((e) => e.timestamp >= window.threshold && !seen.has(e.timestamp));
  if (fresh.length === 0) return { fresh, next: state };
  // A loop, not Math.max(...list): one read may bring more entries than a call takes arguments.
  let cursor = state.cursor ?? -Infinity;
  for (const e of fresh) if (e.timestamp > cursor) cursor = e.timestamp;
  const keepFrom = Math.max(cursor - catchUpS, state.startTs);
  const emitted = [...state.emitted, ...fresh.map((e) => e.timestamp)].filter((ts) => ts >= keepFrom).sort((a, b) => a - b);
  return { fresh, next: { startTs: state.startTs, cursor, emitted } };
}

/**
 * Runs follow triggers of one follow key one after another, so two overlapping triggers never emit the same
 * entry, while triggers of different keys (one node following many devices through msg.deviceId) run side by
 * side and share the key's rate. A key's chain is dropped once it is idle.
 */
export class FollowQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = run.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Keys with a trigger running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}

function isFollowState(value: unknown): value is FollowState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<FollowState>;
  return typeof v.startTs === 'number' && Array.isArray(v.emitted) && (v.cursor === undefined || typeof v.cursor === 'number');
}

/** Follow state in the node's context, default store: persistent when Node-RED has a persistent store configured. */
export class FollowStore {
  constructor(private readonly node: Node) {}

  load(key: string): Promise<FollowState | undefined> {
    return new Promise((resolve, reject) => {
      this.node.context().get(key, (err: Error | undefined, value: unknown) => {
        if (err) reject(err);
        else resolve(isFollowState(value) ? value : undefined);
      });
    });
  }

  save(key: string, state: FollowState): Promise<void> {
    return new Promise((resolve, reject) => {
      this.node.context().set(key, state, (err?: Error) => (err ? reject(err) : resolve()));
    });
  }
}
