import type { Node } from 'node-red';
import type { PricePeriod } from '../../domain/pricing/types.js';
import type { LoadMemory } from '../../domain/site/types.js';

const KEY = 'energyLoadControl';
/**
 * Node-RED deletes a node's context on every close unless a context store is configured, so a
 * redeploy would forget the hold times: the process keeps its own copy per node id as well.
 */
const survivors = new Map<string, LoadMemory>();

/** The load's memory as the node's context holds it (last change, override and its end, pending change, learnt power). */
export function loadMemory(node: Node, store: string | undefined): Promise<LoadMemory> {
  return new Promise((resolve) => {
    node.context().get(KEY, store as string, (err: Error | undefined, value: unknown) => {
      resolve(!err && value && typeof value === 'object' ? (value as LoadMemory) : (survivors.get(node.id) ?? {}));
    });
  });
}

export function saveMemory(node: Node, store: string | undefined, memory: LoadMemory): void {
  survivors.set(node.id, memory);
  node.context().set(KEY, memory, store as string, (err?: Error) => {
    if (err) node.warn(`energy-load-control: could not save its state: ${err.message}`);
  });
}

/** A node deleted from the flows takes its memory with it. */
export function forgetMemory(node: Node): void {
  survivors.delete(node.id);
  priceSurvivors.delete(node.id);
}

const PRICES_KEY = 'energyLoadControlPrices';
/** The last price list per node id, for the same reason as `survivors`. */
const priceSurvivors = new Map<string, PricePeriod[]>();

/** The last msg.prices the node received (a restart keeps planning on it until the next list). */
export function loadPrices(node: Node, store: string | undefined): Promise<PricePeriod[]> {
  return new Promise((resolve) => {
    node.context().get(PRICES_KEY, store as string, (err: Error | undefined, value: unknown) => {
      resolve(!err && Array.isArray(value) ? (value as PricePeriod[]) : (priceSurvivors.get(node.id) ?? []));
    });
  });
}

/** Saved when a list arrives, not at every evaluation. */
export function savePrices(node: Node, store: string | undefined, prices: PricePeriod[]): void {
  priceSurvivors.set(node.id, prices);
  node.context().set(PRICES_KEY, prices, store as string, (err?: Error) => {
    if (err) node.warn(`energy-load-control: could not save its price list: ${err.message}`);
  });
}
