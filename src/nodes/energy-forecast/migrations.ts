import { fillMissing, numbersFromText, steps, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-forecast`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: steps(
      fillMissing({
        source: 'forecast.solar', baseUrl: '', latitude: '', longitude: '', declination: 20, azimuth: 0, kwp: '', siteId: '', lossFactor: 0.85,
        resolution: 60, interval: 0, timezone: '', calibrate: false, deviceId: '', solarChannel: '', calibrationDays: 14,
      }),
      numbersFromText(['latitude', 'longitude', 'declination', 'azimuth', 'kwp', 'lossFactor', 'resolution', 'interval', 'solarChannel', 'calibrationDays']),
    ),
  },
];
