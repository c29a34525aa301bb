/** Where a site is (from its timezone's city) and how high the sun stands there. */

export interface Location {
  latitude: number;
  longitude: number;
}

const CITIES: Record<string, Location> = {
  'Australia/Sydney': { latitude: -33.87, longitude: 151.21 },
  'Australia/Melbourne': { latitude: -37.81, longitude: 144.96 },
  'Australia/Brisbane': { latitude: -27.47, longitude: 153.03 },
  'Australia/Adelaide': { latitude: -34.93, longitude: 138.6 },
  'Australia/Perth': { latitude: -31.95, longitude: 115.86 },
  'Australia/Hobart': { latitude: -42.88, longitude: 147.33 },
  'Australia/Darwin': { latitude: -12.46, longitude: 130.84 },
  'Pacific/Auckland': { latitude: -36.85, longitude: 174.76 },
  'Europe/Berlin': { latitude: 52.52, longitude: 13.4 },
  'Europe/London': { latitude: 51.51, longitude: -0.13 },
  'Europe/Paris': { latitude: 48.86, longitude: 2.35 },
  'America/New_York': { latitude: 40.71, longitude: -74.01 },
  'America/Los_Angeles': { latitude: 34.05, longitude: -118.24 },
  'Asia/Tokyo': { latitude: 35.68, longitude: 139.69 },
};

/**
 * The timezone's city, or a guess from its UTC offset (15° of longitude per hour) and its
 * area (southern hemisphere for Australia, Pacific, Antarctica; northern otherwise).
 */
export function locationOf(zone: string | undefined, offsetMinutes: number): Location {
  if (zone !== undefined && CITIES[zone]) return CITIES[zone];
  const south = zone !== undefined && /^(Australia|Pacific|Antarctica)\//.test(zone);
  return { latitude: south ? -33 : 45, longitude: Math.max(-180, Math.min(180, offsetMinutes / 4)) };
}

const RAD = Math.PI / 180;
const DAY = 86400;

/** Sine of the sun's elevation at unix time t (negative at night). */
export function sunSine(loc: Location, t: number): number {
  const dayOfYear = Math.floor(t / DAY) % 365.2422;
  const declination = 23.44 * RAD * Math.sin((2 * Math.PI * (284 + dayOfYear)) / 365);
  const solarHours = ((t % DAY) / 3600 + loc.longitude / 15 + 48) % 24;
  const hourAngle = (solarHours - 12) * 15 * RAD;
  const lat = loc.latitude * RAD;
  return Math.sin(lat) * Math.sin(declination) + Math.cos(lat) * Math.cos(declination) * Math.cos(hourAngle);
}

/** 0 in midwinter, 1 in midsummer at the site (by hemisphere). */
export function summerness(loc: Location, t: number): number {
  const dayOfYear = (t / DAY) % 365.2422;
  // Northern midsummer is around day 172 of the year counted from 1 January 1970 (a year boundary).
  const north = 0.5 + 0.5 * Math.cos((2 * Math.PI * (dayOfYear - 172)) / 365.2422);
  return loc.latitude >= 0 ? north : 1 - north;
}
