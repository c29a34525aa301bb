/**
 * The API's rules as the simulated service applies them, stated here from the specification
 * (2.2, 2.3, 2.4, 2.6, 3.2) on purpose: the simulator must not share the client's tables, or a
 * wrong cell in the client would pass every test (test/simulator/independence.test.js).
 */
import type { DeviceModel } from '../api/types.js';

// ---- Model capabilities (spec 2.2, 2.3, 2.6) ----

/** Models whose code contains "+One" carry a modbus meter. */
export const hasModbus = (model: DeviceModel): boolean => model === '6M+One';

/** The Rogowski models: 3RM and 3RM+3SW, ctRating fixed at 3000. */
export const isRogowskiModel = (model: DeviceModel): boolean => model === '3RM' || model === '3RM+3SW';

/** 4G plus 2.4 GHz WiFi: the 6MW series. */
export const isDualTransportModel = (model: DeviceModel): boolean => model === '6MW' || model === '6MW-CER';

// ---- CT ratings (spec 2.4, 4.3) ----

export const SETTABLE_CT_RATINGS: readonly number[] = [60, 120, 200, 400, 600];
export const ROGOWSKI_CT = 3000;

// ---- Firmware (spec 2.3, 3.2) ----

/**
 * WPA2 (IEEE 802.11i) pre-shared keys: a passphrase of 8 to 63 printable ASCII characters, or the key
 * itself as 64 hexadecimal digits. No document of the service narrows this, so both are taken.
 */
export function isWpa2Key(psk: string): boolean {
  return /^[\x20-\x7e]{8,63}$/.test(psk) || /^[0-9a-fA-F]{64}$/.test(psk);
}

/** WiFi credentials can be written from this firmware on. */
export const WIFI_WRITE_FIRMWARE = '0.13.1';
/** signalQualityDbm is -1 (unknown) on the 6MW series before this firmware. */
export const SIGNAL_DBM_FIRMWARE = '0.13.0';

/** True when dotted version `have` is `need` or newer (missing parts count as 0). */
export function firmwareReaches(have: string, need: string): boolean {
  const h = have.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const n = need.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const length = Math.max(h.length, n.length);
  for (let k = 0; k < length; k++) {
    const a = h[k] ?? 0;
    const b = n[k] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

// ---- Signal quality (spec 2.3) ----

/** LTE matrix rows: [RSRQ strictly greater than, qualities by RSRP column]; the last row is "< -18". */
const LTE_ROWS: ReadonlyArray<readonly [number, readonly number[]]> = [
  [-4, [0, 3, 4, 7, 8, 8, 9, 9, 9, 9]],
  [-5, [0, 3, 4, 6, 7, 8, 8, 9, 9, 9]],
  [-6, [0, 1, 3, 4, 6, 7, 8, 8, 9, 9]],
  [-8, [0, 1, 3, 4, 5, 6, 7, 8, 8, 9]],
  [-10, [0, 1, 2, 3, 4, 5, 6, 7, 8, 8]],
  [-12, [0, 1, 2, 2, 3, 4, 5, 6, 7, 8]],
  [-14, [0, 1, 1, 2, 2, 3, 4, 4, 6, 7]],
  [-16, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]],
  [-18, [0, 0, 0, 1, 1, 1, 1, 1, 3, 3]],
  [-Infinity, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
];
/** Column k (k >= 1) needs RSRP strictly greater than this; column 0 is "< -112". */
const RSRP_ABOVE = [-112, -108, -104, -100, -96, -92, -88, -84, -80];

/** 0..9 from RSRQ (dB) and RSRP (dBm); -1 for values a radio cannot report (zero or positive). */
export function lteQuality(rsrq: number, rsrp: number): number {
  if (!(rsrq < 0 && rsrp < 0)) return -1;
  let column = 0;
  while (column < RSRP_ABOVE.length && rsrp > RSRP_ABOVE[column]) column++;
  const row = LTE_ROWS.find(([above]) => rsrq > above) ?? LTE_ROWS[LTE_ROWS.length - 1];
  return row[1][column];
}

/** WiFi RSSI bands, highest first: [lowest RSSI of the band, quality]. */
const WIFI_BANDS: ReadonlyArray<readonly [number, number]> = [
  [-40, 9], [-50, 8], [-55, 7], [-60, 6], [-65, 5], [-70, 4], [-75, 3], [-80, 2], [-90, 1], [-Infinity, 0],
];

/** -1..9 from RSSI (dBm); above -30 (including 0, "unknown") is invalid. */
export function wifiQuality(rssi: number): number {
  if (!Number.isFinite(rssi) || rssi > -30) return -1;
  const band = WIFI_BANDS.find(([lowest]) => rssi >= lowest);
  return band ? band[1] : 0;
}

export function qualityLabel(quality: number): 'Invalid or Unknown' | 'Poor' | 'Low' | 'Good' | 'Excellent' {
  if (quality >= 8 && quality <= 9) return 'Excellent';
  if (quality >= 5 && quality <= 7) return 'Good';
  if (quality >= 3 && quality <= 4) return 'Low';
  if (quality >= 0 && quality <= 2) return 'Poor';
  return 'Invalid or Unknown';
}
