import { EnergyApiError, type CallOptions, type Device, type EnergyApiClient } from '../../api/index.js';
import type { Now } from '../clock.js';

export interface PollResult {
  /** The device as last read. */
  device: Device;
  /** True when the condition held before the deadline. */
  done: boolean;
}

interface Waiter {
  isDone(device: Device): boolean;
  /** ms on the nodes' clock. */
  deadline: number;
  resolve(result: PollResult): void;
  reject(err: unknown): void;
}

/** Abortable sleep on the node's own timers (cleared on close). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * One polling loop per device for all of a node's waits on it (several switches of one device,
 * or several commands), so the device is never read more often than the client's 5 s spacing
 * even when waits overlap. Each wait ends at its own deadline, not earlier.
 */
export class DevicePoller {
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(
    private readonly client: () => EnergyApiClient,
    private readonly sleep: Sleep,
    private readonly call: CallOptions & { signal: AbortSignal },
    private readonly now: Now,
  ) {}

  /** True while some wait polls this device (its cached copy is then at most one poll old). */
  busy(deviceId: string): boolean {
    return this.waiters.has(deviceId);
  }

  wait(deviceId: string, isDone: (device: Device) => boolean, timeoutMs: number): Promise<PollResult> {
    return new Promise<PollResult>((resolve, reject) => {
      const waiter: Waiter = { isDone, deadline: this.now() + timeoutMs, resolve, reject };
      const existing = this.waiters.get(deviceId);
      if (existing) return void existing.add(waiter);
      const set = new Set([waiter]);
      this.waiters.set(deviceId, set);
      void this.loop(deviceId, set);
    });
  }

  private async loop(deviceId: string, set: Set<Waiter>): Promise<void> {
    try {
      while (set.size > 0) {
        if (this.call.signal.aborted) throw abortError();
        const earliest = Math.min(...[...set].map((w) => w.deadline));
        const outcome = await this.client().waitForDevice(deviceId, (d) => [...set].some((w) => w.isDone(d)), {
          timeoutMs: Math.max(0, earliest - this.now()),
          ...this.call,
        });
        const settled = settle(set, outcome.device, this.now());
        // The client stops early when its next poll would come after the deadline: wait out the rest.
        if (!settled && set.size > 0) await this.sleep(Math.max(0, earliest - this.now()), this.call.signal);
      }
    } catch (err) {
      for (const waiter of set) waiter.reject(err);
      set.clear();
    } finally {
      this.waiters.delete(deviceId);
    }
  }
}

function settle(set: Set<Waiter>, device: Device, now: number): boolean {
  let settled = false;
  for (const waiter of [...set]) {
    const done = waiter.isDone(device);
    if (!done && now < waiter.deadline) continue;
    set.delete(waiter);
    waiter.resolve({ device, done });
    settled = true;
  }
  return settled;
}

export function abortError(): EnergyApiError {
  return new EnergyApiError({ code: 'ABORTED', message: 'the node was closed', sent: false });
}

/** A Sleep built on a node's cleared-on-close timers. */
export function timerSleep(setTimer: (fn: () => void, ms: number) => NodeJS.Timeout, clearTimer: (t: NodeJS.Timeout) => void): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(abortError());
      const onAbort = (): void => {
        clearTimer(timer);
        reject(abortError());
      };
      const timer = setTimer(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
