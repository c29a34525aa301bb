import { periodAt } from '../pricing/normalise.js';
import type { PricePeriod } from '../pricing/types.js';

/** One stretch of the plan: the plan decides on/off per unit. */
export interface Unit {
  start: number;
  end: number;
  /** Import price per kWh (micro-units); null where neither the price list nor the tariff gives one. */
  importMicros: number | null;
  /** Export (feed-in) price per kWh (micro-units): what surplus used by the load would have earned. */
  exportMicros: number;
  /** Surplus expected for this load (W), after the loads of higher priority took theirs. */
  surplusW: number;
  estimate?: boolean;
  spike?: boolean;
  /** Which price slot the unit belongs to (a key for merging units back into slots). */
  slotKey: string;
}

export interface UnitSources {
  nowS: number;
  endS: number;
  /** The latest price list (msg.prices), sorted. */
  prices: readonly PricePeriod[];
  /** The tariff's slots over the same span, used where the price list does not reach. */
  tariff: readonly PricePeriod[];
  /** Expected surplus (W) averaged over [from, to). */
  surplus(from: number, to: number): number;
}

/**
 * Units are 5 minutes long (the finest slot any source has; on the clock, so a 30-minute price is six units):
 * the unit now, cut short by the clock, is never more than 5 minutes, so what the plan needs of whole units
 * is never more than 5 minutes off, and minBlock, minOn and minOff hold to 5 minutes.
 */
export const UNIT_S = 300;

/** The units from now to the end of the period, each priced from the price list, else the tariff. */
export function buildUnits(sources: UnitSources): Unit[] {
  const { nowS, endS } = sources;
  if (endS <= nowS) return [];
  const u = UNIT_S;
  const units: Unit[] = [];
  for (let start = nowS; start < endS;) {
    const end = Math.min(endS, (Math.floor(start / u) + 1) * u);
    const listed = periodAt(sources.prices, start);
    const tariffed = periodAt(sources.tariff, start);
    const priced = listed ?? tariffed;
    const unit: Unit = {
      start,
      end,
      importMicros: priced ? priced.micros : null,
      exportMicros: listed?.exportMicros ?? tariffed?.exportMicros ?? 0,
      surplusW: sources.surplus(start, end),
      slotKey: listed ? `p${listed.start}` : tariffed ? `t${tariffed.start}` : 'none',
    };
    if (listed?.estimate) unit.estimate = true;
    if (listed?.spike) unit.spike = true;
    units.push(unit);
    start = end;
  }
  return units;
}
