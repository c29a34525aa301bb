import type { Node } from 'node-red';
import type { EnergyApiClient, KeyStatus } from '../../api/index.js';
import type { Tariff } from '../../domain/pricing/tariff.js';

/** What a flow node sees of its `energy-api` config node. */
export interface EnergyApiConfigNode extends Node {
  /** The key's one client; undefined while the config is unusable (no key, bad URL). */
  client?: EnergyApiClient;
  /** Why the config is unusable, in the user's words. */
  problem?: string;
  /** Default timezone for calendar granularities when the device has none. */
  timezone?: string;
  /** What the service last said of the key (undefined until it has answered once). */
  keyStatus(): KeyStatus | undefined;
  /** What its deployed nodes' schedules will cost a day against the key's daily limit. */
  dailyBudget?(): BudgetReport;
  register(user: Node): void;
  deregister(user: Node, done?: () => void): void;
}

/** What energy-cost and energy-load-control see of an `energy-tariff` config node. */
export interface EnergyTariffConfigNode extends Node {
  tariff?: Tariff;
  /** Why the tariff is unusable, in the user's words. */
  problem?: string;
}

/** What the nodes using one config node will spend a day, against the key's daily limit. */
export interface BudgetReport {
  /** The key's daily limit: learnt from the service once it has answered, the configured one before. */
  tpd: number;
  requestsPerDay: number;
  over: boolean;
  /** The costliest nodes first (at most five). */
  top: Array<{ id: string; type: string; name: string; requestsPerDay: number }>;
  /** Nodes with a daily cost, and what the ones beyond `top` cost together (hundreds of nodes stay one line). */
  nodes: number;
  othersPerDay: number;
}
