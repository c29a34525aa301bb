import { deviceFacts, type Device, type Switch } from '../../api/index.js';
import type { ShortEntry } from '../../domain/site/types.js';
import { OFF, ON } from './discovery.js';
import type { EnergyLayout } from './totals.js';

/** A device heard from (status or short energy) within this long is `online` (as energy-device-status's default). */
export const OFFLINE_AFTER_S = 900;

/** Power per channel number (W, whole watts) from the newest short-energy entry, or nothing without one. */
export function powerReadings(entries: readonly ShortEntry[], layout: EnergyLayout): { at: number; watts: Map<number, string> } | undefined {
  let newest: ShortEntry | undefined;
  for (const e of entries) {
    if (typeof e.duration === 'number' && e.duration > 0 && Array.isArray(e.eReal) && (!newest || e.timestamp > newest.timestamp)) newest = e;
  }
  if (!newest) return undefined;
  const values = newest.eReal as Array<number | null>;
  const watts = new Map<number, string>();
  for (const { index, number } of layout.channels) {
    const j = values[index];
    if (typeof j === 'number' && Number.isFinite(j)) watts.set(number, String(Math.round(j / (newest.duration as number))));
  }
  return { at: newest.timestamp, watts };
}

/** online/offline: heard from (its last report, or its newest short-energy entry) within OFFLINE_AFTER_S. */
export function availability(device: Device, newestShortS: number | undefined, nowMs: number): 'online' | 'offline' {
  if (device.uninitialised === true) return 'offline';
  const heard = Math.max(deviceFacts(device, OFFLINE_AFTER_S, nowMs).lastHeardAt ?? -Infinity, newestShortS ?? -Infinity);
  return nowMs / 1000 - heard <= OFFLINE_AFTER_S ? 'online' : 'offline';
}

export function switchState(sw: Switch): string {
  return sw.state === 'closed' ? ON : OFF;
}

/** What the switch's attributes show: its labels, a change still pending on the device, and the last command's error. */
export function switchAttributes(sw: Switch, error: string | null = null, requested: string | null = null): string {
  return JSON.stringify({
    state_label: sw.state === 'closed' ? sw.closedStateLabel : sw.openStateLabel,
    closed_label: sw.closedStateLabel,
    open_label: sw.openStateLabel,
    contactor_type: sw.contactorType,
    pending: sw.pending?.state ?? null,
    requested,
    error,
  });
}
