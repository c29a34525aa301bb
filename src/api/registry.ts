import { createHash } from 'node:crypto';
import { EnergyApiClient, checkBaseUrl, type ClientOptions } from './client.js';
import { SharedResources } from './shared-resources.js';

/** One user's hold on a shared client; `release` is idempotent. */
export interface ClientLease {
  readonly client: EnergyApiClient;
  /** Gives the hold back; the client closes when its last holder releases it. */
  release(): Promise<void>;
}

const shared = new SharedResources<EnergyApiClient>(async (client) => {
  scoped.delete(client);
  await client.close();
});
/** What is kept beside each client, by the one who keeps it (see clientScoped). */
const scoped = new WeakMap<EnergyApiClient, Map<symbol, unknown>>();

/**
 * What the package keeps for a key's client (the site groups of load control, the registry of its
 * load-control nodes, the editor's device list): made on first use, kept while the client lives and
 * dropped when its last holder releases it.
 */
export function clientScoped<T>(client: EnergyApiClient, key: symbol, create: () => T): T {
  let kept = scoped.get(client);
  if (!kept) scoped.set(client, (kept = new Map()));
  if (!kept.has(key)) kept.set(key, create());
  return kept.get(key) as T;
}

/**
 * The key's one client (and so its one rate limiter) in this process, for a base address and key.
 * The limits belong to the key: two users of one key must share one budget. The first holder's
 * options (tps, tpd, timeouts, clock) build the client; later holders get that client as it is.
 */
export function acquireClient(options: ClientOptions): ClientLease {
  const lease = shared.acquire(registryId(options), () => new EnergyApiClient(options));
  return { client: lease.value, release: lease.release };
}

/** How many users hold the shared client of this base address and key (0 when none). */
export function sharedClientHolders(options: Pick<ClientOptions, 'baseUrl' | 'apiKey'>): number {
  return shared.holders(registryId(options));
}

function registryId({ baseUrl, apiKey }: Pick<ClientOptions, 'baseUrl' | 'apiKey'>): string {
  const url = checkBaseUrl(baseUrl);
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  // The key itself is never kept as a map key: only a digest of it.
  return `${base} ${createHash('sha256').update(String(apiKey)).digest('hex')}`;
}
