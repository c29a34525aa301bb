/**
 * What each channel of a site measures, and the power of the loads that need no history
 * (everything except the switched and thermostat loads, which day.ts steps through time).
 */
import { between, noise } from './random.js';
import { temperatureAt, type DayWeather } from './weather.js';

export type ChannelRole =
  /** Import positive, export negative: the sum of the site's load channels minus its solar channels. */
  | { kind: 'grid' }
  /**
   * What the panels make (positive); with `switchIndex`, only while that switch is closed. `declaredKwp`: what the
   * owner told the forecast providers, when it is not what the array gives (`kwp`).
   */
  | { kind: 'solar'; kwp: number; switchIndex?: number; declaredKwp?: number }
  /** A home's lighting and power: base load, fridge, cooking peaks, lights, air conditioning. */
  | { kind: 'house'; scale: number }
  | { kind: 'aircon'; kw: number; business: boolean }
  | { kind: 'lighting'; watts: number; business: boolean }
  | { kind: 'oven'; watts: number; business: boolean }
  /** General power of an office or workshop: business hours on weekdays. */
  | { kind: 'business'; watts: number }
  /** One phase of a feeder: a mix of homes and businesses. */
  | { kind: 'feeder'; kw: number }
  /** Without `switchIndex` the pump runs on its own timer. */
  | { kind: 'pool'; watts: number; switchIndex?: number }
  /** With a thermostat; without `switchIndex`, enabled by an off-peak timer. */
  | { kind: 'hotwater'; watts: number; switchIndex?: number }
  /** Draws only while plugged in and not full (and its switch closed). */
  | { kind: 'ev'; watts: number; switchIndex?: number }
  | { kind: 'none' };

/** Reactive per real energy (tan φ) of each kind of load. */
export const REACTIVE_RATIO: Record<ChannelRole['kind'], number> = {
  grid: 0, solar: 0.05, house: 0.33, aircon: 0.45, lighting: 0.3, oven: 0.04, business: 0.4, feeder: 0.35,
  pool: 0.75, hotwater: 0.02, ev: 0.12, none: 0,
};

/** Everything a load shape needs to know about the moment. */
export interface Moment {
  seed: number;
  site: number;
  /** 5-minute record number since 1970. */
  record: number;
  localDay: number;
  /** Local hour, 0..24. */
  hour: number;
  weekend: boolean;
  weather: DayWeather;
  /** Sine of the sun's elevation. */
  sun: number;
}

const inWindow = (hour: number, from: number, to: number): boolean => hour >= from && hour < to;
const dayNoise = (m: Moment, salt: number): number => noise(m.seed, m.site ^ salt, m.localDay);
const recordNoise = (m: Moment, salt: number): number => noise(m.seed, m.site ^ salt, m.record);

/** Heating or cooling power (W) of an air conditioner at the moment's temperature while occupied. */
function airConditioning(m: Moment, kw: number, business: boolean): number {
  const occupied = business ? !m.weekend && inWindow(m.hour, 7, 18) : inWindow(m.hour, 6, 23.5);
  if (!occupied) return 0;
  const t = temperatureAt(m.weather, m.hour);
  const want = t > 25 ? 380 * (t - 24) : t < 14 && (business || inWindow(m.hour, 6, 9) || inWindow(m.hour, 17, 23)) ? 260 * (16 - t) : 0;
  return Math.min(kw * 1000, want) * (0.9 + 0.1 * recordNoise(m, 0xac));
}

function cooking(m: Moment, watts: number): number {
  const start = 17.25 + 0.9 * dayNoise(m, 0xc0);
  const length = 0.75 + 0.75 * dayNoise(m, 0xc1);
  let p = inWindow(m.hour, start, start + length) ? watts * between(recordNoise(m, 0xc2), 0.55, 1) : 0;
  // Kettle and toaster in the morning.
  if (inWindow(m.hour, 6.5 + 0.5 * dayNoise(m, 0xc3), 8.25) && recordNoise(m, 0xc4) < 0.3) p += 1800;
  return p;
}

