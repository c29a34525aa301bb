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
}

/** Switch state words on MQTT: what HA's switch sends and expects by default. */
export const ON = 'ON';
export const OFF = 'OFF';
/** Categories whose channels carry energy both ways; other channels' "exported" totals start disabled in HA. */
const TWO_WAY_CATEGORIES = new Set([1, 5, 8, 12]);

/**
 * Every entity of one device. Unique ids come from the API's own ids (a channel id already names its device),
 * so they stay the same across restarts and Node-RED instances; names come from the device's labels.
 */
export function devicePayload(device: Device, topics: DeviceTopics, loads: readonly LoadControlView[]): DevicePayload {
  const available = { availability_topic: topics.availability, payload_available: 'online', payload_not_available: 'offline' };
  const cmps: Record<string, Component> = {};
  const layout = energyLayout(device);
  const energy = (name: string, uniqueId: string, stateTopic: string, enabled = true): Component => ({
    p: 'sensor', name, unique_id: uniqueId, state_topic: stateTopic, device_class: 'energy', state_class: 'total_increasing',
    unit_of_measurement: 'kWh', suggested_display_precision: 2, json_attributes_topic: topics.energyAttributes,
    ...(enabled ? {} : { enabled_by_default: false }), ...available,
  });

  for (const { index, number } of layout.channels) {
    const channel = device.channels[index];
    const label = channel.label || `Channel ${number}`;
    cmps[`c${number}_power`] = {
      p: 'sensor', name: `${label} power`, unique_id: `${channel.id}_power`, state_topic: topics.power(number),
      device_class: 'power', state_class: 'measurement', unit_of_measurement: 'W', suggested_display_precision: 0, ...available,
    };
    cmps[channelTotal(number, 'imported')] = energy(`${label} energy imported`, `${channel.id}_energy_imported`, topics.imported(number));
    cmps[channelTotal(number, 'exported')] = energy(`${label} energy exported`, `${channel.id}_energy_exported`, topics.exported(number), TWO_WAY_CATEGORIES.has(channel.categoryId));
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
      payload_on: ON, payload_off: OFF, state_on: ON, state_off: OFF, optimistic: false, json_attributes_topic: topics.switchAttributes(n), ...available,
    };
    loads.filter((l) => l.switchId === sw.id).forEach((load, k) => {
      const suffix = k > 0 ? `_${k + 1}` : '';
      cmps[`s${n}_override${suffix}`] = {
        p: 'select', name: `${label} load control${suffix ? ` ${k + 1}` : ''}`, unique_id: `${sw.id}_load_control_override${suffix}`,
        command_topic: topics.overrideCommand(n, k + 1), state_topic: topics.override(n, k + 1), options: [...OVERRIDE_CHOICES],
        entity_category: 'config', icon: 'mdi:hand-back-right', ...available,
      };
      cmps[`s${n}_reason${suffix}`] = {
        p: 'sensor', name: `${label} load control reason${suffix ? ` ${k + 1}` : ''}`, unique_id: `${sw.id}_load_control_reason${suffix}`,
        state_topic: topics.reason(n, k + 1), json_attributes_topic: topics.reasonAttributes(n, k + 1), entity_category: 'diagnostic',
        icon: 'mdi:head-cog-outline', ...available,
      };
    });
  });
  // The key's budget, not the device's: shown whether the device is online or not.
  cmps.api_budget = {
    p: 'sensor', name: 'API requests left today', unique_id: `${device.id}_api_budget`, state_topic: topics.budget,
    state_class: 'measurement', unit_of_measurement: 'requests', entity_category: 'diagnostic', icon: 'mdi:counter',
  };

  const dev: Record<string, unknown> = { identifiers: [`energy_api_${topicId(device.id)}`], name: device.label || device.id, model: String(device.model), serial_number: device.id };
  if (typeof device.firmwareVersion === 'string' && device.firmwareVersion) dev.sw_version = device.firmwareVersion;
  return { dev, o: { name: pkg.name, sw_version: pkg.version, support_url: pkg.homepage }, cmps };
}
