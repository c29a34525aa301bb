import type { Device } from '../../api/index.js';
import { OVERRIDE_CHOICES, type LoadControlView } from '../shared/load-control-registry.js';
import { channelTotal, energyLayout } from './totals.js';
import { memberNumber, topicId, type DeviceTopics } from './topics.js';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg: { name: string; version: string; homepage: string } = require('../../../package.json');

export type Component = Record<string, unknown> & { p: string; unique_id: string };

/** A device-based discovery payload (HA 2024.11+): the device, the origin and every entity of it. */
export interface DevicePayload {
  dev: Record<string, unknown>;
  o: Record<string, unknown>;
  cmps: Record<string, Component>;
  availability: Array<Record<string, string>>;
  availability_mode?: 'all';
}

/** Switch state words on MQTT: what HA's switch sends and expects by default. */
export const ON = 'ON';
export const OFF = 'OFF';
/** What every entity of the node says of where the device's maker and setup are described. */
const MANUFACTURER = 'Energy monitor (cloud API v3)';

/** An availability topic's entry in HA's `availability` list. */
const availabilityEntry = (topic: string): Record<string, string> => ({ topic, payload_available: 'online', payload_not_available: 'offline' });

/** `Workshop power` + ` power` reads as `Workshop power`, not `Workshop power power`. */
export function withWord(label: string, word: string): string {
  return new RegExp(`\\b${word}$`, 'i').test(label.trim()) ? label.trim() : `${label} ${word}`;
}

/** The device that stands for the key (and the Node-RED holding it): its identifier, also the devices' `via_device`. */
export function bridgeIdentifier(keyHint: string): string {
  return `energy_api_key_${keyHint.replace(/[^A-Za-z0-9]/g, '')}`;
}

/**
 * Every entity of one device. Unique ids come from the API's own ids (a channel id already names its device),
 * so they stay the same across restarts and Node-RED instances; names come from the device's labels. Each
 * entity is available only while both the bridge (Node-RED connected: its availability topic, which the
 * broker's Last Will sets to offline on a crash) and the device (heard from lately) are online.
 */