function homeLights(m: Moment, watts: number): number {
  const dark = m.sun < 0.08;
  return dark && (inWindow(m.hour, 6, 8) || inWindow(m.hour, 17, 23.5)) ? watts : 0.04 * watts;
}

function house(m: Moment, scale: number): number {
  const base = 170 + 70 * dayNoise(m, 0xb0);
  const fridge = (m.record + Math.floor(9 * dayNoise(m, 0xb1))) % 9 < 3 ? 110 : 0;
  const morning = inWindow(m.hour, 6.5, 8.5) ? 300 : 0;
  const evening = inWindow(m.hour, 18.5, 23) ? 160 : 0;
  const weekendDay = m.weekend && inWindow(m.hour, 9, 17) ? 250 * dayNoise(m, 0xb2) : 0;
  const p = base + fridge + morning + evening + weekendDay + cooking(m, 2000) + homeLights(m, 220) + airConditioning(m, 2.5, false);
  return scale * p * (0.94 + 0.12 * recordNoise(m, 0xb3));
}

function businessHours(m: Moment): boolean {
  return !m.weekend && inWindow(m.hour, 7.5 + 0.5 * dayNoise(m, 0xd0), 17.5 + dayNoise(m, 0xd1));
}

/** Power (W) of a channel whose draw needs no history; 0 for the kinds day.ts steps itself. */
export function statelessPower(role: ChannelRole, m: Moment): number {
  switch (role.kind) {
    case 'house': return house(m, role.scale);
    case 'aircon': return airConditioning(m, role.kw, role.business);
    case 'lighting':
      if (!role.business) return homeLights(m, role.watts);
      return businessHours(m) ? role.watts * (0.9 + 0.1 * recordNoise(m, 0xe0)) : 0.08 * role.watts;
    case 'oven':
      if (!role.business) return cooking(m, role.watts);
      return !m.weekend && inWindow(m.hour, 11, 13.5) ? role.watts * between(recordNoise(m, 0xe1), 0.5, 1) : 0;
    case 'business':
      return role.watts * (businessHours(m) ? 0.75 + 0.25 * recordNoise(m, 0xe2) : 0.22 + 0.04 * recordNoise(m, 0xe3));
    case 'feeder': {
      const shape = 0.5 + (businessHours(m) ? 0.3 : 0) + (inWindow(m.hour, 17, 22) ? 0.25 : 0) + airConditioning(m, 0.3, false) / 1000;
      return role.kw * 1000 * shape * (0.95 + 0.1 * recordNoise(m, 0xe4));
    }
    case 'pool': {
      const hours = 3 + 5 * summerOf(m);
      return inWindow(m.hour, 10, 10 + hours) ? role.watts * (0.97 + 0.06 * recordNoise(m, 0xe5)) : 0;
    }
    default: return 0;
  }
}

/** Warm days are summer days for the pool's timer. */
function summerOf(m: Moment): number {
  return Math.max(0, Math.min(1, (m.weather.maxC - 14) / 16));
}

/** Clear-sky share times cloud (from the caller) gives the panels' output; 0 with the sun down. */
export function solarClearSky(kwp: number, sun: number): number {
  return sun <= 0 ? 0 : kwp * 1000 * 0.82 * sun ** 1.15;
}

/** Timers the switched loads followed before the simulator started (so history looks lived in). */
export function historicSchedule(role: ChannelRole, hour: number): boolean {
  switch (role.kind) {
    case 'hotwater': return inWindow(hour, 10, 16);
    case 'pool': return inWindow(hour, 10, 15);
    case 'ev': return inWindow(hour, 10, 15) || hour >= 22 || hour < 5;
    default: return true;
  }
}

export const isLoad = (role: ChannelRole): boolean => role.kind !== 'grid' && role.kind !== 'solar' && role.kind !== 'none';
