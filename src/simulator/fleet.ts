/** The deterministic simulated fleet, its API keys and what each key may do. */
import type { ContactorType, DeviceModel } from '../api/types.js';
import { modelInfo } from './catalog.js';
import { assertWaveSupported, type ChannelPower } from './power.js';
import type { CellularRadio, SimChannel, SimDevice, SimSwitch, WifiRadio } from './types.js';

export const SIM_KEYS = {
  full: 'key_a3c3fe2bd797d8a6e9436afbfcfd4ae2',
  readOnly: 'key_704ad9266b9c300b87fe3ded8c5eee43',
  writeNoSwitch: 'key_76e229ba557705d64dcf89c9241893e4',
  subset: 'key_04d6179e66869958145894d3f9556575',
  disabled: 'key_9e515660f4fadb2bd196ba413fef38e2',
} as const;

export const SIM_DEVICES = {
  meter3M: 'B3M0000000001',
  switch6M3SW: 'D6S0000000002',
  modbus6MOne: 'E6O0000000003',
  rogowski3RM: 'F3R0000000004',
  wifi6MW: 'D6W0000000005',
  cer6MWCER: 'D6C0000000006',
  uninitialised: 'D6U0000000007',
  forbidden: 'B3X0000000008',
} as const;

export interface KeyGrant {
  devices: readonly string[];
  write: boolean;
  switching: boolean;
}

const ACCESSIBLE = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.forbidden);

/** Grants of the recognised keys; `disabled` is deliberately absent (a retired key). */
export const KEY_GRANTS: ReadonlyMap<string, KeyGrant> = new Map<string, KeyGrant>([
  [SIM_KEYS.full, { devices: ACCESSIBLE, write: true, switching: true }],
  [SIM_KEYS.readOnly, { devices: ACCESSIBLE, write: false, switching: false }],
  [SIM_KEYS.writeNoSwitch, { devices: ACCESSIBLE, write: true, switching: false }],
  [SIM_KEYS.subset, { devices: [SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW], write: true, switching: true }],
]);

export const DATA_START = Date.UTC(2024, 0, 1) / 1000;
export const MODBUS_METER_CHANGE_AT = Date.UTC(2026, 5, 1) / 1000;
/** Last time the dual-transport devices were heard over their inactive transport. */
const INACTIVE_TRANSPORT_HEARD_AT = Date.UTC(2025, 2, 14, 9, 26, 53) / 1000 + 0.5;

interface ChannelSpec {
  label: string;
  categoryId: number;
  ctRating: number;
}

/** Consumption that never goes negative; `seed` spreads the shapes between channels. */
function load(watts: number, seed: number): ChannelPower {
  const real = { base: watts, daily: 0.55 * watts, dailyPhase: seed * 0.9, hourly: 0.2 * watts, hourlyPhase: seed * 1.7 };
  const reactive = { base: 0.3 * watts, daily: 0.1 * watts, dailyPhase: seed * 0.4 + 1, hourly: 0.05 * watts, hourlyPhase: seed };
  return { real, reactive };
}

/** A channel that imports at night and exports by day (solar), so eRealNegative is non-zero. */
function solar(peakExport: number, seed: number): ChannelPower {
  const real = { base: -0.35 * peakExport, daily: -0.65 * peakExport, dailyPhase: seed * 0.3, hourly: 0, hourlyPhase: 0 };
  const reactive = { base: 40, daily: 120, dailyPhase: seed * 0.5 + 2, hourly: 0, hourlyPhase: 0 };
  return { real, reactive };
}

function cellularRadio(mode: '3G' | '4G', n: number, rsrq: number, rsrp: number, rssi: number): CellularRadio {
  return {
    mode,
    carrier: mode === '3G' ? 'SimTel' : 'SimNet Mobile',
    apn: 'sim.iot',
    imsi: `50501${String(n).padStart(10, '0')}`,
    simId: `8961000000000000${String(n).padStart(3, '0')}`,
    rsrq,
    rsrp,
    rssi,
    cellQuality: 3 + (n % 5),
    lastHeardAt: null,
  };
}

