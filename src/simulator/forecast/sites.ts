/**
 * The simulator's forecast sites: one for each device with a solar channel, at its city's coordinates moved north
 * by 0.01° per site in fleet order (about 1 km: the sun is the same; two sites of one city are told apart), with a
 * Solcast-style rooftop resource id and the kWp its owner declared.
 */
import { hashText } from '../site/random.js';
import type { SimDevice } from '../types.js';
import { declaredKwp, siteLocation, solarRoleOf } from './model.js';

export interface ForecastSite {
  deviceId: string;
  label: string;
  timezone: string;
  latitude: number;
  longitude: number;
  /** Declination and azimuth as Forecast.Solar and Open-Meteo take them (0 = south, -90 = east, 90 = west). */
  declination: number;
  azimuth: number;
  /** Declared kWp (what the providers are told). */
  kwp: number;
  /** Solcast rooftop resource id: four groups of four hex digits. */
  solcastSiteId: string;
  dev: SimDevice;
}

/** Solcast's rooftop ids look like `abcd-1234-ef56-7890`. */
export function solcastSiteId(deviceId: string): string {
  const hex = (hashText(`solcast:${deviceId}`).toString(16).padStart(8, '0') + hashText(`rooftop:${deviceId}`).toString(16).padStart(8, '0'));
  return hex.match(/.{4}/g)?.join('-') ?? hex;
}

const round4 = (x: number): number => Math.round(x * 10000) / 10000;

export function createForecastSites(devices: Iterable<SimDevice>): ForecastSite[] {
  const sites: ForecastSite[] = [];
  for (const dev of devices) {
    if (!solarRoleOf(dev) || dev.uninitialised || !dev.timezone) continue;
    const loc = siteLocation(dev);
    const north = loc.latitude < 0;
    sites.push({
      deviceId: dev.id, label: dev.label, timezone: dev.timezone, latitude: round4(loc.latitude + 0.01 * sites.length), longitude: round4(loc.longitude),
      // Panels face the equator, tilted about as far as the roof allows.
      declination: 20, azimuth: north ? 180 : 0, kwp: declaredKwp(dev), solcastSiteId: solcastSiteId(dev.id), dev,
    });
  }
  return sites;
}

/** The site nearest to a point, within 0.5° (else undefined: the simulator forecasts only at its sites). */
export function siteNear(sites: readonly ForecastSite[], latitude: number, longitude: number): ForecastSite | undefined {
  let best: ForecastSite | undefined;
  let bestD = 0.5;
  for (const s of sites) {
    const d = Math.hypot(s.latitude - latitude, s.longitude - longitude);
    if (d <= bestD) {
      best = s;
      bestD = d;
    }
  }
  return best;
}

/** What GET /__sim/forecast-sites lists (no device object). */
export function describeSites(sites: readonly ForecastSite[]): Array<Omit<ForecastSite, 'dev'>> {
  return sites.map(({ dev: _dev, ...rest }) => rest);
}
