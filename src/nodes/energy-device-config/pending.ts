import { deviceFacts, type Device, type DeviceUpdate, type PendingFact } from '../../api/index.js';

/** Pending facts depend neither on the offline threshold nor on the clock; any value will do. */
const ANY_THRESHOLD_S = 900;

export function pendingOf(device: Device): PendingFact[] {
  return deviceFacts(device, ANY_THRESHOLD_S).pending;
}

/** The pending paths (e.g. `channels.<id>.ctRating`) that this update caused, out of all the device's pending values. */
export function pendingCausedBy(update: DeviceUpdate, pending: PendingFact[]): string[] {
  const touched = new Set<string>();
  for (const [key, value] of Object.entries(update)) {
    if (value !== undefined && key !== 'channels' && key !== 'switches') touched.add(key);
  }
  for (const channel of update.channels ?? []) {
    for (const key of Object.keys(channel)) if (key !== 'id') touched.add(`channels.${channel.id}.${key}`);
  }
  for (const sw of update.switches ?? []) {
    for (const key of Object.keys(sw)) if (key !== 'id') touched.add(`switches.${sw.id}.${key}`);
  }
  return pending.map((p) => p.path).filter((path) => touched.has(path));
}

/** True once none of `paths` is pending on the device any more. */
export function confirmedOn(device: Device, paths: string[]): boolean {
  const still = new Set(pendingOf(device).map((p) => p.path));
  return paths.every((path) => !still.has(path));
}
