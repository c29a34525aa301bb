// The tariff as price slots in the normaliser's shape, so load control plans on a time-of-use tariff the
// same way it plans on spot prices: one slot per stretch in which neither price can change (cut at local
// midnights, time-of-use edges and DST jumps).
import { Segmenter } from './segments.js';
import type { PricePeriod } from './types.js';
import type { Tariff } from './tariff.js';

/**
 * The tariff's slots over [from, to) in `zone`: `micros` the import price, `exportMicros` the export price
 * (0 without export rows). A stretch the import rows do not cover is left out (no price there).
 */
export function tariffPeriods(tariff: Tariff, zone: string, from: number, to: number): PricePeriod[] {
  if (to <= from || tariff.importPrice.empty) return [];
  const minutes = [...new Set([...tariff.importPrice.changeMinutes(), ...tariff.exportPrice.changeMinutes()])];
  const out: PricePeriod[] = [];
  for (const piece of new Segmenter(zone, minutes, []).segments(from, to)) {
    let micros: number;
    try {
      micros = tariff.importPrice.microsAt(piece.wall);
    } catch {
      continue;
    }
    const exportMicros = tariff.exportPrice.empty ? 0 : safeMicros(() => tariff.exportPrice.microsAt(piece.wall));
    const last = out[out.length - 1];
    if (last && last.end === piece.start && last.micros === micros && last.exportMicros === exportMicros) last.end = piece.end;
    else out.push({ start: piece.start, end: piece.end, micros, exportMicros });
  }
  return out;
}

function safeMicros(read: () => number): number {
  try {
    return read();
  } catch {
    return 0;
  }
}