export function devicePayload(device: Device, topics: DeviceTopics, loads: readonly LoadControlView[], bridge: BridgeInfo): DevicePayload {
  const cmps: Record<string, Component> = {};
  const layout = energyLayout(device);
  const energy = (name: string, uniqueId: string, stateTopic: string, extra: Record<string, unknown> = {}): Component => ({
    p: 'sensor', name, unique_id: uniqueId, state_topic: stateTopic, device_class: 'energy', state_class: 'total_increasing',
    unit_of_measurement: 'kWh', suggested_display_precision: 2, json_attributes_topic: topics.energyAttributes, ...extra,
  });
  const siteChannels = new Set([...layout.grid, ...layout.solar]);

  for (const { index, number } of layout.channels) {
    const channel = device.channels[index];
    const label = channel.label || `Channel ${number}`;
    cmps[`c${number}_power`] = {
      p: 'sensor', name: withWord(label, 'power'), unique_id: `${channel.id}_power`, state_topic: topics.power(number),
      device_class: 'power', state_class: 'measurement', unit_of_measurement: 'W', suggested_display_precision: 0,
    };
    // A grid or solar channel's energy is already in the site's totals (Grid import/export, Solar production): offered
    // once to the Energy dashboard, the per-channel totals start disabled. A consumer's "exported" energy is a
    // diagnostic (a meter's standby or a CT the wrong way round), disabled too.
    const duplicate = siteChannels.has(index);
    cmps[channelTotal(number, 'imported')] = energy(`${label} energy imported`, `${channel.id}_energy_imported`, topics.imported(number),
      duplicate ? { enabled_by_default: false } : {});
    cmps[channelTotal(number, 'exported')] = energy(`${label} energy exported`, `${channel.id}_energy_exported`, topics.exported(number),
      { enabled_by_default: false, ...(duplicate ? {} : { entity_category: 'diagnostic' }) });
  }
  if (layout.grid.length > 0) {
    cmps.grid_imported = energy('Grid import', `${device.id}_grid_imported`, topics.site('grid_imported'));
    cmps.grid_exported = energy('Grid export', `${device.id}_grid_exported`, topics.site('grid_exported'));
  }
  if (layout.solar.length > 0) cmps.solar_produced = energy('Solar production', `${device.id}_solar_produced`, topics.site('solar_produced'));

  device.switches.forEach((sw, index) => {
    const n = memberNumber(sw.id, index);
    const label = sw.label || `Switch ${n}`;
    cmps[`s${n}`] = {
      p: 'switch', name: label, unique_id: `${sw.id}_switch`, command_topic: topics.switchCommand(n), state_topic: topics.switchState(n),
      payload_on: ON, payload_off: OFF, state_on: ON, state_off: OFF, optimistic: false, json_attributes_topic: topics.switchAttributes(n),
    };
    loads.filter((l) => l.switchId === sw.id).forEach((load, k) => {
      const suffix = k > 0 ? `_${k + 1}` : '';
      cmps[`s${n}_override${suffix}`] = {
        p: 'select', name: `${label} load control${suffix ? ` ${k + 1}` : ''}`, unique_id: `${sw.id}_load_control_override${suffix}`,
        command_topic: topics.overrideCommand(n, k + 1), state_topic: topics.override(n, k + 1), options: [...OVERRIDE_CHOICES],
        entity_category: 'config', icon: 'mdi:hand-back-right',
      };
      cmps[`s${n}_reason${suffix}`] = {
        p: 'sensor', name: `${label} load control reason${suffix ? ` ${k + 1}` : ''}`, unique_id: `${sw.id}_load_control_reason${suffix}`,
        state_topic: topics.reason(n, k + 1), json_attributes_topic: topics.reasonAttributes(n, k + 1), entity_category: 'diagnostic',
        icon: 'mdi:head-cog-outline',
      };
    });
  });
  const dev: Record<string, unknown> = {
    identifiers: [`energy_api_${topicId(device.id)}`], name: device.label || device.id, manufacturer: MANUFACTURER, model: String(device.model),
    serial_number: device.id, configuration_url: pkg.homepage, via_device: bridgeIdentifier(bridge.keyHint),
  };
  if (device.label) dev.suggested_area = device.label;
  if (typeof device.firmwareVersion === 'string' && device.firmwareVersion) dev.sw_version = device.firmwareVersion;
  return {
    dev, o: origin(), cmps,
    availability: [availabilityEntry(bridge.availabilityTopic), availabilityEntry(topics.availability)], availability_mode: 'all',
  };
}

/** What the device payloads need to know of the bridge. */
export interface BridgeInfo {
  /** The key, named by its last 5 characters. */
  keyHint: string;
  availabilityTopic: string;
}

/** The bridge device: the key's own diagnostics (its requests left today), available while Node-RED is connected. */
export function bridgePayload(bridge: BridgeInfo, budgetTopic: string): DevicePayload {
  const id = bridgeIdentifier(bridge.keyHint);
  return {
    dev: { identifiers: [id], name: `Energy API key ${bridge.keyHint}`, manufacturer: MANUFACTURER, model: 'Node-RED bridge', configuration_url: pkg.homepage, sw_version: pkg.version },
    o: origin(),
    cmps: {
      api_budget: {
        p: 'sensor', name: 'API requests left today', unique_id: `${id}_api_budget`, state_topic: budgetTopic,
        state_class: 'measurement', unit_of_measurement: 'requests', entity_category: 'diagnostic', icon: 'mdi:counter',
      },
    },
    availability: [availabilityEntry(bridge.availabilityTopic)],
  };
}

const origin = (): Record<string, unknown> => ({ name: pkg.name, sw_version: pkg.version, support_url: pkg.homepage });
