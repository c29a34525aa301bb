/** The deterministic simulated fleet, its API keys and what each key may do. */
import type { ContactorType, DeviceModel } from '../api/types.js';
import { CATEGORY, modelInfo } from './catalog.js';
import { hashText } from './site/random.js';
import type { ChannelRole } from './site/roles.js';
import type { CellularRadio, SimChannel, SimDevice, SimSwitch, WifiRadio } from './types.js';

export const SIM_KEYS = {
  full: 'key_a3c3fe2bd797d8a6e9436afbfcfd4ae2',
  readOnly: 'key_704ad9266b9c300b87fe3ded8c5eee43',
  writeNoSwitch: 'key_76e229ba557705d64dcf89c9241893e4',
  subset: 'key_04d6179e66869958145894d3f9556575',
  disabled: 'key_9e515660f4fadb2bd196ba413fef38e2',
} as const;

export const SIM_DEVICES = {
  meter3M: 'B300000000001',
  switch6M3SW: 'D630000000002',
  modbus6MOne: 'E610000000003',
  rogowski3RM: 'F3E0000000004',
  wifi6MW: 'D6A0000000005',
  cer6MWCER: 'D6C0000000006',
  uninitialised: 'D6F0000000007',
  forbidden: 'B3F0000000008',
} as const;

export interface KeyGrant {
  devices: readonly string[];
  write: boolean;
  switching: boolean;
}

const ACCESSIBLE = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.forbidden);

/**
 * Grants of the recognised keys; `disabled` is deliberately absent (a retired key). `extraIds` (the
 * simulator's extra sites) belong to the keys that see the whole fleet, not to the subset key.
 */
export function keyGrants(extraIds: readonly string[] = []): ReadonlyMap<string, KeyGrant> {
  const accessible = [...ACCESSIBLE, ...extraIds];
  return new Map<string, KeyGrant>([
    [SIM_KEYS.full, { devices: accessible, write: true, switching: true }],
    [SIM_KEYS.readOnly, { devices: accessible, write: false, switching: false }],
    [SIM_KEYS.writeNoSwitch, { devices: accessible, write: true, switching: false }],
    [SIM_KEYS.subset, { devices: [SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW], write: true, switching: true }],
  ]);
}

export const DATA_START = Date.UTC(2024, 0, 1) / 1000;
export const MODBUS_METER_CHANGE_AT = Date.UTC(2026, 5, 1) / 1000;
/** Last time the dual-transport devices were heard over their inactive transport. */
const INACTIVE_TRANSPORT_HEARD_AT = Date.UTC(2025, 2, 14, 9, 26, 53) / 1000 + 0.5;

/** label, categoryId, what the channel measures. */
export type ChannelSpec = [string, number, ChannelRole];

