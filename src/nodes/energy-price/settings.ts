import { isValidTimezone } from '../../api/index.js';
import { ConfigError } from '../../api/error-family.js';
import { AMBER_BASE_URL } from '../../prices/amber-client.js';

/** The node's properties as the editor saves them (numbers may arrive as text). */
export interface EnergyPriceDef {
  source?: string;
  baseUrl?: string;
  siteId?: string;
  resolution?: string | number;
  ahead?: string | number;
  timezone?: string;
  poll?: boolean;
}

export interface PriceSettings {
  /** `amber`: poll Amber (and convert input msgs); `messages`: only convert what arrives. */
  source: 'amber' | 'messages';
  baseUrl: string;
  siteId: string;
  resolution: 5 | 30;
  /** Hours of forecast to ask for. */
  aheadH: number;
  /** Zone of "today" (the intervals asked for since local midnight) and of input times without an offset. */
  timezone: string;
  /** Poll on its own schedule (else only when a msg asks). */
  poll: boolean;
}

/** The Node-RED host's zone, for a node that sets none. */
export const hostZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function parseSettings(def: EnergyPriceDef): PriceSettings {
  const source = def.source === 'messages' ? 'messages' : def.source === 'amber' || def.source === undefined || def.source === '' ? 'amber' : undefined;
  if (!source) throw new ConfigError(`source must be amber or messages, not "${String(def.source as unknown).slice(0, 20)}"`);
  const resolution = Number(def.resolution ?? 30);
  if (resolution !== 5 && resolution !== 30) throw new ConfigError(`resolution must be 5 or 30 (minutes), not "${String(def.resolution).slice(0, 10)}"`);
  const aheadH = Number(def.ahead ?? 24);
  if (!Number.isInteger(aheadH) || aheadH < 1 || aheadH > 48) throw new ConfigError(`ahead must be a whole number of hours from 1 to 48, not "${String(def.ahead).slice(0, 10)}"`);
  const timezone = (def.timezone ?? '').trim() || hostZone();
  if (!isValidTimezone(timezone)) throw new ConfigError(`"${String(timezone as unknown).slice(0, 64)}" is not a time zone name (e.g. Australia/Sydney, or empty for Node-RED's own)`);
  const siteId = (def.siteId ?? '').trim();
  if (source === 'amber' && !siteId) throw new ConfigError('no site id: enter the Amber site id (Amber lists it at GET /sites; the simulator prints its sites)');
  return { source, baseUrl: (def.baseUrl ?? '').trim() || AMBER_BASE_URL, siteId, resolution, aheadH, timezone, poll: def.poll !== false };
}
