// Import and export energy of the chosen channels in one energy entry, in whole Joules,
// whatever form energy-query delivered it in (Joules, kWh or kW; short or long energy).
import { type EnergyEntry, MAX_TIMESTAMP_S, MsgError } from '../../api/index.js';

export interface GridEnergy {
  /** Unix seconds: the period covered is [start, end); an entry's timestamp is its END. */
  start: number;
  end: number;
  importJ: number;
  exportJ: number;
}

export const KWH_J = 3_600_000;
/**
 * The longest entry priced: a year (366 days and a DST hour), far above the API's longest (a month). The cost
 * is worked out day by day over an entry's period, so a period of millions of days would never end.
 */
export const MAX_ENTRY_S = 366 * 86400 + 3600;

/** Grid energy of each entry; `channels` are 0-based indexes into the entry's per-channel arrays. */
export function gridEnergy(entry: EnergyEntry, channels: number[], position: number): GridEnergy {
  const where = `entry ${position + 1} (timestamp ${String(entry?.timestamp)})`;
  if (typeof entry !== 'object' || entry === null || !Number.isInteger(entry.timestamp)) {
    throw new MsgError(`${where} is not an energy entry: send energy-query's "entries" or "one message per entry" output`);
  }
  if (entry.groupedBy === 'phases') throw new MsgError(`${where} is grouped by phase: the Grid channel cannot be told apart; query without "group channels by phase"`);
  const duration = entry.duration;
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration <= 0) throw new MsgError(`${where} has no duration`);
  if (duration > MAX_ENTRY_S) throw new MsgError(`${where} covers ${Math.round(duration / 86400)} days: an entry of more than a year is not energy-query's`);
  if (entry.timestamp - duration < 0 || entry.timestamp > MAX_TIMESTAMP_S) throw new MsgError(`${where} is outside 1970 to 2100: its timestamp must be unix seconds`);
  const read = readers(entry, duration);
  if (!read) throw new MsgError(`${where} has no real energy (eReal, eRealKwh or pRealKw)`);
  let importJ = 0;
  let exportJ = 0;
  for (const i of channels) {
    const { pos, neg } = read(i, where);
    importJ += pos;
    exportJ += neg;
  }
  return { start: entry.timestamp - duration, end: entry.timestamp, importJ, exportJ };
}

type Reader = (channel: number, where: string) => { pos: number; neg: number };

/** Positive and negative parts per channel: long energy carries both; short energy only the net (split by sign). */
function readers(entry: EnergyEntry, duration: number): Reader | undefined {
  const forms: Array<[string, number]> = [['eReal', 1], ['eRealKwh', KWH_J], ['pRealKw', 1000 * duration]];
  for (const [net, scale] of forms) {
    if (!Array.isArray(entry[net])) continue;
    // eReal → eRealPositive, eRealKwh → eRealPositiveKwh, pRealKw → pRealPositiveKw
    const posName = `${net.slice(0, 5)}Positive${net.slice(5)}`;
    const negName = `${net.slice(0, 5)}Negative${net.slice(5)}`;
    return (i, where) => {
      const value = (name: string): number | undefined => {
        const arr = entry[name];
        if (!Array.isArray(arr)) return undefined;
        if (i >= arr.length) throw new MsgError(`${where}: channel ${i + 1} is not in the entry (it has ${arr.length})`);
        const v = arr[i];
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new MsgError(`${where}: ${name} of channel ${i + 1} is not a number`);
        return Math.round(v * scale);
      };
      const pos = value(posName);
      const neg = value(negName);
      if (pos !== undefined && neg !== undefined) return { pos: Math.max(pos, 0), neg: Math.abs(neg) };
      const n = value(net) as number;
      return { pos: Math.max(n, 0), neg: Math.max(-n, 0) };
    };
  }
  return undefined;
}