interface DeviceSpec {
  id: string;
  model: DeviceModel;
  label: string;
  timezone?: string;
  firmwareVersion: string;
  uninitialised?: boolean;
  cellular: CellularRadio;
  wifi?: WifiRadio;
  activeVia?: 'cellular' | 'wifi';
  channels: ChannelSpec[];
  power: ChannelPower[];
  phasesCount: 0 | 1 | 2 | 3 | null;
  switches?: Array<Partial<SimSwitch> & { contactorType: ContactorType }>;
  modbus?: boolean;
}

function channelSpecs(labels: Array<[string, number]>, ctRating: number): ChannelSpec[] {
  return labels.map(([label, categoryId]) => ({ label, categoryId, ctRating }));
}

/** Default grouping for a count (spec 2.5), as channel numbers. */
export function defaultGrouping(channelsCount: number, count: 1 | 2 | 3): number[][] {
  const numbers = Array.from({ length: channelsCount }, (_, i) => i + 1);
  const groups: number[][] = [];
  for (let i = 0; i < numbers.length; i += count) groups.push(numbers.slice(i, i + count));
  return groups;
}

function build(spec: DeviceSpec): SimDevice {
  const info = modelInfo(spec.model);
  if (spec.channels.length !== info.channelsCount) throw new Error(`channel count of ${spec.id}`);
  spec.power.forEach((p) => { assertWaveSupported(p.real); assertWaveSupported(p.reactive); });
  const channels: SimChannel[] = spec.channels.map((c, i) => ({
    id: `${spec.id}_C${i + 1}`, label: c.label, ctRating: c.ctRating, categoryId: c.categoryId, ctQueue: [],
  }));
  const switches: SimSwitch[] = (spec.switches ?? []).map((s, i) => ({
    id: `${spec.id}_S${i + 1}`,
    state: s.state ?? 'open',
    label: s.label ?? '',
    contactorType: s.contactorType,
    closedStateLabel: s.closedStateLabel ?? 'On',
    openStateLabel: s.openStateLabel ?? 'Off',
    stateQueue: [],
  }));
  const count = spec.phasesCount;
  const grouping = count === null || count === 0
    ? []
    : defaultGrouping(channels.length, count).map((g) => g.map((n) => `${spec.id}_C${n}`));
  return {
    id: spec.id,
    model: spec.model,
    label: spec.label,
    timezone: spec.timezone,
    firmwareVersion: spec.firmwareVersion,
    uninitialised: spec.uninitialised ?? false,
    interval: 30,
    cellular: spec.cellular,
    wifi: spec.wifi,
    activeVia: spec.activeVia ?? 'cellular',
    channels,
    phasesCount: count,
    grouping,
    switches,
    dataStart: DATA_START,
    power: spec.power,
    modbus: spec.modbus ? { changeAt: MODBUS_METER_CHANGE_AT, before: 'PMC-220', after: 'PMC-340B' } : undefined,
    outages: [],
    manualReportAt: null,
    initialQueue: [],
  };
}

const SIX_CIRCUITS: Array<[string, number]> = [
  ['Grid', 1], ['Solar', 5], ['Hot water', 6], ['Air conditioner', 4], ['Lights', 10], ['Kitchen', 9],
];
const sixLoads = (seed: number): ChannelPower[] => [
  load(1400, seed), solar(3200, seed), load(900, seed + 2), load(1100, seed + 3), load(250, seed + 4), load(600, seed + 5),
];

