/** Prices in one shape, whatever their source. Pure data: no Node-RED, no HTTP. */

/** One slot as flows see it (`msg.prices`): unix seconds, prices per kWh in the tariff's currency. */
export interface PriceSlot {
  start: number;
  end: number;
  /** What a kWh bought from the grid costs (negative: you are paid to take it). */
  price: number;
  /** What a kWh sent to the grid earns (negative: exporting costs you). */
  exportPrice?: number;
  /** The source calls the price an estimate that may still change. */
  estimate?: boolean;
  /** The source warns of a price spike in this slot (Amber's spikeStatus potential or spike). */
  spike?: boolean;
}

/** A slot as the package computes with it: money in micro-units (see energy-tariff/money.ts). */
export interface PricePeriod {
  start: number;
  end: number;
  micros: number;
  exportMicros?: number;
  estimate?: boolean;
  spike?: boolean;
}

/** What the normaliser reads from a source item before checking the list as a whole. */
export interface RawSlot {
  start: number;
  end?: number;
  micros: number;
  exportMicros?: number;
  estimate?: boolean;
  spike?: boolean;
  /** Where the item came from, for errors: `msg.prices[3]`. */
  where: string;
}

/** The shapes the normaliser recognises (for status texts and msg.source). */
export type PriceShape = 'slots' | 'amber' | 'power-saver' | 'tibber' | 'nordpool' | 'home-assistant';
