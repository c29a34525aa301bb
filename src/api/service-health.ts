/**
 * Tells when the service itself is down rather than one request unlucky: many different requests failed in a row
 * (a 5xx, no connection, no answer in time) with no answer from the service in between. A client following a
 * fleet sends hundreds of requests a minute; if each of them were retried six times against a service that is
 * down, an outage would multiply the key's requests sevenfold, at its full rate, for as long as it lasts.
 */
export class ServiceHealth {
  /** Different requests that failed since the service last answered (at most `threshold` kept). */
  private readonly failed = new Set<object>();

  /** `threshold` different requests failing in a row: a few at once never do, a fleet's reads in an outage at once. */
  constructor(private readonly threshold = 20) {}

  /** `request` (any object standing for one request, the same for its retries) failed at the service's side. */
  failure(request: object): void {
    if (this.failed.size < this.threshold) this.failed.add(request);
  }

  /** The service answered (any status but a 5xx): it is up. */
  answered(): void {
    this.failed.clear();
  }

  get down(): boolean {
    return this.failed.size >= this.threshold;
  }
}
