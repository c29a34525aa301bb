// Amber Electric's price intervals (GET /sites/{siteId}/prices/current and /prices) read into raw slots.
// Facts from Amber's public API description: perKwh in c/kWh including GST; channelType general,
// controlledLoad or feedIn; a feed-in perKwh is negative when the site is paid for its export (so the
// export price here is its negation); startTime is one second after the interval's boundary (endTime is
// on it), so a slot starts at endTime − duration; CurrentInterval carries `estimate`; spikeStatus is
// none, potential or spike.
import { PriceError } from '../../api/index.js';
import type { RawSlot } from './types.js';

type Item = Record<string, unknown>;

const CHANNELS = ['general', 'controlledLoad', 'feedIn'] as const;
const DURATIONS = [5, 15, 30];

export function isAmberInterval(item: unknown): boolean {
  return typeof item === 'object' && item !== null && 'channelType' in item && 'perKwh' in item && 'endTime' in item;
}

interface Interval {
  start: number;
  end: number;
  micros: number;
  estimate: boolean;
  spike: boolean;
  where: string;
}

/**
 * One slot per general interval, with the feed-in interval of the same time as its export price.
 * Controlled-load prices are left out (they belong to a separate meter channel). A feed-in interval
 * without its general interval is a partial list.
 */
export function amberSlots(list: unknown[], source: string): RawSlot[] {
  const general = new Map<number, Interval>();
  const feedIn = new Map<number, Interval>();
  list.forEach((raw, i) => {
    const where = `${source}[${i}]`;
    const item = interval(raw, where);
    if (item.channel === 'controlledLoad') return;
    const byEnd = item.channel === 'general' ? general : feedIn;
    if (byEnd.has(item.end)) throw new PriceError(`${where}: a second ${item.channel} interval ending ${new Date(item.end * 1000).toISOString()}`);
    byEnd.set(item.end, item);
  });
  for (const [end, item] of feedIn) {
    if (!general.has(end)) throw new PriceError(`${item.where}: the feedIn interval ending ${new Date(end * 1000).toISOString()} has no general interval (a partial list)`);
  }
  return [...general.values()].map((g) => {
    const f = feedIn.get(g.end);
    return {
      where: g.where,
      start: g.start,
      end: g.end,
      micros: g.micros,
      // Amber's feed-in price is what the site pays per kWh exported: an export earns its negation.
      exportMicros: f === undefined ? undefined : -f.micros,
      estimate: g.estimate || f?.estimate ? true : undefined,
      spike: g.spike || f?.spike ? true : undefined,
    };
  });
}

function interval(raw: unknown, where: string): Interval & { channel: (typeof CHANNELS)[number] } {
  if (typeof raw !== 'object' || raw === null) throw new PriceError(`${where} must be an Amber interval object`);
  const o = raw as Item;
  const channel = o.channelType as (typeof CHANNELS)[number];
  if (!CHANNELS.includes(channel)) throw new PriceError(`${where}: channelType ${JSON.stringify(o.channelType)} is not general, controlledLoad or feedIn`);
  const duration = o.duration;
  if (typeof duration !== 'number' || !DURATIONS.includes(duration)) throw new PriceError(`${where}: duration ${JSON.stringify(duration)} is not 5, 15 or 30 (minutes)`);
  const endMs = typeof o.endTime === 'string' ? Date.parse(o.endTime) : NaN;
  if (!Number.isFinite(endMs)) throw new PriceError(`${where}: endTime ${JSON.stringify(o.endTime)} is not an ISO time`);
  const end = Math.round(endMs / 1000);
  const at = `${where} (${channel} ending ${new Date(end * 1000).toISOString()})`;
  if (typeof o.perKwh !== 'number' || !Number.isFinite(o.perKwh)) throw new PriceError(`${at}: perKwh ${JSON.stringify(o.perKwh)} is not a number of c/kWh`);
  if (o.estimate !== undefined && typeof o.estimate !== 'boolean') throw new PriceError(`${at}: estimate must be true or false`);
  // c/kWh to micro-units of the dollar per kWh.
  const micros = Math.round(o.perKwh * 10_000);
  const estimate = o.type === 'ForecastInterval' || o.estimate === true;
  const spike = o.spikeStatus === 'spike' || o.spikeStatus === 'potential';
  return { channel, start: end - duration * 60, end, micros, estimate, spike, where: at };
}
