import type { NodeStatus } from 'node-red';
import type { DeviceFacts } from '../../api/index.js';
import type { StatusReading } from './read-status.js';

export type Translate = (key: string, params?: Record<string, string | number>) => string;

const PREFIX = 'energy-device-status.status.';

/** The node's status at a glance: online, transport and signal; how long offline; or counts. */
export function statusFor(reading: StatusReading, t: Translate): NodeStatus {
  switch (reading.mode) {
    case 'device':
      return deviceStatus(reading.facts, t);
    case 'devices': {
      const count = reading.devices.length;
      const online = reading.devices.filter((d) => d.facts.online === true).length;
      const expected = reading.devices.filter((d) => d.facts.online !== null).length;
      return { fill: online === expected ? 'green' : 'yellow', shape: 'dot', text: t(`${PREFIX}devices`, { count, online }) };
    }
    case 'models':
      return { fill: 'green', shape: 'dot', text: t(`${PREFIX}models`, { count: reading.payload.length }) };
    case 'categories':
      return { fill: 'green', shape: 'dot', text: t(`${PREFIX}categories`, { count: reading.payload.length }) };
  }
}

function deviceStatus(facts: DeviceFacts, t: Translate): NodeStatus {
  if (facts.online === null) return { fill: 'grey', shape: 'ring', text: t(`${PREFIX}neverConnected`) };
  if (!facts.online) {
    if (facts.secondsSinceHeard === null) return { fill: 'red', shape: 'ring', text: t(`${PREFIX}offlineNeverHeard`) };
    return { fill: 'red', shape: 'ring', text: t(`${PREFIX}offline`, { since: formatAge(facts.secondsSinceHeard) }) };
  }
  const active = facts.signal.find((s) => s.active);
  const signal = !active || active.label === 'Invalid or Unknown' ? t(`${PREFIX}signalUnknown`) : active.label;
  return { fill: 'green', shape: 'dot', text: t(`${PREFIX}online`, { transport: transportLabel(facts), signal }) };
}

/** `WiFi`, or the cellular mode (`4G`, `3G`) when the device reports one. */
export function transportLabel(facts: DeviceFacts): string {
  if (facts.transport === 'wifi') return 'WiFi';
  return facts.mode && facts.mode !== 'wifi' ? facts.mode : 'cellular';
}

/** A short age: 45s, 12 min, 2h, 3d. */
export function formatAge(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}
