/** GET /short-energy/{id}[/first|/latest] and /long-energy/{id}[/first|/latest] (spec 4.6 to 4.9). */
import type { Granularity } from '../api/types.js';
import { isGranularity, isValidZone, MAX_SPAN, maxToTs, needsTimezone } from './buckets.js';
import { firstRecordStamp, longEntries, RECORD, SHORT_RETENTION, shortEntries } from './energyRange.js';
import { formatEntry, parseEnergyOptions, type EnergyOptions, type RawEntry } from './energyOptions.js';
import { badRequest, unprocessable } from './errors.js';
import { checkRange, single, timestampParam, type QueryParams } from './query.js';
import { dataEnd } from './reporting.js';
import { noContent, ok, type Reply } from './reply.js';
import type { LongWindow, SimDevice } from './types.js';

const HOUR = 3600;

export type Edge = 'first' | 'latest';

/** Channel indexes per phase group; 422 when grouping is asked of a device without phases. */
function groupIndexes(dev: SimDevice, opts: EnergyOptions): number[][] {
  if (!opts.group) return [];
  if (dev.phasesCount === null || dev.grouping.length === 0) {
    throw unprocessable(`Phase grouping is not configured for device id ${dev.id}`);
  }
  return dev.grouping.map((g) => g.map((id) => dev.channels.findIndex((c) => c.id === id)));
}

function format(dev: SimDevice, entries: RawEntry[], opts: EnergyOptions): Reply {
  const groups = groupIndexes(dev, opts);
  return ok(entries.map((e) => formatEntry(e, opts, groups)));
}

function formatOne(dev: SimDevice, entry: RawEntry | undefined, opts: EnergyOptions): Reply {
  const groups = groupIndexes(dev, opts);
  return entry ? ok(formatEntry(entry, opts, groups)) : noContent();
}

/**
 * The live service's defaults: without fromTs the hour before toTs (or before now); without toTs
 * now when fromTs is more than an hour ago, otherwise fromTs plus an hour.
 */
function shortRange(from: number | undefined, to: number | undefined, now: number): { fromTs: number; toTs: number } {
  if (from === undefined) {
    const toTs = to ?? now;
    return { fromTs: toTs - HOUR, toTs };
  }
  return { fromTs: from, toTs: to ?? (from < now - HOUR ? now : from + HOUR) };
}

export function shortEnergyList(dev: SimDevice, now: number, params: QueryParams, spanLimits = true): Reply {
  const opts = parseEnergyOptions(params, false);
  const nowInt = Math.floor(now);
  const { fromTs, toTs } = shortRange(timestampParam(params, 'fromTs'), timestampParam(params, 'toTs'), nowInt);
  checkRange(fromTs, toTs);
  if (spanLimits && toTs - fromTs > 12 * HOUR) throw unprocessable('The requested time period is greater than 12 hours');
  groupIndexes(dev, opts);
  if (dev.uninitialised) return noContent();
  return format(dev, shortEntries(dev, nowInt, dataEnd(dev, now), fromTs, toTs), opts);
}

export function shortEnergyEdge(dev: SimDevice, now: number, params: QueryParams, edge: Edge): Reply {
  const opts = parseEnergyOptions(params, true);
  groupIndexes(dev, opts);
  if (dev.uninitialised) return noContent();
  const nowInt = Math.floor(now);
  const end = dataEnd(dev, now);
  const iv = dev.interval;
  const earliest = Math.ceil(Math.max(dev.dataStart + iv, nowInt - SHORT_RETENTION) / iv) * iv;
  // Entries can be missing (lost on the way): look a few slots further for the edge.
  const window = 20 * iv;
  const entries = earliest > end
    ? []
    : edge === 'first'
      ? shortEntries(dev, nowInt, end, earliest, earliest + window)
      : shortEntries(dev, nowInt, end, Math.max(earliest, end - window), end + 1);
  return formatOne(dev, edge === 'first' ? entries[0] : entries[entries.length - 1], opts);
}

function granularityParam(params: QueryParams): Granularity {
  const g = single(params, 'granularity') ?? '5m';
  if (!isGranularity(g)) throw badRequest('The granularity value must be one of 5m, 15m, 30m, hour, day, week, month');
  return g;
}

function timezoneParam(params: QueryParams, g: Granularity): string {
  if (!needsTimezone(g)) return 'utc';
  const zone = single(params, 'timezone');
  if (zone === undefined || zone === '') throw badRequest(`The timezone value must be specified for granularity ${g}`);
  if (!isValidZone(zone)) throw badRequest(`The timezone value ${zone} is not a valid TZ database name`);
  return zone;
}

export function longEnergyList(dev: SimDevice, now: number, params: QueryParams, spanLimits = true, window: LongWindow = 'timestamp'): Reply {
  const opts = parseEnergyOptions(params, false);
  const g = granularityParam(params);
  const zone = timezoneParam(params, g);
  const span = MAX_SPAN[g];
  const givenFrom = timestampParam(params, 'fromTs');
  const givenTo = timestampParam(params, 'toTs');
  if (givenFrom === 0 && givenTo !== undefined && givenTo !== 0) throw unprocessable('The provided fromTs or toTs value was invalid');
  // Defaults of the live service: the first record, and the granularity's maximum span after fromTs.
  const fromTs = givenFrom ?? (window === 'timestamp' ? firstRecordStamp(dev) : dev.dataStart);
  const toTs = givenTo ?? maxToTs(fromTs, span.amount, span.unit);
  checkRange(fromTs, toTs);
  if (spanLimits && toTs > maxToTs(fromTs, span.amount, span.unit)) {
    throw unprocessable(`The requested time period is greater than ${span.amount} ${span.unit}`);
  }
  groupIndexes(dev, opts);
  if (dev.uninitialised) return noContent();
  return format(dev, longEntries(dev, dataEnd(dev, now), g, zone, fromTs, toTs, window), opts);
}

export function longEnergyEdge(dev: SimDevice, now: number, params: QueryParams, edge: Edge): Reply {
  const opts = parseEnergyOptions(params, true);
  groupIndexes(dev, opts);
  if (dev.uninitialised) return noContent();
  const end = dataEnd(dev, now);
  if (end <= dev.dataStart) return noContent();
  const lastRecordEnd = Math.floor(end / RECORD) * RECORD;
  if (lastRecordEnd <= dev.dataStart) return noContent();
  // One 5-minute record either way: the one covering [from, from + RECORD).
  const from = edge === 'first' ? dev.dataStart : lastRecordEnd - RECORD;
  const entries = longEntries(dev, end, '5m', 'utc', from, from + RECORD, 'coverage');
  return formatOne(dev, edge === 'first' ? entries[0] : entries[entries.length - 1], opts);
}