export function cellularRadio(mode: '3G' | '4G', n: number, rsrq: number, rsrp: number, rssi: number): CellularRadio {
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

export interface DeviceSpec {
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
  ctRating: number;
  phasesCount: 0 | 1 | 2 | 3 | null;
  switches?: Array<Partial<SimSwitch> & { contactorType: ContactorType }>;
  modbus?: boolean;
  /**
   * What the site's draws (weather, habits, lost entries) are keyed by; default its id. The fixed fleet keeps the
   * serials it was first drawn under, before the ids took the live service's form, so its weather and loads (which
   * tests and benches are calibrated on) stayed the same.
   */
  siteKey?: string;
}

/** Default grouping for a count (spec 2.5), as channel numbers. */
export function defaultGrouping(channelsCount: number, count: 1 | 2 | 3): number[][] {
  const numbers = Array.from({ length: channelsCount }, (_, i) => i + 1);
  const groups: number[][] = [];
  for (let i = 0; i < numbers.length; i += count) groups.push(numbers.slice(i, i + count));
  return groups;
}

export interface FleetOptions {
  /** Seed of every site's weather and habits. */
  seed: number;
  /** Sim time the simulator started: switch states hold from here; before it, the loads followed their timers. */
  since: number;
  /** Share of short entries lost (UDP delivery); default 0.03. */
  shortLoss?: number;
}

export function build(spec: DeviceSpec, fleet: FleetOptions): SimDevice {
  const info = modelInfo(spec.model);
  if (spec.channels.length !== info.channelsCount) throw new Error(`channel count of ${spec.id}`);
  const channels: SimChannel[] = spec.channels.map(([label, categoryId], i) => ({
    id: `${spec.id}_C${i + 1}`, label, ctRating: spec.ctRating, categoryId, ctQueue: [],
  }));
  const switches: SimSwitch[] = (spec.switches ?? []).map((s, i) => ({
    id: `${spec.id}_S${i + 1}`,
    state: s.state ?? 'open',
    initialState: s.state ?? 'open',
    history: [],
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
    roles: spec.channels.map(([, , role]) => role),
    seed: fleet.seed,
    site: hashText(spec.siteKey ?? spec.id),
    shortLoss: fleet.shortLoss ?? 0.03,
    since: fleet.since,
    switchChanges: [],
    modbus: spec.modbus ? { changeAt: MODBUS_METER_CHANGE_AT, before: 'PMC-220', after: 'PMC-340B' } : undefined,
    outages: [],
    manualReportAt: null,
    initialQueue: [],
  };
}

const none = (): ChannelRole => ({ kind: 'none' });
const GRID: ChannelRole = { kind: 'grid' };
const C = CATEGORY;

/** A fresh copy of the initial fleet. */
export function createFleet(fleet: FleetOptions): SimDevice[] {
  return [
    build({
      id: SIM_DEVICES.meter3M, siteKey: 'B3M0000000001', model: '3M', label: 'Sydney house', timezone: 'Australia/Sydney', firmwareVersion: '1.4.2',
      cellular: cellularRadio('3G', 1, 0, 0, -93),
      channels: [['Grid', C.grid, GRID], ['Solar', C.solar, { kind: 'solar', kwp: 5 }], ['House', C.lightingAndPower, { kind: 'house', scale: 1 }]],
      ctRating: 120,
      phasesCount: 1,
    }, fleet),
    build({
      id: SIM_DEVICES.switch6M3SW, siteKey: 'D6S0000000002', model: '6M+3SW', label: 'Solar home', timezone: 'Australia/Sydney', firmwareVersion: '1.5.0',
      cellular: cellularRadio('4G', 2, -9, -85, -61),
      channels: [
        ['Grid', C.grid, GRID],
        ['Solar', C.solar, { kind: 'solar', kwp: 6.6, declaredKwp: 8.25 }],
        ['Hot water', C.hotWater, { kind: 'hotwater', watts: 3600, switchIndex: 0 }],
        ['Pool pump', C.poolPump, { kind: 'pool', watts: 1100, switchIndex: 1 }],
        ['EV charger', C.electricVehicle, { kind: 'ev', watts: 7200, switchIndex: 2 }],
        ['House', C.lightingAndPower, { kind: 'house', scale: 1.1 }],
      ],
      ctRating: 60,
      phasesCount: 3,
      switches: [
        { contactorType: 'NO', label: 'Hot water', state: 'open' },
        { contactorType: 'NC', label: 'Pool pump', state: 'open' },
        { contactorType: 'NO', label: 'EV charger', state: 'open' },
      ],
    }, fleet),
    build({
      id: SIM_DEVICES.modbus6MOne, siteKey: 'E6O0000000003', model: '6M+One', label: 'Factory main board', timezone: 'Australia/Melbourne', firmwareVersion: '1.5.0',
      cellular: cellularRadio('4G', 3, -7, -95, -70),
      channels: [
        ['Grid', C.grid, GRID],
        ['Rooftop solar', C.solar, { kind: 'solar', kwp: 30 }],
        ['Air conditioning', C.airConditioning, { kind: 'aircon', kw: 18, business: true }],
        ['Lighting', C.lighting, { kind: 'lighting', watts: 4200, business: true }],
        ['Workshop power', C.power, { kind: 'business', watts: 16000 }],
        ['Canteen oven', C.oven, { kind: 'oven', watts: 6000, business: true }],
      ],
      ctRating: 400,
      phasesCount: 3,
      modbus: true,
    }, fleet),
    build({
      id: SIM_DEVICES.rogowski3RM, siteKey: 'F3R0000000004', model: '3RM', label: 'Substation feeder', timezone: 'Australia/Brisbane', firmwareVersion: '1.3.7',
      cellular: cellularRadio('4G', 4, -11, -101, -75),
      channels: [
        ['Feeder L1', C.grid, { kind: 'feeder', kw: 42 }],
        ['Feeder L2', C.grid, { kind: 'feeder', kw: 39 }],
        ['Feeder L3', C.grid, { kind: 'feeder', kw: 45 }],
      ],
      ctRating: 3000,
      phasesCount: 3,
    }, fleet),
    build({
      id: SIM_DEVICES.wifi6MW, siteKey: 'D6W0000000005', model: '6MW', label: 'Office WiFi meter', timezone: 'Europe/London', firmwareVersion: '0.13.2',
      cellular: { ...cellularRadio('4G', 5, -6.5, -90, -63), lastHeardAt: INACTIVE_TRANSPORT_HEARD_AT },
      wifi: {
        ssid: 'OfficeNet', pskUpdatedAt: Date.UTC(2025, 0, 10, 8, 0, 0) / 1000, ipAddress: '192.168.1.57',
        gateway: '192.168.1.1', subnetMask: '255.255.255.0', macAddress: '24:0A:C4:5E:12:9B', rssi: -58,
        lastHeardAt: null, queue: [],
      },
      activeVia: 'wifi',
      channels: [
        ['Grid', C.grid, GRID],
        ['Solar', C.solar, { kind: 'solar', kwp: 4 }],
        ['Heat pump', C.airConditioning, { kind: 'aircon', kw: 5, business: true }],
        ['Lighting', C.lighting, { kind: 'lighting', watts: 900, business: true }],
        ['Desks', C.power, { kind: 'business', watts: 2400 }],
        ['Kitchenette', C.oven, { kind: 'oven', watts: 2000, business: true }],
      ],
      ctRating: 120,
      phasesCount: 2,
    }, fleet),
    build({
      id: SIM_DEVICES.cer6MWCER, siteKey: 'D6C0000000006', model: '6MW-CER', label: 'Solar export limiter', timezone: 'Australia/Adelaide', firmwareVersion: '0.12.1',
      cellular: cellularRadio('4G', 6, -13, -99, -79),
      wifi: {
        ssid: '', pskUpdatedAt: null, ipAddress: '', gateway: '', subnetMask: '', macAddress: '24:0A:C4:5E:40:01',
        rssi: 0, lastHeardAt: null, queue: [],
      },
      channels: [
        ['Grid', C.grid, GRID],
        ['Solar', C.solar, { kind: 'solar', kwp: 10, switchIndex: 0 }],
        ['Hot water', C.hotWater, { kind: 'hotwater', watts: 3600 }],
        ['Air conditioner', C.airConditioning, { kind: 'aircon', kw: 3.5, business: false }],
        ['Pool pump', C.poolPump, { kind: 'pool', watts: 900 }],
        ['House', C.lightingAndPower, { kind: 'house', scale: 0.9 }],
      ],
      ctRating: 60,
      phasesCount: null,
      switches: [{ contactorType: 'NC', label: 'Inverter export', state: 'closed' }],
    }, fleet),
    build({
      id: SIM_DEVICES.uninitialised, siteKey: 'D6U0000000007', model: '6M+3SW', label: '', firmwareVersion: '',
      uninitialised: true,
      cellular: cellularRadio('4G', 7, 0, 0, 0),
      channels: Array.from({ length: 6 }, (): ChannelSpec => ['', C.notSet, none()]),
      ctRating: 60,
      phasesCount: null,
      switches: [{ contactorType: 'NO' }, { contactorType: 'NO' }, { contactorType: 'NO' }],
    }, fleet),
    build({
      id: SIM_DEVICES.forbidden, siteKey: 'B3X0000000008', model: '3M', label: 'Neighbour', timezone: 'Australia/Perth', firmwareVersion: '1.4.2',
      cellular: cellularRadio('3G', 8, 0, 0, -99),
      channels: [['Mains', C.grid, GRID], ['House', C.lightingAndPower, { kind: 'house', scale: 0.8 }], ['Spare', C.notConnected, none()]],
      ctRating: 60,
      phasesCount: 1,
    }, fleet),
  ];
}
