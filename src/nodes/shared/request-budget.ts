import { EnergyApiError } from '../../api/index.js';
import { describeValue } from './msg-guard.js';

/**
 * What one msg may cost. A range is split into requests of at most the API's span each; the count
 * is worked out here from the span alone, before anything is planned, so an absurd range (year
 * 275760, `fromTs: 0` on 5-minute data) is refused at once instead of being planned request by request.
 */

/** A year of 5-minute long energy takes 53 requests; a month of short energy 62. */
export const DEFAULT_MAX_REQUESTS = 100;

/** The node's `maxRequests` property: a whole number of at least 1, the default when empty. */
export function maxRequestsOf(def: { maxRequests?: unknown }): number {
  const raw = def.maxRequests;
  if (raw === undefined || raw === null || raw === '') return DEFAULT_MAX_REQUESTS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw EnergyApiError.invalid(`the node's maxRequests must be a whole number of 1 or more, not ${describeValue(raw)}`);
  }
  return value;
}

/** Requests `[fromTs, toTs)` takes at `maxSpanS` per request, counted from `earliest` (data before it is not asked for). */
export function requestsFor(fromTs: number, toTs: number, maxSpanS: number, earliest = -Infinity): number {
  const span = toTs - Math.max(fromTs, earliest);
  if (!Number.isFinite(span)) return Infinity;
  return span <= 0 ? 0 : Math.ceil(span / maxSpanS);
}

/** Refuses a msg whose range needs more requests than the node's maxRequests allows. */
export function assertWithinBudget(requests: number, maxRequests: number, spanLabel: string): void {
  if (requests <= maxRequests) return;
  const count = Number.isFinite(requests) && requests < 1e9 ? `about ${requests}` : 'an unbounded number of';
  throw EnergyApiError.invalid(
    `this range needs ${count} requests (at most ${spanLabel} each), more than the node's maxRequests (${maxRequests}): ` +
      'narrow the range, use a coarser granularity or raise maxRequests',
  );
}
