/** The one error type for everything that fails in the client: the service's member of the package's error family. */
import { HttpServiceError, type HttpServiceErrorInit } from './http-error.js';

export interface ApiErrorDetail {
  code: string;
  httpCode?: number;
  message: string;
}

/**
 * Error codes the client raises itself, before or instead of a request:
 * - INVALID_REQUEST: the request breaks a rule of the spec and was not sent.
 * - DAILY_LIMIT: the key's daily budget is spent; nothing was sent.
 * - NETWORK: the service could not be reached (after retries).
 * - TIMEOUT: no answer in time (after retries).
 * - ABORTED: the caller cancelled (node closed or redeployed).
 * - BAD_RESPONSE: the service answered with something that is not the documented JSON.
 * - REQUEST_BUDGET: one call would need more requests than its `maxRequests` allows; nothing was planned or sent.
 * Codes from the service (BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_PERMITTED, NOT_FOUND,
 * UNPROCESSABLE_ENTITY, TOO_MANY_REQUESTS_TPS/TPD, INTERNAL_SERVER_ERROR) are kept as sent,
 * except that `UNPROCESSABLE ENTITY` (with a space) is normalised to the underscore form.
 */
export type ClientErrorCode = 'INVALID_REQUEST' | 'DAILY_LIMIT' | 'NETWORK' | 'TIMEOUT' | 'ABORTED' | 'BAD_RESPONSE' | 'REQUEST_BUDGET';

export interface EnergyApiErrorInit extends HttpServiceErrorInit {
  /** PATCH multi-error list (spec 7.2), or the field errors of local validation. */
  errors?: ApiErrorDetail[];
}

export class EnergyApiError extends HttpServiceError {
  readonly side = 'service';
  readonly errors: ApiErrorDetail[];

  constructor(init: EnergyApiErrorInit) {
    super(init);
    this.name = 'EnergyApiError';
    this.errors = init.errors ?? [];
  }

  /** A local refusal: the request breaks a rule of the spec and is never sent. */
  static invalid(message: string, errors: ApiErrorDetail[] = []): EnergyApiError {
    return new EnergyApiError({ code: 'INVALID_REQUEST', message, errors, sent: false });
  }

  protected ownFields(): Record<string, unknown> {
    return { errors: this.errors.length ? this.errors : undefined };
  }
}

export function isEnergyApiError(err: unknown): err is EnergyApiError {
  return err instanceof EnergyApiError;
}

/** Names a key by its last 5 characters only (spec 5.5). */
export function describeKey(apiKey: string | undefined): string {
  if (!apiKey) return '(no key)';
  return `…${apiKey.slice(-5)}`;
}

/** Removes every occurrence of the key from a text, keeping its last 5 characters. */
export function redactKey(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 6) return text;
  return text.split(apiKey).join(describeKey(apiKey));
}

/**
 * Names any value in a message without calling its toString or serialising it, so objects without a
 * prototype, BigInts, symbols and circular values give words instead of a JavaScript error.
 */
export function describeValue(value: unknown, maxChars = 40): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > maxChars ? `${value.slice(0, maxChars)}…` : value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `the BigInt ${value.toString().slice(0, maxChars)}n`;
    case 'undefined':
      return 'nothing (undefined)';
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      if (value === null) return 'null';
      if (Array.isArray(value)) return `an array of ${value.length}`;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : `the Date ${value.toISOString()}`;
      return 'an object';
  }
}
