import { MsgError, PriceError } from '../../api/index.js';
import type { Node, NodeAPI } from 'node-red';
import type { Device } from '../../api/index.js';
import { readPrices } from '../../domain/pricing/normalise.js';
import type { PricePeriod } from '../../domain/pricing/types.js';
import type { EnergyApiConfigNode } from '../shared/config-types.js';
import type { EnergyTariffConfigNode } from '../shared/config-types.js';
import { tariffPeriods } from '../../domain/pricing/slots.js';
import type { MemberPricing } from '../../domain/site/types.js';
import { loadPrices, savePrices } from './persist.js';

/** Keep a price list this long after its end: a list with old slots is trimmed as it arrives. */
const KEEP_PAST_S = 86_400;

/** A load's prices for planning: the last msg.prices (kept across restarts) and the tariff, in the device's zone. */
export class LoadPricing {
  private prices: PricePeriod[] = [];
  readonly ready: Promise<void>;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly store: string | undefined,
    private readonly tariffId: string | undefined,
  ) {
    this.ready = loadPrices(node, store).then((saved) => { if (this.prices.length === 0) this.prices = saved; });
  }

  private tariffNode(): EnergyTariffConfigNode | undefined {
    return this.tariffId ? ((this.RED.nodes.getNode(this.tariffId) as EnergyTariffConfigNode | null) ?? undefined) : undefined;
  }

  /** Why the tariff cannot be used, when one is chosen and it cannot. */
  tariffProblem(): string | undefined {
    if (!this.tariffId) return undefined;
    const node = this.tariffNode();
    if (!node) return 'the energy-tariff config node chosen for the plan is missing';
    return node.tariff ? undefined : `the tariff is not usable: ${node.problem ?? 'no prices'}`;
  }

  get currency(): string | undefined {
    return this.tariffNode()?.tariff?.currency;
  }

  /** msg.prices for a node that may or may not plan: one without a run target says so. */
  static accept(pricing: LoadPricing | undefined, value: unknown, nowS: number, zone: string | undefined): void {
    if (!pricing) throw new MsgError('msg.prices arrived, but this node has no run target: set runFor or cheapBelow (surplus mode) or choose price mode');
    pricing.receive(value, nowS, zone);
  }

  /** A new msg.prices, read by the one normaliser; a bad list throws and the last good one stays. */
  receive(value: unknown, nowS: number, zone: string | undefined): number {
    const { periods } = readPrices(value, { source: 'msg.prices', timezone: zone });
    if (periods.length === 0) throw new PriceError('msg.prices is an empty list: send the prices from now on');
    this.prices = periods.filter((p) => p.end > nowS - KEEP_PAST_S);
    savePrices(this.node, this.store, this.prices);
    return periods.length;
  }

  /** What the group plans with: the device's zone (else the config node's), the prices, the tariff's slots. */
  forMember(measuring: Device | undefined, config: EnergyApiConfigNode | null): MemberPricing {
    const zone = measuring?.timezone || config?.timezone || 'UTC';
    const tariff = this.tariffNode()?.tariff;
    return {
      zone,
      prices: this.prices,
      tariff: (from, to) => (tariff ? tariffPeriods(tariff, tariff.timezone || zone, from, to) : []),
    };
  }
}
