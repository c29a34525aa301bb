import { fillMissing, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-tariff`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape; a tariff saved without some rate lists gets empty ones (no price, no charge).
 */
export const migrations: readonly Migration[] = [
  { version: 1, up: fillMissing({ timezone: '', importRates: [], exportRates: [], supplyCharges: [] }) },
];
