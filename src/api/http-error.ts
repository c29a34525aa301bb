/** What the errors of every HTTP service the package talks to carry: the request's fields, written once. */
import { PackageError } from './error-family.js';

export interface RateLimitFacts {
  limit?: number;
  remaining?: number;
  /** Unix seconds. */
  resetAt?: number;
  retryAfterSeconds?: number;
  /** `tps`, `tpd`, or `server` for a bare 429 (server-wide limiting). */
  scope?: 'tps' | 'tpd' | 'server';
}

export interface HttpServiceErrorInit {
  code: string;
  message: string;
  /** HTTP status from the status line; 0 when no response was received. */
  status?: number;
  /** Whether the request reached the service. False for refusals made here. */
  sent?: boolean;
  /** The service's own words (never a key). */
  apiMessage?: string;
  rateLimit?: RateLimitFacts;
  method?: string;
  /** Path only (never the address's credentials, never headers or a key). */
  path?: string;
  cause?: unknown;
}

/**
 * The base of the errors of HTTP services: the energy API (EnergyApiError) and the services beside it
 * (OutsideServiceError). A flow reads `msg.apiError.status`, `code`, `apiMessage`, `rateLimit`, `method` and `path` the
 * same way whichever service failed; each kind adds its own fields to `toJSON()` with `ownFields()`.
 */
export abstract class HttpServiceError extends PackageError {
  readonly status: number;
  readonly sent: boolean;
  readonly apiMessage?: string;
  readonly rateLimit?: RateLimitFacts;
  readonly method?: string;
  readonly path?: string;

  constructor(init: HttpServiceErrorInit) {
    super(init.code, init.message, { cause: init.cause });
    this.status = init.status ?? 0;
    this.sent = init.sent ?? this.status > 0;
    this.apiMessage = init.apiMessage;
    this.rateLimit = init.rateLimit;
    this.method = init.method;
    this.path = init.path;
  }

  /** The fields of `msg.apiError` that only this kind has (who answered, the broken rules), placed after `code`. */
  protected abstract ownFields(): Record<string, unknown>;

  /** Plain data for a Node-RED msg (`msg.apiError`) without the stack or the cause. */
  override toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      ...this.ownFields(),
      apiMessage: this.apiMessage,
      rateLimit: this.rateLimit,
      method: this.method,
      path: this.path,
    };
  }
}

export function isHttpServiceError(err: unknown): err is HttpServiceError {
  return err instanceof HttpServiceError;
}
