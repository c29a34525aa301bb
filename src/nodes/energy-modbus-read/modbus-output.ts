import { isHundredthCounter, MODBUS_METER_FIELDS, scaleModbusEntry, type ModbusEntry } from '../../api/index.js';
import type { ModbusScale } from './modbus-input.js';

/** A stretch of the range read from one meter model. */
export interface MeterSegment {
  model: string;
  /** Timestamp of the segment's first entry (unix seconds). */
  from: number;
  /** Timestamp of the segment's last entry (unix seconds). */
  to: number;
  fields: string[];
}

export const UNKNOWN_MODEL = 'unknown';
/** Unit text for fields whose unit the API does not document (currents, voltages, power factors, kVAh). */
export const AS_STORED = 'as stored';

function fieldsOf(model: string, entry: ModbusEntry): string[] {
  const known = MODBUS_METER_FIELDS[model];
  if (known) return [...known];
  return Object.keys(entry).filter((field) => field !== 'model' && field !== 'timestamp').sort();
}

/** Consecutive runs of one meter model, oldest first: more than one means the meter changed in the range. */
export function meterSegments(entries: readonly ModbusEntry[]): MeterSegment[] {
  const segments: MeterSegment[] = [];
  for (const entry of entries) {
    const model = typeof entry.model === 'string' && entry.model ? entry.model : UNKNOWN_MODEL;
    const last = segments[segments.length - 1];
    if (last && last.model === model) {
      last.to = entry.timestamp;
      continue;
    }
    segments.push({ model, from: entry.timestamp, to: entry.timestamp, fields: fieldsOf(model, entry) });
  }
  return segments;
}

export function scaleEntries(entries: readonly ModbusEntry[], scale: ModbusScale): ModbusEntry[] {
  return scale === 'units' ? entries.map(scaleModbusEntry) : [...entries];
}

/** Unit of every field in the segments: kWh/kvarh counters scaled, or in 0.01 steps when raw. */
export function fieldUnits(segments: readonly MeterSegment[], scale: ModbusScale): Record<string, string> {
  const units: Record<string, string> = {};
  for (const field of segments.flatMap((segment) => segment.fields)) {
    if (!isHundredthCounter(field)) units[field] = AS_STORED;
    else {
      const unit = field.startsWith('kWh_') ? 'kWh' : 'kvarh';
      units[field] = scale === 'units' ? unit : `0.01 ${unit}`;
    }
  }
  return units;
}
