// The cost arithmetic: grid energy per entry, priced piece by piece, summed per entry and per local day.
// Energy stays in whole Joules until it is shown as kWh; money is counted in millionths.
// An entry's energy is spread evenly over its period (pro rata by time) when a price change falls inside it.
import { PriceError } from '../../api/index.js';
import { DateTime } from 'luxon';
import { costNumerator, divRound, fromMicros, roundCost } from './money.js';
import { describeWallTime, type Schedule, type Tariff } from './tariff.js';
import { KWH_J, type GridEnergy } from '../entries/grid-energy.js';
import { periodAt, type PricePeriod } from './normalise.js';
import { apportion, localDay, Segmenter, type Segment } from './segments.js';

export interface CostInput {
  tariff: Tariff;
  zone: string;
  importPrices?: PricePeriod[];
  exportPrices?: PricePeriod[];
}

export interface EntryCost {
  /** Unix seconds, END of the period (as the API gives it). */
  timestamp: number;
  start: number;
  duration: number;
  importKwh: number;
  exportKwh: number;
  importCost: number;
  exportCredit: number;
  /** importCost − exportCredit (the supply charge is per day). */
  netCost: number;
}

export interface DayCost {
  /** Local date 'YYYY-MM-DD' in the zone used. */
  date: string;
  start: number;
  end: number;
  /** Length of the day: 23 or 25 on DST days. */
  hours: number;
  /** Hours of the day the entries cover (the supply charge is pro rata to it). */
  coveredHours: number;
  importKwh: number;
  exportKwh: number;
  importCost: number;
  exportCredit: number;
  supplyCharge: number;
  netCost: number;
  /**
   * True when part of the day's energy comes from an entry that crosses one of its midnights, split
   * between the two days by time (pro rata): a coarse entry of the live service (a day is 23:55 to
   * 23:55). Exact days come from 5-minute entries.
   */
  approximate: boolean;
}

export type Totals = Omit<DayCost, 'date' | 'start' | 'end' | 'hours'>;

export interface CostResult {
  currency: string;
  timezone: string;
  entries: EntryCost[];
  days: DayCost[];
  total: Totals;
}

interface Sums {
  importJ: number;
  exportJ: number;
  importMicros: number;
  exportMicros: number;
  seconds: number;
  approximate: boolean;
}

const zero = (): Sums => ({ importJ: 0, exportJ: 0, importMicros: 0, exportMicros: 0, seconds: 0, approximate: false });
/** Not rounded: the entries of a day add up to the day (both from whole Joules); a display rounds. */
const kwh = (joules: number): number => joules / KWH_J;
const hours = (seconds: number): number => Math.round((seconds / 3600) * 1e6) / 1e6;

