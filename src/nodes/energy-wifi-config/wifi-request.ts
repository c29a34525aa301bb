import { EnergyApiError, isDualTransport, type Device } from '../../api/index.js';

/** Credentials to send. `psk` is the secret: never put it in a message, status, log or error. */
export interface WifiRequest {
  ssid: string;
  psk: string;
  wifiOff: boolean;
}

/** Firmware from which the 6MW series accepts WiFi credentials (spec 3.2). */
const WIFI_FIRMWARE = '0.13.1';

/**
 * Reads `{ssid, psk}` from msg.payload; the PSK may come from the node's credential instead.
 * `{ssid: "", psk: ""}` (or an empty ssid and no psk) turns WiFi off.
 */
export function parseWifiRequest(payload: unknown, credentialPsk: string | undefined): WifiRequest {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw EnergyApiError.invalid('msg.payload must be an object {ssid, psk}, or {ssid: "", psk: ""} to turn WiFi off');
  }
  const { ssid, psk } = payload as { ssid?: unknown; psk?: unknown };
  if (typeof ssid !== 'string') throw EnergyApiError.invalid('msg.payload.ssid must be a string (the network name, or "" to turn WiFi off)');
  if (psk !== undefined && psk !== null && typeof psk !== 'string') throw EnergyApiError.invalid('msg.payload.psk must be a string');
  if (ssid === '') {
    if (psk) throw EnergyApiError.invalid('msg.payload: to turn WiFi off send both ssid and psk as empty strings');
    return { ssid: '', psk: '', wifiOff: true };
  }
  if (ssid.length > 32) throw EnergyApiError.invalid('msg.payload.ssid must be at most 32 characters');
  const secret = typeof psk === 'string' && psk !== '' ? psk : credentialPsk;
  if (!secret) {
    throw EnergyApiError.invalid(`no PSK for network "${ssid}": send msg.payload.psk or set the node's password`);
  }
  if (!isValidPsk(secret)) {
    throw EnergyApiError.invalid('the PSK must be a WPA2 passphrase of 8 to 63 characters (or 64 hexadecimal digits)');
  }
  return { ssid, psk: secret, wifiOff: false };
}

function isValidPsk(psk: string): boolean {
  return (psk.length >= 8 && psk.length <= 63) || /^[0-9a-fA-F]{64}$/.test(psk);
}

/** Refuses, before any write, devices without WiFi settings. */
export function assertWifiCapable(device: Device): void {
  if (!isDualTransport(device.model)) {
    throw EnergyApiError.invalid(`WiFi settings exist only on the 6MW and 6MW-CER: device ${device.id} is a ${device.model}`);
  }
  const firmware = device.firmwareVersion;
  if (firmware && !device.uninitialised && compareVersions(firmware, WIFI_FIRMWARE) < 0) {
    throw EnergyApiError.invalid(`WiFi settings need firmware ${WIFI_FIRMWARE} or later: device ${device.id} has ${firmware}`);
  }
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Nothing of the WiFi change is waiting for the device any more. */
export function wifiApplied(device: Device): boolean {
  const pending = device.comms.wifi?.pending;
  return !pending || (pending.ssid === undefined && pending.pskUpdatedAt === undefined);
}

export interface WifiResult {
  ssid: string;
  pskUpdatedAt: number | null;
  applied: boolean;
  wifiOff: boolean;
}

export function wifiResult(device: Device, request: WifiRequest, applied: boolean): WifiResult {
  const wifi = device.comms.wifi;
  return {
    ssid: applied ? (wifi?.ssid ?? request.ssid) : request.ssid,
    pskUpdatedAt: (applied ? wifi?.pskUpdatedAt : (wifi?.pending?.pskUpdatedAt ?? wifi?.pskUpdatedAt)) ?? null,
    applied,
    wifiOff: request.wifiOff,
  };
}

/** A copy of the device without any `psk` field (the API never returns one; this keeps it so). */
export function withoutPsk(device: Device): Device {
  const wifi = device.comms.wifi;
  if (!wifi || !('psk' in wifi)) return device;
  const { psk: _psk, ...rest } = wifi as typeof wifi & { psk?: unknown };
  return { ...device, comms: { ...device.comms, wifi: rest } };
}

/** msg.payload without its psk, so neither a Catch node nor a later node ever sees it. */
export function scrubPayload(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || !('psk' in payload)) return payload;
  const { psk: _psk, ...rest } = payload as Record<string, unknown>;
  return rest;
}
