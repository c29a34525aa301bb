/** The error of a service beside the energy API: the outside services' member of the package's error family. */
import { HttpServiceError, type HttpServiceErrorInit } from './http-error.js';

export interface OutsideServiceErrorInit extends HttpServiceErrorInit {
  /** Who answered (or did not): "Amber", "Forecast.Solar", "Solcast", "Open-Meteo". */
  provider: string;
  /**
   * INVALID_REQUEST (refused here, not sent: a plain-http address elsewhere, no key, a bad site id); NETWORK, TIMEOUT,
   * ABORTED (nothing came back); RATE_LIMITED (the provider's limit is spent: nothing was sent); TOO_MANY_REQUESTS (a
   * 429); HTTP_<status> (another refusal); BAD_RESPONSE (an answer that cannot be read).
   */
  code: string;
}

/**
 * A price or forecast service beside the energy API (Amber, Forecast.Solar, Solcast, Open-Meteo) failed, refused or
 * could not be reached. It carries the request's fields as an EnergyApiError does, so a flow reads
 * `msg.apiError.status`, `code` and `rateLimit` the same way, and `provider` says which service it was.
 */
export class OutsideServiceError extends HttpServiceError {
  readonly side = 'outside';
  readonly provider: string;

  constructor(init: OutsideServiceErrorInit) {
    super(init);
    this.provider = init.provider;
  }

  /** A request refused here, never sent (the code the energy API client gives its own refusals). */
  static invalid(provider: string, message: string): OutsideServiceError {
    return new OutsideServiceError({ provider, code: 'INVALID_REQUEST', message, sent: false });
  }

  protected ownFields(): Record<string, unknown> {
    return { provider: this.provider };
  }
}
