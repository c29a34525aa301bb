import { checkDeviceId, ConfigError } from '../../api/index.js';
import type { FlowNodeDef } from '../shared/flow-node.js';
import { describeValue } from '../shared/msg-guard.js';

/** The node's properties as the editor saves them (public contract: these names). */
export interface EnergyMqttDef extends FlowNodeDef {
  broker?: string;
  /** Empty or "all": every device of the key; else device ids separated by commas or spaces. */
  devices?: string | string[];
  discovery?: boolean | string;
  discoveryPrefix?: string;
  baseTopic?: string;
  /** s between power readings (one shared short-energy read per device); 0 = only on a msg. */
  interval?: number | string;
  /** s between energy-total readings (long energy). */
  energyInterval?: number | string;
  /** Days of past energy to import into Home Assistant's long-term statistics (0 or empty: none). */
  history?: number | string;
  /** Home Assistant's address (http://host:8123) for the import; its access token is the credential `haToken`. */
  haUrl?: string;
}

export interface MqttSettings {
  devices: 'all' | string[];
  discovery: boolean;
  discoveryPrefix: string;
  baseTopic: string;
  intervalS: number;
  energyIntervalS: number;
  /** Days of history to import (0: none), and HA's address then. */
  historyDays: number;
  haUrl: string;
}

export const DEFAULTS = { discoveryPrefix: 'homeassistant', baseTopic: 'energy', interval: 60, energyInterval: 300 } as const;
/** Devices report short energy every 30 s by default: reading more often than this buys nothing. */
export const MIN_INTERVAL_S = 5;
/** Long energy grows by one 5-minute record at a time. */
export const MIN_ENERGY_INTERVAL_S = 60;
/** A year and a bit: the service keeps long energy for years, but each day costs a request per week of it. */
export const MAX_HISTORY_DAYS = 400;

/**
 * A topic prefix the node publishes under: no wildcards (`+`, `#`), no white space, no empty level
 * (`a//b`, a leading or trailing `/`), not a broker's `$` topic. Returned as given.
 */
export function checkTopicPrefix(name: string, raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw new ConfigError(`${name} must be a topic such as "energy", not ${describeValue(raw)}`);
  const shown = `"${raw.slice(0, 60)}"`;
  if (/[+#]/.test(raw)) throw new ConfigError(`${name} ${shown} contains an MQTT wildcard (+ or #): a topic to publish under cannot`);
  if (/\s/.test(raw)) throw new ConfigError(`${name} ${shown} contains white space: use letters, digits, - or _ between the slashes`);
  if (raw.split('/').some((level) => level === '')) throw new ConfigError(`${name} ${shown} has an empty level (a leading, trailing or double /)`);
  if (raw.startsWith('$')) throw new ConfigError(`${name} ${shown} starts with $: such topics belong to the broker`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.length > 200) throw new ConfigError(`${name} ${shown} has control characters or is longer than 200 characters`);
  return raw;
}

function seconds(raw: unknown, name: string, fallback: number, min: number, zeroAllowed: boolean): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = Number(raw);
  const ok = Number.isFinite(value) && (value >= min || (zeroAllowed && value === 0)) && value <= 86400;
  if (!ok) {
    const range = zeroAllowed ? `0 (only on a msg) or ${min} to 86400` : `${min} to 86400`;
    throw new ConfigError(`${name} must be a number of seconds, ${range}, not ${describeValue(raw)}`);
  }
  return value;
}

/** The devices property: "all" (or empty), or a list of device ids (checked, duplicates dropped). */
export function parseDevices(raw: unknown): 'all' | string[] {
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (text === undefined || text === null) return 'all';
  if (typeof text !== 'string') throw new ConfigError(`devices must be "all" or device ids separated by commas, not ${describeValue(raw)}`);
  const ids = text.split(/[\s,;]+/).filter((s) => s !== '');
  if (ids.length === 0 || (ids.length === 1 && ids[0].toLowerCase() === 'all')) return 'all';
  return [...new Set(ids.map((id) => checkDeviceId(id)))];
}

/** Everything fixed at deploy, checked before anything is read or published. */
export function parseSettings(def: EnergyMqttDef): MqttSettings {
  return {
    devices: parseDevices(def.devices),
    discovery: def.discovery !== false && def.discovery !== 'false',
    discoveryPrefix: checkTopicPrefix('the discovery prefix', def.discoveryPrefix ?? DEFAULTS.discoveryPrefix),
    baseTopic: checkTopicPrefix('the base topic', def.baseTopic ?? DEFAULTS.baseTopic),
    intervalS: seconds(def.interval, 'interval', DEFAULTS.interval, MIN_INTERVAL_S, true),
    energyIntervalS: seconds(def.energyInterval, 'energyInterval', DEFAULTS.energyInterval, MIN_ENERGY_INTERVAL_S, false),
    ...history(def),
  };
}

function history(def: EnergyMqttDef): { historyDays: number; haUrl: string } {
  const raw = def.history;
  const days = raw === undefined || raw === null || raw === '' ? 0 : Number(raw);
  if (!Number.isInteger(days) || days < 0 || days > MAX_HISTORY_DAYS) {
    throw new ConfigError(`history must be a whole number of days, 0 (no import) to ${MAX_HISTORY_DAYS}, not ${describeValue(raw)}`);
  }
  const haUrl = typeof def.haUrl === 'string' ? def.haUrl.trim() : '';
  if (days > 0 && !/^https?:\/\/[^\s/]+/.test(haUrl)) {
    throw new ConfigError(`the Home Assistant address must be such as http://homeassistant.local:8123 to import history, not ${describeValue(def.haUrl)}`);
  }
  return { historyDays: days, haUrl };
}
