/** The one forecast shape of the package, and what a forecast source needs to be asked. */

/** One period of a solar forecast: unix seconds, mean power in W, optional pessimistic and optimistic estimates. */
export interface ForecastPeriod {
  start: number;
  end: number;
  power: number;
  p10?: number;
  p90?: number;
}

export type ForecastSource = 'forecast.solar' | 'solcast' | 'open-meteo';

export const FORECAST_SOURCES: readonly ForecastSource[] = ['forecast.solar', 'solcast', 'open-meteo'];

/** A plane of panels and where it is. Azimuth as Forecast.Solar and Open-Meteo take it: 0 = south, -90 = east, 90 = west, ±180 = north. */
export interface Plane {
  latitude: number;
  longitude: number;
  /** Tilt from horizontal, 0..90°. */
  declination: number;
  azimuth: number;
  kwp: number;
}

export interface SourceSettings {
  source: ForecastSource;
  /** The provider's base address (the simulator's in tests and examples). */
  baseUrl: string;
  plane: Plane;
  /** Solcast: the rooftop site's resource id and the API key. */
  siteId?: string;
  apiKey?: string;
  /** Solcast: the requests a UTC day the key's plan allows (10 on the hobbyist plan; older accounts have 50). */
  dailyLimit?: number;
  /** Open-Meteo: share of the plane irradiance × kWp the array delivers (wiring, inverter, heat, dirt). */
  lossFactor: number;
  /** Open-Meteo: 60 (hourly) or 15 (minutely_15) minutes. */
  resolutionMin: 15 | 60;
}

/** A forecast as read from a source: its periods in time order, and how many it could not read (null, NaN). */
export interface ReadForecast {
  periods: ForecastPeriod[];
  /** Periods the source gave without a usable value: left out, never taken as 0. */
  gaps: number;
}
