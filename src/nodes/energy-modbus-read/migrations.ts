import { fillMissing, numbersFromText, steps, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-modbus-read`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the 0.1 shape, with what a 0.1 flow may lack filled in with 0.1's defaults and numbers saved as numbers.
 */
export const migrations: readonly Migration[] = [
  { version: 1, up: steps(fillMissing({ deviceId: '', query: 'range', fromTs: '-24h', toTs: 'now', scale: 'units' }), numbersFromText([])) },
];
