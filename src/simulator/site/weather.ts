/** Day-to-day weather of a site: clear, broken cloud or cloudy, and the temperature it brings. */
import { between, noise } from './random.js';
import { summerness, type Location } from './sun.js';

export type Sky = 'clear' | 'broken cloud' | 'cloudy';

export interface DayWeather {
  sky: Sky;
  /** Highest and lowest temperature of the day (°C). */
  maxC: number;
  minC: number;
}

const SALT = 0x5eed;

/** Weather of the local day `localDay` (days since 1970 in local time); `t` is a time in that day. */
export function weatherOf(seed: number, site: number, loc: Location, localDay: number, t: number): DayWeather {
  const summer = summerness(loc, t);
  const u = noise(seed, site ^ SALT, localDay);
  // Summer is clearer than winter.
  const clearChance = 0.35 + 0.2 * summer;
  const sky: Sky = u < clearChance ? 'clear' : u < clearChance + 0.33 ? 'broken cloud' : 'cloudy';
  const tropics = 1 - Math.min(1, Math.abs(loc.latitude) / 60);
  const meanMax = 12 + 14 * summer + 10 * tropics;
  const skyShift = sky === 'clear' ? 2.5 : sky === 'cloudy' ? -3 : 0;
  const maxC = meanMax + skyShift + between(noise(seed, site ^ SALT, localDay, 1), -4, 6);
  const minC = maxC - (sky === 'cloudy' ? 5 : 10) + between(noise(seed, site ^ SALT, localDay, 2), -2, 2);
  return { sky, maxC, minC };
}

/** Temperature at local hour h (0..24): coldest near sunrise, warmest mid-afternoon. */
export function temperatureAt(w: DayWeather, hour: number): number {
  const phase = Math.cos((2 * Math.PI * (hour - 15)) / 24);
  return w.minC + ((w.maxC - w.minC) * (phase + 1)) / 2;
}

/** Share of clear-sky solar that reaches the panels in one 5-minute record. */
export function cloudFactor(seed: number, site: number, w: DayWeather, record: number): number {
  const n = noise(seed, site ^ SALT, record, 3);
  if (w.sky === 'clear') return 0.96 + 0.04 * n;
  if (w.sky === 'cloudy') return 0.14 + 0.18 * noise(seed, site ^ SALT, Math.floor(record / 6), 4) + 0.04 * n;
  // Broken cloud: sun with clouds passing for a few records at a time.
  const passing = noise(seed, site ^ SALT, Math.floor(record / 3), 5) < 0.45;
  return passing ? 0.25 + 0.3 * n : 0.85 + 0.15 * n;
}
