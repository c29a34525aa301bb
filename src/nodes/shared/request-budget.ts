import { DEFAULT_MAX_REQUESTS, EnergyApiError } from '../../api/index.js';
import { describeValue } from './msg-guard.js';

/**
 * The node's `maxRequests` property: the most requests one msg may cost (the client's option of the
 * same name, default DEFAULT_MAX_REQUESTS). A whole number of at least 1; the default when empty.
 * Nodes check it with the client's checkPlanCost before reading the device, so an absurd range costs nothing.
 */
export function maxRequestsOf(def: { maxRequests?: unknown }): number {
  const raw = def.maxRequests;
  if (raw === undefined || raw === null || raw === '') return DEFAULT_MAX_REQUESTS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw EnergyApiError.invalid(`the node's maxRequests must be a whole number of 1 or more, not ${describeValue(raw)}`);
  }
  return value;
}
