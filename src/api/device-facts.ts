import { isDualTransport } from './models.js';
import { dbmLabel, lteSignalQuality, signalQualityLabel, wifiSignalQuality, type SignalLabel } from './signal.js';
import type { Device } from './types.js';

export interface SignalFact {
  transport: 'cellular' | 'wifi';
  /** 0..9 (or -1 unknown) where the device reports it; undefined for models that only give dBm. */
  quality?: number;
  label: SignalLabel;
  dbm?: number;
  active: boolean;
}

export interface PendingFact {
  /** Where the pending value sits, e.g. `switches.D6M3SW0000002_S1.state`, `channels.X_C1.ctRating`, `comms.wifi.ssid`. */
  path: string;
  value: unknown;
}

export interface DeviceFacts {
  /** null for a device that never connected (it is not offline, spec 2.2). */
  online: boolean | null;
  lastHeardAt: number | null;
  secondsSinceHeard: number | null;
  /** The transport last heard from. */
  transport: 'cellular' | 'wifi' | null;
  mode: string | null;
  signal: SignalFact[];
  closedSwitches: string[];
  pending: PendingFact[];
  hasPending: boolean;
  uninitialised: boolean;
}

/** Facts a flow needs beside the raw device: online state against a threshold, signal, switches, pending values. */
export function deviceFacts(device: Device, offlineAfterSeconds: number, nowMs = Date.now()): DeviceFacts {
  const lastHeardAt = typeof device.comms?.lastHeardAt === 'number' ? device.comms.lastHeardAt : null;
  const uninitialised = device.uninitialised === true;
  const secondsSinceHeard = lastHeardAt === null ? null : Math.max(0, Math.round(nowMs / 1000 - lastHeardAt));
  const online = uninitialised ? null : secondsSinceHeard !== null && secondsSinceHeard <= offlineAfterSeconds;
  const pending = pendingValues(device);
  return {
    online,
    lastHeardAt,
    secondsSinceHeard,
    transport: activeTransport(device),
    mode: device.comms?.mode ?? null,
    signal: signalFacts(device),
    closedSwitches: (device.switches ?? []).filter((s) => s.state === 'closed').map((s) => s.id),
    pending,
    hasPending: pending.length > 0,
    uninitialised,
  };
}

function activeTransport(device: Device): 'cellular' | 'wifi' | null {
  const comms = device.comms;
  if (!comms || device.uninitialised) return null;
  if (comms.lastHeardVia) return comms.lastHeardVia;
  if (comms.mode === 'wifi' || comms.type === 'wifi') return 'wifi';
  return 'cellular';
}

function signalFacts(device: Device): SignalFact[] {
  const comms = device.comms;
  if (!comms) return [];
  const active = activeTransport(device);
  if (isDualTransport(device.model) || comms.cellular || comms.wifi) {
    const facts: SignalFact[] = [];
    if (comms.cellular) {
      const detail = comms.cellular.signalQualityDetail ?? {};
      const quality = comms.cellular.signalQuality ?? lteSignalQuality(detail.rsrq, detail.rsrp);
      facts.push({ transport: 'cellular', quality, label: signalQualityLabel(quality), dbm: detail.rsrp, active: active === 'cellular' });
    }
    if (comms.wifi) {
      const rssi = comms.wifi.signalQualityDetail?.rssi;
      const quality = comms.wifi.signalQuality ?? wifiSignalQuality(rssi);
      facts.push({ transport: 'wifi', quality, label: signalQualityLabel(quality), dbm: rssi, active: active === 'wifi' });
    }
    return facts;
  }
  const transport = comms.type === 'wifi' ? 'wifi' : 'cellular';
  const mode = transport === 'wifi' ? 'wifi' : comms.mode;
  return [{ transport, label: dbmLabel(comms.signalQualityDbm, mode), dbm: comms.signalQualityDbm, active: true }];
}

function pendingValues(device: Device): PendingFact[] {
  const facts: PendingFact[] = [];
  for (const [key, value] of Object.entries(device.pending ?? {})) facts.push({ path: key, value });
  for (const channel of device.channels ?? []) {
    for (const [key, value] of Object.entries(channel.pending ?? {})) facts.push({ path: `channels.${channel.id}.${key}`, value });
  }
  for (const sw of device.switches ?? []) {
    for (const [key, value] of Object.entries(sw.pending ?? {})) facts.push({ path: `switches.${sw.id}.${key}`, value });
  }
  for (const [key, value] of Object.entries(device.comms?.wifi?.pending ?? {})) facts.push({ path: `comms.wifi.${key}`, value });
  return facts;
}
