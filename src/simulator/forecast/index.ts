/**
 * Forecasts of the simulator's sites for benches and tests without HTTP: the same numbers the simulator's
 * Forecast.Solar, Solcast and Open-Meteo compatible endpoints serve (docs/forecast.md).
 */
import { createFleet } from '../fleet.js';
import type { SimDevice } from '../types.js';
import { actualSolar, declaredKwp, forecastFor, type ForecastOptions, type ForecastPeriod } from './model.js';

export { actualSolar, declaredKwp, forecastFor, siteLocation, type ForecastOptions, type ForecastPeriod } from './model.js';

const fleets = new Map<number, Map<string, SimDevice>>();

function deviceOf(deviceId: string, seed: number): SimDevice {
  let fleet = fleets.get(seed);
  if (!fleet) {
    fleet = new Map(createFleet({ seed, since: 0 }).map((d) => [d.id, d]));
    fleets.set(seed, fleet);
  }
  const dev = fleet.get(deviceId);
  if (!dev) throw new Error(`the simulator has no device ${deviceId}`);
  return dev;
}

/** The forecast of a fixed-fleet device's array (its declared kWp unless `kwp`), for the simulator's `seed` (default 1). */
export function simulatedForecast(deviceId: string, issuedAt: number, horizonHours: number, options: ForecastOptions & { seed?: number } = {}): ForecastPeriod[] {
  return forecastFor(deviceOf(deviceId, options.seed ?? 1), issuedAt, horizonHours, options);
}

/** What the device's array really gave over [start, end) as mean power (W). */
export function simulatedSolar(deviceId: string, start: number, end: number, seed = 1): number {
  return actualSolar(deviceOf(deviceId, seed), start, end);
}

/** The kWp a fixed-fleet device's owner declared to the forecast providers. */
export function simulatedDeclaredKwp(deviceId: string, seed = 1): number {
  return declaredKwp(deviceOf(deviceId, seed));
}
