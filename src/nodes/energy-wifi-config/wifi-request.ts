import { EnergyApiError, isWpaPsk, ssidLengthProblem, WPA_PSK_RULE, type Device } from '../../api/index.js';

/**
 * Reading msg.payload and shaping the output. The device rules (6MW series only, firmware, SSID
 * length) are the client's, checked before every PATCH.
 */

/** Credentials to send. `psk` is the secret: never put it in a message, status, log or error. */
export interface WifiRequest {
  ssid: string;
  psk: string;
  wifiOff: boolean;
}

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
  const tooLong = ssidLengthProblem(ssid);
  if (tooLong) throw EnergyApiError.invalid(`msg.payload.ssid ${tooLong}`);
  const secret = typeof psk === 'string' && psk !== '' ? psk : credentialPsk;
  if (!secret) {
    throw EnergyApiError.invalid(`no PSK for network "${ssid}": send msg.payload.psk or set the node's password`);
  }
  // Refused before anything is sent; the error says the rule, never the PSK.
  if (!isWpaPsk(secret)) throw EnergyApiError.invalid(`the PSK must be ${WPA_PSK_RULE}`);
  return { ssid, psk: secret, wifiOff: false };
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