export function computeCost(energies: GridEnergy[], input: CostInput): CostResult {
  const { tariff, zone } = input;
  const importPrices = input.importPrices ?? [];
  const exportPrices = input.exportPrices ?? [];
  const minutes = [...new Set([...tariff.importPrice.changeMinutes(), ...tariff.exportPrice.changeMinutes()])];
  const cuts = [...importPrices, ...exportPrices].flatMap((p) => [p.start, p.end]);
  const segmenter = new Segmenter(zone, minutes, cuts);
  const byDay = new Map<string, Sums>();
  const entries: EntryCost[] = [];

  for (const energy of energies) {
    const pieces = segmenter.segments(energy.start, energy.end);
    const weights = pieces.map((p) => p.end - p.start);
    const importParts = apportion(energy.importJ, weights);
    const exportParts = apportion(energy.exportJ, weights);
    // Rounded once per (entry, day): entry totals and day totals then add up the same integers.
    const perDay = new Map<string, { imp: bigint; exp: bigint; importJ: number; exportJ: number; seconds: number }>();
    pieces.forEach((piece, k) => {
      const acc = perDay.get(piece.day) ?? { imp: 0n, exp: 0n, importJ: 0, exportJ: 0, seconds: 0 };
      if (importParts[k]) acc.imp += costNumerator(importParts[k], priceAt(importPrices, tariff.importPrice, piece));
      if (exportParts[k]) acc.exp += costNumerator(exportParts[k], priceAt(exportPrices, tariff.exportPrice, piece, 0));
      acc.importJ += importParts[k];
      acc.exportJ += exportParts[k];
      acc.seconds += weights[k];
      perDay.set(piece.day, acc);
    });
    let importMicros = 0;
    let exportMicros = 0;
    for (const [day, acc] of perDay) {
      const sums = byDay.get(day) ?? zero();
      const imp = roundCost(acc.imp);
      const exp = roundCost(acc.exp);
      importMicros += imp;
      exportMicros += exp;
      sums.importJ += acc.importJ;
      sums.exportJ += acc.exportJ;
      sums.importMicros += imp;
      sums.exportMicros += exp;
      sums.seconds += acc.seconds;
      if (perDay.size > 1) sums.approximate = true;
      byDay.set(day, sums);
    }
    entries.push({
      timestamp: energy.end,
      start: energy.start,
      duration: energy.end - energy.start,
      importKwh: kwh(energy.importJ),
      exportKwh: kwh(energy.exportJ),
      importCost: fromMicros(importMicros),
      exportCredit: fromMicros(exportMicros),
      netCost: fromMicros(importMicros - exportMicros),
    });
  }

  const sorted = [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b));
  const days = sorted.map(([date, s]) => dayCost(date, s, input));
  return { currency: tariff.currency, timezone: zone, entries, days, total: totals(days, sorted.map(([, s]) => s)) };
}

/**
 * Message prices win where they cover the instant; elsewhere the tariff's schedule. An export
 * schedule with no rows is a feed-in price of 0 (`fallback`); an import price must always be known.
 */
function priceAt(periods: PricePeriod[], schedule: Schedule, piece: Segment, fallback?: number): number {
  const period = periodAt(periods, piece.start);
  if (period) return period.micros;
  if (schedule.empty && fallback !== undefined) return fallback;
  if (schedule.empty) throw new PriceError(`no import price for ${describeWallTime(piece.wall)}: the tariff has no import rows and msg.prices does not cover it`);
  return schedule.microsAt(piece.wall);
}

function dayCost(date: string, s: Sums, input: CostInput): DayCost {
  const day = localDay(DateTime.fromISO(date, { zone: input.zone }).toSeconds(), input.zone);
  const length = day.end - day.start;
  // A daily charge for the part of the day covered: "today so far" and a full day both read right.
  const supplyMicros = Number(divRound(BigInt(input.tariff.supplyCharge.microsOn(date)) * BigInt(Math.min(s.seconds, length)), BigInt(length)));
  return {
    date,
    start: day.start,
    end: day.end,
    hours: hours(length),
    coveredHours: hours(s.seconds),
    importKwh: kwh(s.importJ),
    exportKwh: kwh(s.exportJ),
    importCost: fromMicros(s.importMicros),
    exportCredit: fromMicros(s.exportMicros),
    supplyCharge: fromMicros(supplyMicros),
    netCost: fromMicros(s.importMicros - s.exportMicros + supplyMicros),
    approximate: s.approximate,
  };
}

function totals(days: DayCost[], sums: Sums[]): Totals {
  // Money: the sum of the days' micro-units. Energy and hours: from the summed Joules and seconds.
  const money = (pick: (d: DayCost) => number): number => fromMicros(days.reduce((a, d) => a + Math.round(pick(d) * 1e6), 0));
  const add = (pick: (s: Sums) => number): number => sums.reduce((a, s) => a + pick(s), 0);
  return {
    coveredHours: hours(add((s) => s.seconds)),
    importKwh: kwh(add((s) => s.importJ)),
    exportKwh: kwh(add((s) => s.exportJ)),
    importCost: money((d) => d.importCost),
    exportCredit: money((d) => d.exportCredit),
    supplyCharge: money((d) => d.supplyCharge),
    netCost: money((d) => d.netCost),
    approximate: days.some((d) => d.approximate),
  };
}
