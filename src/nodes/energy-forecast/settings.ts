import { isValidTimezone } from '../../api/index.js';
import { ConfigError } from '../../api/error-family.js';
import { SOLCAST_PER_DAY } from '../../domain/forecast/solcast.js';
import { DEFAULT_URLS } from '../../domain/forecast/sources.js';
import { FORECAST_SOURCES, type ForecastSource, type SourceSettings } from '../../domain/forecast/types.js';

/** The node's properties as the editor saves them (numbers may arrive as text). */
export interface EnergyForecastDef {
  source?: string;
  baseUrl?: string;
  latitude?: string | number;
  longitude?: string | number;
  declination?: string | number;
  azimuth?: string | number;
  kwp?: string | number;
  siteId?: string;
  dailyLimit?: string | number;
  lossFactor?: string | number;
  resolution?: string | number;
  interval?: string | number;
  timezone?: string;
  calibrate?: boolean;
  deviceId?: string;
  solarChannel?: string | number;
  calibrationDays?: string | number;
}

/** Solcast's polling for a key's daily limit: at most 96 % of it a day, no closer than 15 minutes, 180 by default. */
function solcastPolling(dailyLimit: number): { defaultMin: number; minMin: number; limit: string } {
  const minMin = Math.max(15, Math.ceil(1440 / (0.96 * dailyLimit)));
  return { defaultMin: Math.max(180, minMin), minMin, limit: `${dailyLimit} a day` };
}

/** Each source's polling: the default and the shortest gap (minutes) that stays within its limit. */
export const POLLING: Record<ForecastSource, { defaultMin: number; minMin: number; limit: string }> = {
  // 12 requests an hour on the public plan; the forecast changes at most every 15 minutes.
  'forecast.solar': { defaultMin: 60, minMin: 15, limit: '12 an hour' },
  // 10 requests a UTC day on the hobbyist plan: 8 at the default, 9.6 at most at the shortest gap.
  solcast: solcastPolling(SOLCAST_PER_DAY),
  'open-meteo': { defaultMin: 60, minMin: 15, limit: '10,000 a day' },
};

/** A msg within this long of the last fetch gets the same forecast again (minutes; Solcast: its shortest polling gap). */
const REFRESH_GAP_MIN: Record<Exclude<ForecastSource, 'solcast'>, number> = { 'forecast.solar': 5, 'open-meteo': 1 };

export interface ForecastSettings {
  source: SourceSettings;
  /** Minutes between polls. */
  intervalMin: number;
  /** The shortest gap (minutes) between two requests a msg may ask for. */
  refreshGapMin: number;
  timezone: string;
  calibration?: { deviceId: string; /** 0-based. */ channel: number; days: number };
}

export const hostZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function numberOf(def: EnergyForecastDef, name: keyof EnergyForecastDef, lo: number, hi: number, what: string, fallback?: number): number {
  const raw = def[name];
  const n = raw === undefined || raw === '' ? fallback ?? NaN : Number(raw);
  if (!Number.isFinite(n) || n < lo || n > hi) throw new ConfigError(`${name} must be ${what}, not "${String(raw).slice(0, 20)}"`);
  return n;
}

export function parseSettings(def: EnergyForecastDef, apiKey: string | undefined): ForecastSettings {
  const source = (def.source || 'forecast.solar') as ForecastSource;
  if (!FORECAST_SOURCES.includes(source)) throw new ConfigError(`source must be forecast.solar, solcast or open-meteo, not "${String(def.source).slice(0, 20)}"`);
  const needsPlane = source !== 'solcast';
  const plane = {
    latitude: needsPlane ? numberOf(def, 'latitude', -90, 90, 'a latitude from -90 to 90') : Number(def.latitude) || 0,
    longitude: needsPlane ? numberOf(def, 'longitude', -180, 180, 'a longitude from -180 to 180') : Number(def.longitude) || 0,
    declination: numberOf(def, 'declination', 0, 90, 'a tilt from 0 (flat) to 90 (vertical) degrees', 20),
    azimuth: numberOf(def, 'azimuth', -180, 180, 'an azimuth from -180 to 180 (0 = south, -90 = east, 90 = west)', 0),
    kwp: needsPlane ? numberOf(def, 'kwp', 0.01, 100000, 'the array\'s size in kWp (more than 0)') : Number(def.kwp) || 0,
  };
  const siteId = (def.siteId ?? '').trim();
  if (source === 'solcast') {
    if (!/^[A-Za-z0-9-]{4,64}$/.test(siteId)) throw new ConfigError('no Solcast rooftop site id: enter the resource id Solcast shows for the site (e.g. abcd-1234-ef56-7890)');
    if (!apiKey) throw new ConfigError('no Solcast API key: enter it in the node (a password credential)');
  }
  const lossFactor = numberOf(def, 'lossFactor', 0.1, 1.2, 'a share from 0.1 to 1.2 (0.85: 15 % lost in wiring, inverter, heat and dirt)', 0.85);
  const resolution = Number(def.resolution ?? 60) === 15 ? 15 : 60;
  let polling = POLLING[source];
  let dailyLimit: number | undefined;
  if (source === 'solcast') {
    dailyLimit = numberOf(def, 'dailyLimit', 1, 100000, 'the requests a day the Solcast plan allows (10 on the hobbyist plan)', SOLCAST_PER_DAY);
    if (!Number.isInteger(dailyLimit)) throw new ConfigError('dailyLimit must be a whole number of requests a day');
    polling = solcastPolling(dailyLimit);
  }
  const rawInterval = Number(def.interval);
  const intervalMin = Number.isFinite(rawInterval) && rawInterval > 0 ? rawInterval : polling.defaultMin;
  if (intervalMin < polling.minMin) throw new ConfigError(`interval must be at least ${polling.minMin} minutes for ${source} (its limit: ${polling.limit})`);
  const timezone = (def.timezone ?? '').trim() || hostZone();
  if (!isValidTimezone(timezone)) throw new ConfigError(`"${String(timezone as unknown).slice(0, 64)}" is not a time zone name (e.g. Australia/Sydney, or empty for Node-RED's own)`);
  let calibration: ForecastSettings['calibration'];
  if (def.calibrate === true) {
    const deviceId = (def.deviceId ?? '').trim();
    if (!deviceId) throw new ConfigError('calibration needs the device whose channel measures the panels: enter its device id');
    const channel = numberOf(def, 'solarChannel', 1, 64, 'the solar channel\'s number (1 = the first channel)');
    if (!Number.isInteger(channel)) throw new ConfigError('solarChannel must be a whole channel number');
    const days = numberOf(def, 'calibrationDays', 3, 31, 'a whole number of days from 3 to 31', 14);
    calibration = { deviceId, channel: channel - 1, days: Math.round(days) };
  }
  return {
    source: { source, baseUrl: (def.baseUrl ?? '').trim() || DEFAULT_URLS[source], plane, siteId, apiKey, dailyLimit, lossFactor, resolutionMin: resolution },
    intervalMin,
    refreshGapMin: source === 'solcast' ? polling.minMin : REFRESH_GAP_MIN[source],
    timezone,
    calibration,
  };
}

/** Requests a day the node's own polling makes to its source. */
export function pollsPerDay(intervalMin: number): number {
  return Math.ceil(1440 / intervalMin);
}
