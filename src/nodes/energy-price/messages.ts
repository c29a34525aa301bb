import type { NodeMessage } from 'node-red';
import { periodAt, settleShape, toSlots, type PriceList } from '../../domain/pricing/normalise.js';
import { readShape } from '../../domain/pricing/shapes.js';

/** Where a msg may carry a price list: msg.prices, msg.payload (another price node's output), msg.data (Home Assistant). */
const PLACES = ['prices', 'payload', 'data'] as const;

/**
 * The price list a msg carries, read by the normaliser; undefined when it carries none (a trigger).
 * msg.prices is always read as a list (and refused when it is none); msg.payload and msg.data only when
 * their shape is a price list's.
 */
export function pricesInMessage(msg: Record<string, unknown>, timezone: string): PriceList | undefined {
  for (const place of PLACES) {
    const value = msg[place];
    if (value === undefined || value === null) continue;
    const source = `msg.${place}`;
    // Each value is read once: its shape decides whether it is a list (msg.prices always is one, or refused).
    const read = readShape(value, { source, timezone });
    if (place !== 'prices' && read === undefined) continue;
    return settleShape(read, { source, timezone });
  }
  return undefined;
}

export interface PriceOutput {
  list: PriceList;
  nowS: number;
  siteId?: string;
  resolution?: number;
  currency?: string;
}

/**
 * The node's output: msg.prices in the one shape, msg.payload the import price now (per kWh, null when
 * the list does not cover now), and what the current slot says of itself.
 */
export function priceMessage(out: PriceOutput, base: Record<string, unknown> = {}): NodeMessage {
  const current = periodAt(out.list.periods, out.nowS);
  const prices = toSlots(out.list.periods);
  const now = current ? prices[out.list.periods.indexOf(current)] : undefined;
  const msg: Record<string, unknown> = {
    ...base,
    topic: out.siteId ?? (typeof base.topic === 'string' ? base.topic : 'prices'),
    payload: now ? now.price : null,
    prices,
    source: out.list.shape,
    estimate: now?.estimate === true,
    spike: now?.spike === true,
    timestamp: out.nowS,
  };
  if (now?.exportPrice !== undefined) msg.exportPrice = now.exportPrice;
  if (out.siteId) msg.siteId = out.siteId;
  if (out.resolution) msg.resolution = out.resolution;
  if (out.currency) msg.currency = out.currency;
  return msg as NodeMessage;
}
