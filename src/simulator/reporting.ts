/**
 * When a device reports: every `interval` seconds of sim time (at multiples of the interval),
 * except while it is in an outage. Pending changes are applied at the first report at least
 * 1 s after the PATCH, one queued change per switch/channel/radio per report, in order.
 */
import type { SwitchState } from '../api/types.js';
import type { Queued, SimDevice, SimSwitch, WifiChange } from './types.js';

/** The device picked up a switch change at `at`: energy from then on follows it. */
export function applySwitch(dev: SimDevice, sw: SimSwitch, state: SwitchState, at: number): void {
  sw.state = state;
  let i = sw.history.length;
  while (i > 0 && sw.history[i - 1].at > at) i--;
  sw.history.splice(i, 0, { at, state });
  dev.switchChanges.push(at);
}

/** `from` of the outage the device is in at `now`, if any. */
export function activeOutageFrom(dev: SimDevice, now: number): number | undefined {
  const current = dev.outages.filter((o) => o.from <= now && now < o.to).map((o) => o.from);
  return current.length ? Math.min(...current) : undefined;
}

/** Sim time up to which the service holds the device's data (its last report). */
export function dataEnd(dev: SimDevice, now: number): number {
  const limit = Math.min(Math.floor(now), activeOutageFrom(dev, now) ?? Infinity);
  return Math.floor(limit / dev.interval) * dev.interval;
}

/** The first periodic report at or after t. */
export function nextReportAt(dev: SimDevice, t: number): number {
  let r = Math.ceil(t / dev.interval) * dev.interval;
  for (let moved = true; moved; ) {
    moved = false;
    for (const o of dev.outages) {
      if (o.from < r && r < o.to) {
        r = Math.ceil(o.to / dev.interval) * dev.interval;
        moved = true;
      }
    }
  }
  return r;
}

/** Float unix seconds of the last communication, or null if never heard. */
export function lastHeardAt(dev: SimDevice, now: number): number | null {
  if (dev.uninitialised) return null;
  const outageFrom = activeOutageFrom(dev, now);
  // A fixed fraction makes the periodic report time look like a real arrival time.
  const periodic = outageFrom ?? Math.floor(now / dev.interval) * dev.interval + 0.375;
  return dev.manualReportAt !== null && dev.manualReportAt <= now ? Math.max(periodic, dev.manualReportAt) : periodic;
}

function drain<T>(dev: SimDevice, queue: Queued<T>[], now: number, apply: (value: T, at: number) => void): void {
  let cursor = -Infinity;
  while (queue.length > 0) {
    const head = queue[0];
    const at = nextReportAt(dev, Math.max(head.requestedAt + 1, cursor + 1));
    if (at > now) return;
    queue.shift();
    apply(head.value, at);
    cursor = at;
  }
}

export function applyWifiChange(dev: SimDevice, change: WifiChange, at: number): void {
  const wifi = dev.wifi;
  if (!wifi) return;
  if (change.pskUpdatedAt !== undefined) wifi.pskUpdatedAt = change.pskUpdatedAt;
  if (change.ssid === undefined) return;
  wifi.ssid = change.ssid;
  const wasVia = dev.activeVia;
  dev.activeVia = change.ssid === '' ? 'cellular' : 'wifi';
  if (wasVia !== dev.activeVia) {
    // The transport left behind keeps the time it was last heard on.
    if (wasVia === 'wifi') wifi.lastHeardAt = at;
    else dev.cellular.lastHeardAt = at;
  }
}

/** Applies every pending change whose report time has come. */
export function settle(dev: SimDevice, now: number): void {
  if (dev.uninitialised) return;
  for (const sw of dev.switches) drain(dev, sw.stateQueue, now, (v, at) => applySwitch(dev, sw, v, at));
  for (const ch of dev.channels) drain(dev, ch.ctQueue, now, (v) => { ch.ctRating = v; });
  if (dev.wifi) drain(dev, dev.wifi.queue, now, (v, at) => applyWifiChange(dev, v, at));
}

/** The device reports right now: everything pending is applied. */
export function reportNow(dev: SimDevice, now: number): void {
  if (dev.uninitialised) return;
  settle(dev, now);
  for (const sw of dev.switches) {
    for (const q of sw.stateQueue.splice(0)) applySwitch(dev, sw, q.value, now);
  }
  for (const ch of dev.channels) {
    for (const q of ch.ctQueue.splice(0)) ch.ctRating = q.value;
  }
  if (dev.wifi) {
    for (const q of dev.wifi.queue.splice(0)) applyWifiChange(dev, q.value, now);
  }
  dev.manualReportAt = now;
}