/** A fresh copy of the initial fleet. */
export function createFleet(): SimDevice[] {
  return [
    build({
      id: SIM_DEVICES.meter3M, model: '3M', label: 'Sydney house', timezone: 'Australia/Sydney', firmwareVersion: '1.4.2',
      cellular: cellularRadio('3G', 1, 0, 0, -93),
      channels: channelSpecs([['Mains', 1], ['Solar', 5], ['Pool', 3]], 120),
      power: [load(1800, 1), solar(4000, 1), load(700, 3)],
      phasesCount: 1,
    }),
    build({
      id: SIM_DEVICES.switch6M3SW, model: '6M+3SW', label: 'Berlin workshop', timezone: 'Europe/Berlin', firmwareVersion: '1.5.0',
      cellular: cellularRadio('4G', 2, -9, -85, -61),
      channels: channelSpecs(SIX_CIRCUITS, 200),
      power: sixLoads(2),
      phasesCount: 3,
      switches: [
        { contactorType: 'NO', label: 'Heat pump', state: 'closed' },
        { contactorType: 'NC', label: 'Boiler', state: 'open', closedStateLabel: 'Heating', openStateLabel: 'Idle' },
        { contactorType: 'NO', label: 'EV charger', state: 'open' },
      ],
    }),
    build({
      id: SIM_DEVICES.modbus6MOne, model: '6M+One', label: 'Factory main board', timezone: 'Australia/Melbourne', firmwareVersion: '1.5.0',
      cellular: cellularRadio('4G', 3, -7, -95, -70),
      channels: channelSpecs(SIX_CIRCUITS, 400),
      power: sixLoads(5),
      phasesCount: 3,
      modbus: true,
    }),
    build({
      id: SIM_DEVICES.rogowski3RM, model: '3RM', label: 'Substation feeder', timezone: 'Australia/Brisbane', firmwareVersion: '1.3.7',
      cellular: cellularRadio('4G', 4, -11, -101, -75),
      channels: channelSpecs([['Feeder L1', 1], ['Feeder L2', 1], ['Feeder L3', 1]], 3000),
      power: [load(42000, 7), load(39000, 8), load(45000, 9)],
      phasesCount: 3,
    }),
    build({
      id: SIM_DEVICES.wifi6MW, model: '6MW', label: 'Office WiFi meter', timezone: 'Europe/London', firmwareVersion: '0.13.2',
      cellular: { ...cellularRadio('4G', 5, -6.5, -90, -63), lastHeardAt: INACTIVE_TRANSPORT_HEARD_AT },
      wifi: {
        ssid: 'OfficeNet', pskUpdatedAt: Date.UTC(2025, 0, 10, 8, 0, 0) / 1000, ipAddress: '192.168.1.57',
        gateway: '192.168.1.1', subnetMask: '255.255.255.0', macAddress: '24:0A:C4:5E:12:9B', rssi: -58,
        lastHeardAt: null, queue: [],
      },
      activeVia: 'wifi',
      channels: channelSpecs(SIX_CIRCUITS, 120),
      power: sixLoads(11),
      phasesCount: 2,
    }),
    build({
      id: SIM_DEVICES.cer6MWCER, model: '6MW-CER', label: 'Solar export limiter', timezone: 'Australia/Adelaide', firmwareVersion: '0.12.1',
      cellular: cellularRadio('4G', 6, -13, -99, -79),
      wifi: {
        ssid: '', pskUpdatedAt: null, ipAddress: '', gateway: '', subnetMask: '', macAddress: '24:0A:C4:5E:40:01',
        rssi: 0, lastHeardAt: null, queue: [],
      },
      channels: channelSpecs(SIX_CIRCUITS, 60),
      power: sixLoads(13),
      phasesCount: null,
      switches: [{ contactorType: 'NC', label: 'Inverter export', state: 'closed' }],
    }),
    build({
      id: SIM_DEVICES.uninitialised, model: '6M+3SW', label: '', firmwareVersion: '',
      uninitialised: true,
      cellular: cellularRadio('4G', 7, 0, 0, 0),
      channels: channelSpecs(Array.from({ length: 6 }, (): [string, number] => ['', -1]), 60),
      power: sixLoads(17),
      phasesCount: null,
      switches: [{ contactorType: 'NO' }, { contactorType: 'NO' }, { contactorType: 'NO' }],
    }),
    build({
      id: SIM_DEVICES.forbidden, model: '3M', label: 'Neighbour', timezone: 'Australia/Perth', firmwareVersion: '1.4.2',
      cellular: cellularRadio('3G', 8, 0, 0, -99),
      channels: channelSpecs([['Mains', 1], ['Spare', 0], ['Spare', 0]], 60),
      power: [load(900, 21), load(0.001, 22), load(0.001, 23)],
      phasesCount: 1,
    }),
  ];
}
