import { createHash } from 'node:crypto';
import { SharedResources, type Lease } from '../api/shared-resources.js';
import { AMBER_BASE_URL, AmberClient, type AmberClientOptions } from './amber-client.js';

// An Amber client holds no socket of its own to close: the lease keeps one client per address and key
// while nodes use it, so that they share one view of the key's rate limit.
const clients = new SharedResources<AmberClient>(() => undefined);

/** The one Amber client of this address and key in the process; the first holder's options build it. */
export function acquireAmberClient(options: AmberClientOptions): Lease<AmberClient> {
  const baseUrl = (options.baseUrl || AMBER_BASE_URL).replace(/\/+$/, '');
  const id = `${baseUrl}\n${createHash('sha256').update(options.apiKey).digest('hex')}`;
  return clients.acquire(id, () => new AmberClient(options));
}
