/** Signal quality per spec 2.3: the LTE matrix, the WiFi RSSI table, the label table and the dBm rough guide. */

export type SignalLabel = 'Invalid or Unknown' | 'Poor' | 'Low' | 'Good' | 'Excellent';

const RSRP_COLUMNS = [-112, -108, -104, -100, -96, -92, -88, -84, -80];
const RSRQ_ROWS = [-4, -5, -6, -8, -10, -12, -14, -16, -18];
const LTE_MATRIX: number[][] = [
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

/** 0..9 from RSRQ and RSRP (dB, dBm); -1 when either is missing or not a negative number. */
export function lteSignalQuality(rsrq: number | undefined, rsrp: number | undefined): number {
  if (typeof rsrq !== 'number' || typeof rsrp !== 'number' || !(rsrq < 0) || !(rsrp < 0)) return -1;
  // Column 1 is "< -112": a value equal to a threshold is not "greater than" it.
  const column = RSRP_COLUMNS.filter((threshold) => rsrp > threshold).length;
  let row = RSRQ_ROWS.findIndex((threshold) => rsrq > threshold);
  if (row === -1) row = RSRQ_ROWS.length;
  return LTE_MATRIX[row][column];
}

const WIFI_STEPS: Array<[number, number]> = [
  [-40, 9], [-50, 8], [-55, 7], [-60, 6], [-65, 5], [-70, 4], [-75, 3], [-80, 2], [-90, 1],
];

/** -1..9 from RSSI in dBm; above -30 dBm (or missing) is invalid. */
export function wifiSignalQuality(rssi: number | undefined): number {
  if (typeof rssi !== 'number' || !Number.isFinite(rssi) || rssi > -30) return -1;
  for (const [floor, quality] of WIFI_STEPS) if (rssi >= floor) return quality;
  return 0;
}

export function signalQualityLabel(quality: number | undefined): SignalLabel {
  if (typeof quality !== 'number' || quality < 0 || quality > 9) return 'Invalid or Unknown';
  if (quality <= 2) return 'Poor';
  if (quality <= 4) return 'Low';
  if (quality <= 7) return 'Good';
  return 'Excellent';
}

const DBM_GUIDE: Record<'3G' | '4G' | 'wifi', [number, number, number]> = {
  // Excellent, Good, Low thresholds (greater or equal); anything lower is Poor.
  '3G': [-89, -95, -101],
  '4G': [-65, -75, -95],
  wifi: [-40, -55, -70],
};

/** The rough guide of spec 2.3 for `comms.signalQualityDbm`; 0 (and -1 on old 6MW firmware) means unknown. */
export function dbmLabel(dbm: number | undefined, mode: string | undefined): SignalLabel {
  if (typeof dbm !== 'number' || dbm >= 0 || dbm === -1) return 'Invalid or Unknown';
  const key = mode === '3G' ? '3G' : mode === 'wifi' ? 'wifi' : '4G';
  const [excellent, good, low] = DBM_GUIDE[key];
  if (dbm >= excellent) return 'Excellent';
  if (dbm >= good) return 'Good';
  if (dbm >= low) return 'Low';
  return 'Poor';
}
