import { createHash } from 'node:crypto';
import { EnergyApiClient, checkBaseUrl, type ClientOptions } from './client.js';

/** One user's hold on a shared client; `release` is idempotent. */
export interface ClientLease {
  readonly client: EnergyApiClient;
  /** Gives the hold back; the client closes when its last holder releases it. */
  release(): Promise<void>;
}

interface Entry {
  client: EnergyApiClient;
  holders: number;
}

const shared = new Map<string, Entry>();

/**
 * The key's one client (and so its one rate limiter) in this process, for a base address and key.
 * The limits belong to the key: two users of one key must share one budget. The first holder's
 * options (tps, tpd, timeouts, clock) build the client; later holders get that client as it is.
 */
export function acquireClient(options: ClientOptions): ClientLease {
  const id = registryId(options);
  let entry = shared.get(id);
  if (!entry) {
    entry = { client: new EnergyApiClient(options), holders: 0 };
    shared.set(id, entry);
  }
  entry.holders += 1;
  const held = entry;
  let released = false;
  return {
    client: held.client,
    release: async () => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      if (shared.get(id) === held) shared.delete(id);
      await held.client.close();
    },
  };
}

/** How many users hold the shared client of this base address and key (0 when none). */
export function sharedClientHolders(options: Pick<ClientOptions, 'baseUrl' | 'apiKey'>): number {
  return shared.get(registryId(options))?.holders ?? 0;
}

function registryId({ baseUrl, apiKey }: Pick<ClientOptions, 'baseUrl' | 'apiKey'>): string {
  const url = checkBaseUrl(baseUrl);
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  // The key itself is never kept as a map key: only a digest of it.
  return `${base} ${createHash('sha256').update(String(apiKey)).digest('hex')}`;
}
