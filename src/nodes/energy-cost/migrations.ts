import { fillMissing, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-cost`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape, with the optional properties an early flow may lack filled in.
 */
export const migrations: readonly Migration[] = [
  { version: 1, up: fillMissing({ tariff: '', api: '', channels: '', timezone: '' }) },
];
