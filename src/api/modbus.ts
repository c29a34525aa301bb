import type { ModbusEntry } from './types.js';

/** Fields of the known meter models (spec 2.12). Other models pass through unchanged. */
export const MODBUS_METER_FIELDS: Record<string, readonly string[]> = {
  'PMC-340B': ['_Ia', '_Ib', '_Ic', '_PFa', '_PFb', '_PFc', '_Uan', '_Ubn', '_Ucn', 'kVAh', 'kWh_Exp', 'kWh_Imp', 'kWh_Net', 'kWh_Tot',
    'kvarh_Q1', 'kvarh_Q2', 'kvarh_Q3', 'kvarh_Q4', 'kvarh_Exp', 'kvarh_Imp', 'kvarh_Net', 'kvarh_Tot'],
  'PMC-220': ['_I', '_V', '_PF', 'kVAh', 'kWh_Exp', 'kWh_Imp', 'kWh_Net', 'kWh_Tot', 'kvarh_Exp', 'kvarh_Imp', 'kvarh_Net', 'kvarh_Tot'],
};

/** The `kWh_*` and `kvarh_*` counters are stored in units of 0.01 (spec 2.12). */
export function isHundredthCounter(field: string): boolean {
  return field.startsWith('kWh_') || field.startsWith('kvarh_');
}

/** A modbus entry with its counters in kWh and kvarh (value × 0.01); other fields unchanged. */
export function scaleModbusEntry(entry: ModbusEntry): ModbusEntry {
  const scaled: ModbusEntry = { ...entry };
  for (const [field, value] of Object.entries(entry)) {
    if (isHundredthCounter(field) && typeof value === 'number') scaled[field] = Math.round(value) / 100;
  }
  return scaled;
}
