import {
  deviceFacts, EnergyApiError, type CallOptions, type ChannelCategory, type Device, type DeviceFacts, type EnergyApiClient, type ModelInfo,
} from '../../api/index.js';

export const STATUS_MODES = ['device', 'devices', 'models', 'categories'] as const;
export type StatusMode = (typeof STATUS_MODES)[number];

export interface DeviceFactsEntry {
  id: string;
  facts: DeviceFacts;
}

/** One answer of the node, per mode: the API's object as returned, and the facts derived from it. */
export type StatusReading =
  | { mode: 'device'; payload: Device; deviceId: string; facts: DeviceFacts }
  | { mode: 'devices'; payload: Device[]; devices: DeviceFactsEntry[] }
  | { mode: 'models'; payload: ModelInfo[] }
  | { mode: 'categories'; payload: ChannelCategory[] };

export interface ReadRequest {
  mode: StatusMode;
  /** Called only in `device` mode, so the other modes need no device id. */
  deviceId: () => string;
  offlineAfterSeconds: number;
  call: CallOptions;
  /** The nodes' clock in ms: how long ago a device was heard. */
  now(): number;
}

export function checkMode(mode: unknown): StatusMode {
  const value = mode === undefined || mode === '' ? 'device' : mode;
  if (!STATUS_MODES.includes(value as StatusMode)) {
    throw EnergyApiError.invalid(`mode must be one of ${STATUS_MODES.join(', ')}, not "${String(mode)}"`);
  }
  return value as StatusMode;
}

/** Reads what the mode asks for. `devices` costs 1 + one request per accessible device. */
export async function readStatus(client: EnergyApiClient, request: ReadRequest): Promise<StatusReading> {
  const { call, offlineAfterSeconds } = request;
  switch (request.mode) {
    case 'device': {
      const deviceId = request.deviceId();
      const device = await client.getDevice(deviceId, call);
      return { mode: 'device', payload: device, deviceId, facts: deviceFacts(device, offlineAfterSeconds, request.now()) };
    }
    case 'devices': {
      const ids = await client.listDevices(call);
      const devices = await Promise.all(ids.map((id) => client.getDevice(id, call)));
      const now = request.now();
      return {
        mode: 'devices',
        payload: devices,
        devices: devices.map((device) => ({ id: device.id, facts: deviceFacts(device, offlineAfterSeconds, now) })),
      };
    }
    case 'models':
      return { mode: 'models', payload: await client.getModels(call) };
    case 'categories':
      return { mode: 'categories', payload: await client.getChannelCategories(call) };
  }
}

/** The msg properties the node sets. */
export function messageFields(reading: StatusReading): Record<string, unknown> {
  switch (reading.mode) {
    case 'device':
      return { payload: reading.payload, device: reading.facts, deviceId: reading.deviceId, topic: reading.payload.label || reading.deviceId };
    case 'devices':
      return { payload: reading.payload, devices: reading.devices, topic: 'devices' };
    default:
      return { payload: reading.payload, topic: reading.mode };
  }
}

/** Fields that move with every report; leaving them out means "only on change" reacts to real changes. */
const VOLATILE_FIELDS = new Set(['lastHeardAt', 'latestStatus']);

/**
 * What "only on change" compares: the payload without its report times, plus each device's
 * online state (so going offline or coming back still counts as a change).
 */
export function changeSignature(reading: StatusReading): string {
  const online =
    reading.mode === 'device' ? [reading.facts.online] : reading.mode === 'devices' ? reading.devices.map((d) => d.facts.online) : [];
  return JSON.stringify({ payload: reading.payload, online }, (key, value: unknown) => (VOLATILE_FIELDS.has(key) ? undefined : value));
}
