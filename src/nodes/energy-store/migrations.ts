import { fillMissing, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-store`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: fillMissing({ backend: 'sqlite', file: 'energy.sqlite', url: '', influxApi: 'v1', database: '', org: '', bucket: '', connection: '', retention: 0, queueLimit: 100 }),
  },
];
