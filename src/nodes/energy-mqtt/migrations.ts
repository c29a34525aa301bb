import type { Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-mqtt`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1 is the first release: nothing to upgrade yet.
 */
export const migrations: readonly Migration[] = [{ version: 1, up: (config) => config }];
