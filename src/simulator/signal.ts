/** Signal quality indicators computed from raw radio values (spec 2.3 tables). */

const RSRP_THRESHOLDS = [-112, -108, -104, -100, -96, -92, -88, -84, -80];
const RSRQ_THRESHOLDS = [-4, -5, -6, -8, -10, -12, -14, -16, -18];
const LTE_MATRIX: readonly number[][] = [
  [0, 3, 4, 7, 8, 8, 9, 9, 9, 9],
  [0, 3, 4, 6, 7, 8, 8, 9, 9, 9],
  [0, 1, 3, 4, 6, 7, 8, 8, 9, 9],
  [0, 1, 3, 4, 5, 6, 7, 8, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 8],
  [0, 1, 2, 2, 3, 4, 5, 6, 7, 8],
  [0, 1, 1, 2, 2, 3, 4, 4, 6, 7],
  [0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
  [0, 0, 0, 1, 1, 1, 1, 1, 3, 3],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/** LTE signal quality 0..9 from RSRQ and RSRP, or -1 when the values are missing/invalid. */
export function lteSignalQuality(rsrq: number | undefined, rsrp: number | undefined): number {
  if (rsrq === undefined || rsrp === undefined || !Number.isFinite(rsrq) || !Number.isFinite(rsrp)) return -1;
  if (rsrq >= 0 || rsrp >= 0) return -1;
  // Column 1 is "< -112"; a value equal to a threshold is not "greater than" it.
  const column = RSRP_THRESHOLDS.filter((t) => rsrp > t).length;
  let row = RSRQ_THRESHOLDS.findIndex((t) => rsrq > t);
  if (row < 0) row = RSRQ_THRESHOLDS.length;
  return LTE_MATRIX[row][column];
}

/** WiFi signal quality 0..9 from RSSI (dBm); -1 for unknown or above -30. */
export function wifiSignalQuality(rssi: number | undefined): number {
  if (rssi === undefined || !Number.isFinite(rssi) || rssi > -30) return -1;
  const floors = [-40, -50, -55, -60, -65, -70, -75, -80, -90];
  const index = floors.findIndex((f) => rssi >= f);
  return index < 0 ? 0 : 9 - index;
}

export function signalQualityLabel(quality: number): string {
  if (quality >= 8) return 'Excellent';
  if (quality >= 5) return 'Good';
  if (quality >= 3) return 'Low';
  if (quality >= 0) return 'Poor';
  return 'Invalid or Unknown';
}
