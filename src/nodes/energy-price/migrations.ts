import { fillMissing, numbersFromText, steps, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-price`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: steps(
      fillMissing({ source: 'amber', baseUrl: '', siteId: '', resolution: 30, ahead: 24, timezone: '', poll: true }),
      numbersFromText(['resolution', 'ahead']),
    ),
  },
];
