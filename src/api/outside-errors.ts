/** The error of a service beside the energy API: the outside services' member of the package's error family. */
import { PackageError } from './error-family.js';
import type { RateLimitFacts } from './errors.js';

export interface OutsideServiceErrorInit {
  /** Who answered (or did not): "Amber", "Forecast.Solar", "Solcast", "Open-Meteo". */
  provider: string;
  /**
   * INVALID_REQUEST (refused here, not sent: a plain-http address elsewhere, no key, a bad site id); NETWORK, TIMEOUT,
   * ABORTED (nothing came back); RATE_LIMITED (the provider's limit is spent: nothing was sent); TOO_MANY_REQUESTS (a
   * 429); HTTP_<status> (another refusal); BAD_RESPONSE (an answer that cannot be read).
   */
  code: string;
  message: string;
  /** HTTP status from the status line; 0 when no response was received. */
  status?: number;
  /** Whether the request reached the service. */
  sent?: boolean;
  /** The service's own words, the key taken out. */
  apiMessage?: string;
  rateLimit?: RateLimitFacts;
  method?: string;
  /** Path only (never the address's credentials, never a key). */
  path?: string;
}

/**
 * A price or forecast service beside the energy API (Amber, Forecast.Solar, Solcast, Open-Meteo) failed, refused or
 * could not be reached. It carries what such a service has of an EnergyApiError's fields, so a flow reads
 * `msg.apiError.status`, `code` and `rateLimit` the same way, and `provider` says which service it was.
 */
export class OutsideServiceError extends PackageError {
  readonly side = 'outside';
  readonly provider: string;
  readonly status: number;
  readonly sent: boolean;
  readonly apiMessage?: string;
  readonly rateLimit?: RateLimitFacts;
  readonly method?: string;
  readonly path?: string;

  constructor(init: OutsideServiceErrorInit) {
    super(init.code, init.message);
    this.provider = init.provider;
    this.status = init.status ?? 0;
    this.sent = init.sent ?? this.status > 0;
    this.apiMessage = init.apiMessage;
    this.rateLimit = init.rateLimit;
    this.method = init.method;
    this.path = init.path;
  }

  /** A request refused here, never sent (the code the energy API client gives its own refusals). */
  static invalid(provider: string, message: string): OutsideServiceError {
    return new OutsideServiceError({ provider, code: 'INVALID_REQUEST', message, sent: false });
  }

  override toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      provider: this.provider,
      apiMessage: this.apiMessage,
      rateLimit: this.rateLimit,
      method: this.method,
      path: this.path,
    };
  }
}
