/** The simulator's Amber sites: one for each Australian device of the fixed fleet, priced in its region. */
import { hashText } from '../site/random.js';
import type { SimDevice } from '../types.js';
import { marketSite, type Channel, type MarketSite } from './market.js';

/** The demo key of the price endpoint (Amber's keys start with psk_). */
export const SIM_AMBER_KEY = 'psk_5f0e8c2a91d34b7c8e6f0a1b2c3d4e5f';

export interface AmberSite {
  id: string;
  deviceId: string;
  intervalLength: 5 | 30;
  channels: Array<{ identifier: string; type: Channel; tariff: string }>;
  market: MarketSite;
  /** GET /sites's entry. */
  body: Record<string, unknown>;
}

const REGIONS: Record<string, { region: string; network: string; nmi: string; tariff: string }> = {
  'Australia/Sydney': { region: 'NSW1', network: 'Ausgrid', nmi: '41', tariff: 'EA116' },
  'Australia/Melbourne': { region: 'VIC1', network: 'Jemena', nmi: '61', tariff: 'A140' },
  'Australia/Brisbane': { region: 'QLD1', network: 'Energex', nmi: '31', tariff: '6900' },
  'Australia/Adelaide': { region: 'SA1', network: 'SA Power Networks', nmi: '20', tariff: 'RTOU' },
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID-shaped site id (26 Crockford base-32 characters), the same for the same device. */
export function amberSiteId(deviceId: string): string {
  let id = '01J';
  let h = hashText(deviceId);
  for (let i = 0; id.length < 26; i++) {
    if (i % 6 === 0) h = hashText(`${deviceId}:${i}`);
    id += CROCKFORD[h & 31];
    h >>>= 5;
  }
  return id;
}

/** Sites of the devices in an Australian zone; the Sydney house also has a controlled-load channel. */
export function createAmberSites(devices: Iterable<SimDevice>, seed: number): Map<string, AmberSite> {
  const sites = new Map<string, AmberSite>();
  for (const dev of devices) {
    const facts = dev.timezone ? REGIONS[dev.timezone] : undefined;
    if (!facts || dev.uninitialised) continue;
    const id = amberSiteId(dev.id);
    const channels: AmberSite['channels'] = [{ identifier: 'E1', type: 'general', tariff: facts.tariff }];
    if (dev.roles.some((r) => r.kind === 'house') && dev.switches.length === 0 && dev.model === '3M') channels.push({ identifier: 'E2', type: 'controlledLoad', tariff: 'EA030' });
    if (dev.roles.some((r) => r.kind === 'solar')) channels.push({ identifier: 'B1', type: 'feedIn', tariff: facts.tariff });
    const nmi = `${facts.nmi}${String(hashText(dev.id) % 1e8).padStart(8, '0')}`;
    const body = { id, nmi, channels: channels.map((c) => ({ ...c })), network: facts.network, status: 'active', activeFrom: '2024-01-01', intervalLength: 30 };
    sites.set(id, { id, deviceId: dev.id, intervalLength: 30, channels, market: marketSite(seed, dev.site, hashText(facts.region), dev.timezone as string), body });
  }
  return sites;
}
