import { EnergyApiError, describeValue } from './errors.js';
import { isValidTimezone } from './time.js';
import { GRANULARITIES, type EnergyOptions, type Granularity } from './types.js';

export type QueryParams = Record<string, string | number>;

/** Granularities whose buckets follow the request's timezone; smaller ones are epoch-aligned. */
export function isCalendarGranularity(granularity: Granularity): granularity is 'hour' | 'day' | 'week' | 'month' {
  return granularity === 'hour' || granularity === 'day' || granularity === 'week' || granularity === 'month';
}

/**
 * Query parameters for energy endpoints, refusing the combinations of spec 4.12 before they are sent.
 * `edge` is true for /first and /latest, where only the options (no range) apply.
 */
export function energyOptionParams(options: EnergyOptions, edge: boolean): QueryParams {
  const params: QueryParams = {};
  if (options.convert !== undefined) {
    if (options.convert !== 'kWh' && options.convert !== 'kW') {
      throw EnergyApiError.invalid(`convert must be "kWh" or "kW", not ${describeValue(options.convert)} (one value only)`);
    }
    params['convert[energy]'] = options.convert;
  }
  if (options.timestampOnly) {
    if (!edge) throw EnergyApiError.invalid('timestamp-only results exist only for first/latest queries');
    if (options.convert) throw EnergyApiError.invalid('timestamp-only results cannot be combined with a unit conversion (spec 4.12)');
    if (options.powerFactor) throw EnergyApiError.invalid('timestamp-only results cannot be combined with power factor (spec 4.12)');
    if (options.groupByPhase) throw EnergyApiError.invalid('timestamp-only results cannot be combined with grouping by phase (spec 4.12)');
    params['fields[energy]'] = 'timestamp';
  }
  if (options.powerFactor) {
    if (options.groupByPhase) throw EnergyApiError.invalid('power factor cannot be combined with grouping by phase (spec 4.12)');
    params['fields[energy]'] = '+pf';
  }
  if (options.groupByPhase) params['filter[group]'] = 'phases';
  return params;
}

export function checkGranularity(granularity: unknown): Granularity {
  if (typeof granularity === 'string' && (GRANULARITIES as readonly string[]).includes(granularity)) return granularity as Granularity;
  throw EnergyApiError.invalid(`granularity must be one of ${GRANULARITIES.join(', ')}; got ${describeValue(granularity)}`);
}

/** The timezone a long query needs: required for hour and larger (spec 4.8: the default is unreliable). */
export function checkTimezone(granularity: Granularity, timezone: unknown): string | undefined {
  if (timezone !== undefined && !isValidTimezone(timezone)) {
    throw EnergyApiError.invalid(
      `${describeValue(timezone, 64)} is not a time zone name as the TZ database spells it (the service is case-sensitive: for example Europe/Berlin)`,
    );
  }
  if (isCalendarGranularity(granularity) && !timezone) {
    throw EnergyApiError.invalid(`a timezone is required for ${granularity} granularity (spec 4.8): set the device's timezone or give one`);
  }
  return timezone;
}

/** Latest time the client asks about: 1 Jan 2100. Later times are mistakes (ms for s, 1e20, year 275760). */
export const MAX_TIMESTAMP_S = Date.UTC(2100, 0, 1) / 1000;

/** Refuses anything but two whole unix-second times, in order, before 2100; runs before any planning. */
export function checkTimestamps(fromTs: unknown, toTs: unknown): void {
  for (const [name, value] of [['fromTs', fromTs], ['toTs', toTs]] as const) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw EnergyApiError.invalid(`${name} must be a whole number of unix seconds; got ${describeValue(value)}`);
    }
    if (value > MAX_TIMESTAMP_S) {
      throw EnergyApiError.invalid(`${name} ${value} lies after the year 2100: give unix seconds (not milliseconds) of a real date`);
    }
  }
  if ((toTs as number) <= (fromTs as number)) throw EnergyApiError.invalid(`the range is empty: toTs (${toTs}) must be after fromTs (${fromTs})`);
}

/**
 * Encodes a query string. Bracketed names are sent as written; values are percent-encoded so that
 * `+pf` reaches the service as a plus (`%2Bpf`), not a space.
 */
export function encodeQuery(params: QueryParams): string {
  const parts = Object.entries(params).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
