/**
 * A believable Australian spot market for the simulator's Amber-compatible price endpoint, deterministic
 * for the seed: 5-minute spot prices that fall at midday with the sun (negative on clear days), rise to an
 * evening peak, spike now and then on summer evenings, and forecasts whose error grows with lead time.
 * The region's sunshine follows the site's own sky only in part: local clouds are not the whole market's.
 * Prices are in cents per kWh, as Amber gives them.
 */
import { IANAZone } from 'luxon';
import { noise } from '../site/random.js';
import { locationOf, sunSine, summerness, type Location } from '../site/sun.js';
import { weatherOf } from '../site/weather.js';

export const FIVE_MIN = 300;
const DAY = 86400;
/** NEM time is AEST all year: UTC+10. */
const NEM_OFFSET = 10 * 3600;
/** A 5-minute price is published this long into its interval; before, the current price is an estimate. */
export const PUBLISH_DELAY_S = 20;

export interface MarketSite {
  seed: number;
  /** The site's own hash (its sky). */
  site: number;
  /** The region's hash (the market's own draws). */
  region: number;
  zone: string;
  loc: Location;
}

export interface Spike {
  start: number;
  end: number;
  /** c/kWh. */
  price: number;
}

const bell = (x: number, mu: number, sigma: number): number => Math.exp(-(((x - mu) / sigma) ** 2) / 2);
const nemDay = (t: number): number => Math.floor((t + NEM_OFFSET) / DAY);
const nemHour = (t: number): number => ((t + NEM_OFFSET) % DAY) / 3600;

export function marketSite(seed: number, site: number, region: number, zone: string): MarketSite {
  const offset = IANAZone.create(zone).offset(Date.UTC(2026, 0, 1));
  return { seed, site, region, zone, loc: locationOf(zone, offset) };
}

function localDay(m: MarketSite, t: number): number {
  return Math.floor((t + IANAZone.create(m.zone).offset(t * 1000) * 60) / DAY);
}

const SKY_CLEARNESS = { clear: 1, 'broken cloud': 0.6, cloudy: 0.2 } as const;

/** The region's sunshine (0..1): 60 % the site's own sky, 40 % the rest of the market's. */
function regionClearness(m: MarketSite, t: number): number {
  const day = localDay(m, t);
  const own = SKY_CLEARNESS[weatherOf(m.seed, m.site, m.loc, day, t).sky];
  const u = noise(m.seed, m.region ^ 0x5c, day);
  const rest = u < 0.45 ? 1 : u < 0.75 ? 0.6 : 0.25;
  return 0.6 * own + 0.4 * rest;
}

/** The evening spike of a NEM day, if it has one (more likely in summer). */
export function spikeOn(m: MarketSite, day: number): Spike | undefined {
  const mid = day * DAY - NEM_OFFSET + DAY / 2;
  const chance = 0.06 + 0.12 * summerness(m.loc, mid);
  if (noise(m.seed, m.region ^ 0x51, day) >= chance) return undefined;
  const startHour = 16.5 + 3 * noise(m.seed, m.region ^ 0x52, day);
  const start = day * DAY - NEM_OFFSET + Math.round((startHour * 3600) / FIVE_MIN) * FIVE_MIN;
  const minutes = 30 + 5 * Math.floor(12 * noise(m.seed, m.region ^ 0x53, day));
  const price = Math.round(150 + 1000 * noise(m.seed, m.region ^ 0x54, day) ** 2);
  return { start, end: start + minutes * 60, price };
}

export function inSpike(m: MarketSite, t: number): Spike | undefined {
  const spike = spikeOn(m, nemDay(t));
  return spike && t >= spike.start && t < spike.end ? spike : undefined;
}

/** Share of the panels' best output the region's sun gives at t (0..1). */
export function solarShare(m: MarketSite, t: number): number {
  const sun = sunSine(m.loc, t);
  if (sun <= 0) return 0;
  return Math.min(1, sun / 0.9) ** 1.2 * regionClearness(m, t);
}

/** The spot price of the 5-minute interval starting at t without its spike (c/kWh). */
function shape(m: MarketSite, t: number): number {
  const mid = t + FIVE_MIN / 2;
  const day = nemDay(mid);
  const h = nemHour(mid);
  const base = 6.5 + 3 * noise(m.seed, m.region ^ 0x11, day);
  const morning = 5 * bell(h, 7.5, 1.0);
  const evening = (10 + 20 * noise(m.seed, m.region ^ 0x12, day)) * (1 + 0.6 * summerness(m.loc, mid)) * bell(h, 18.5, 1.5);
  const solar = (14 + 16 * noise(m.seed, m.region ^ 0x13, day)) * solarShare(m, mid);
  const wobble = 3 * (noise(m.seed, m.region ^ 0x14, Math.floor(t / FIVE_MIN)) - 0.5);
  return base + morning + evening - solar + wobble;
}

/** The final spot price of the 5-minute interval starting at t (c/kWh, before GST). */
export function finalSpot(m: MarketSite, t: number): number {
  return inSpike(m, t)?.price ?? shape(m, t);
}

/**
 * The spot price of the interval starting at t as the market forecast it at `asOf`: the error grows with the
 * lead time (and changes every 30 minutes, when forecasts are rerun); a spike shows only within 2 hours, as
 * a high but uncertain price.
 */
export function forecastSpot(m: MarketSite, t: number, asOf: number): { spot: number; potentialSpike: boolean } {
  const lead = t - asOf;
  const sigma = Math.min(10, 0.8 + (Math.max(0, lead) / 3600) * 0.6);
  const z = (noise(m.seed, m.region ^ 0x21, Math.floor(t / FIVE_MIN), Math.floor(asOf / 1800)) - 0.5) * 2 * Math.sqrt(3);
  const spike = inSpike(m, t);
  if (spike && lead < 2 * 3600) return { spot: 40 + 60 * noise(m.seed, m.region ^ 0x22, Math.floor(t / FIVE_MIN), Math.floor(asOf / 1800)), potentialSpike: true };
  return { spot: shape(m, t) + sigma * z, potentialSpike: false };
}

export type NetworkPeriod = 'peak' | 'shoulder' | 'offPeak';

/** The network's time of use at the site's local hour. */
export function networkPeriod(m: MarketSite, t: number): NetworkPeriod {
  const local = t + IANAZone.create(m.zone).offset(t * 1000) * 60;
  const h = (local % DAY) / 3600;
  if (h >= 15 && h < 21) return 'peak';
  if (h >= 22 || h < 7) return 'offPeak';
  return 'shoulder';
}

const NETWORK_CENTS: Record<NetworkPeriod, number> = { peak: 22, shoulder: 8, offPeak: 5 };
const CONTROLLED_LOAD_CENTS = 3;
const MARKET_FEES = 2;
const FEED_IN_FEE = 1;
const GST = 1.1;

export type Channel = 'general' | 'controlledLoad' | 'feedIn';

/** perKwh of a channel from the spot price (c/kWh incl. GST): a feed-in price is negative when the export is paid. */
export function perKwh(m: MarketSite, channel: Channel, spot: number, t: number): number {
  if (channel === 'feedIn') return FEED_IN_FEE - spot;
  const network = channel === 'general' ? NETWORK_CENTS[networkPeriod(m, t)] : CONTROLLED_LOAD_CENTS;
  return (spot + network + MARKET_FEES) * GST;
}
