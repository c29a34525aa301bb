import { createHash } from 'node:crypto';
import { SharedResources, type Lease } from '../api/shared-resources.js';
import { AMBER_BASE_URL, AmberClient, type AmberClientOptions } from './amber-client.js';

// An Amber client holds no socket of its own: it holds its key's limiter, let go when the last node using the
// client releases it. The lease keeps one client per address and key while nodes use it.
const clients = new SharedResources<AmberClient>((client) => client.close());

/** The one Amber client of this address and key in the process; the first holder's options build it. */
export function acquireAmberClient(options: AmberClientOptions): Lease<AmberClient> {
  const baseUrl = (options.baseUrl || AMBER_BASE_URL).replace(/\/+$/, '');
  const id = `${baseUrl}\n${createHash('sha256').update(options.apiKey).digest('hex')}`;
  return clients.acquire(id, () => new AmberClient(options));
}
