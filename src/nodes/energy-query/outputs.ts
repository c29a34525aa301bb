import type { Device, EnergyConversion, EnergyEntry } from '../../api/index.js';

/** One point for FlowFuse Dashboard 2 `ui-chart` (Series = key `series`, X = key `x`, Y = key `y`). */
export interface ChartPoint {
  series: string;
  /** Unix ms of the END of the period. */
  x: number;
  y: number;
}

/**
 * The field plotted: real power in W (eReal / duration) when not converted,
 * `eRealKwh` (kWh per period) with kWh, `pRealKw` (average kW) with kW.
 */
export function plottedValues(entry: EnergyEntry, convert: EnergyConversion | undefined): Array<number | null> {
  if (convert === 'kWh') return numbers(entry.eRealKwh);
  if (convert === 'kW') return numbers(entry.pRealKw);
  const duration = entry.duration;
  if (typeof duration !== 'number' || duration <= 0) return numbers(entry.eReal).map(() => null);
  return numbers(entry.eReal).map((joules) => (joules === null ? null : joules / duration));
}

function numbers(field: EnergyEntry[string]): Array<number | null> {
  if (!Array.isArray(field)) return [];
  return field.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
}

/** Series names: channel labels (else the channel id), or "<phase> 1", "<phase> 2"… for phase groups. */
export function seriesNames(device: Device | undefined, count: number, grouped: boolean, phaseWord: string): string[] {
  return Array.from({ length: count }, (_, i) => {
    if (grouped) return `${phaseWord} ${i + 1}`;
    const channel = device?.channels?.[i];
    return channel?.label || channel?.id || `C${i + 1}`;
  });
}

/** Chart points of every entry, oldest first, one series per channel or phase group; null values are left out. */
export function chartPoints(entries: EnergyEntry[], convert: EnergyConversion | undefined, names: (count: number) => string[]): ChartPoint[] {
  const points: ChartPoint[] = [];
  for (const entry of entries) {
    const values = plottedValues(entry, convert);
    const labels = names(values.length);
    values.forEach((y, i) => {
      if (y !== null) points.push({ series: labels[i], x: entry.timestamp * 1000, y });
    });
  }
  return points;
}

