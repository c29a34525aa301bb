/** filter[group], convert[energy] and fields[energy] (spec 2.11, 4.12). */
import type { EnergyEntry } from '../api/types.js';
import { badRequest } from './errors.js';
import { single, type QueryParams } from './query.js';
import { round } from './energyModel.js';

export interface EnergyOptions {
  group: boolean;
  convert?: 'kWh' | 'kW';
  powerFactor: boolean;
  timestampOnly: boolean;
}

/** One entry before options are applied; arrays hold one value per channel. */
export interface RawEntry {
  timestamp: number;
  duration: number;
  frequency?: number;
  /** In output order, e.g. eReal, eReactive. */
  energy: Array<[string, number[]]>;
  volts: Array<[string, number[]]>;
  amps: Array<[string, number[]]>;
}

export function parseEnergyOptions(params: QueryParams, firstOrLatest: boolean): EnergyOptions {
  const groupValue = single(params, 'filter[group]');
  if (groupValue !== undefined && groupValue !== 'phases') throw badRequest('The filter[group] value must be phases');
  const group = groupValue === 'phases';

  const convertValues = params.get('convert[energy]');
  let convert: 'kWh' | 'kW' | undefined;
  if (convertValues !== undefined) {
    if (convertValues.length > 1 || convertValues[0].includes(',')) {
      throw badRequest('Only one convert[energy] value may be specified');
    }
    const v = convertValues[0];
    if (v !== 'kWh' && v !== 'kW') throw badRequest('The convert[energy] value must be kWh or kW');
    convert = v;
  }

  const fieldsValue = single(params, 'fields[energy]');
  let powerFactor = false;
  let timestampOnly = false;
  if (fieldsValue !== undefined) {
    for (const item of fieldsValue.split(',')) {
      // A client that turns '+' into a space is tolerated (release 3.4.3).
      if (item === '+pf' || item === ' pf') powerFactor = true;
      else if (item === 'pf') throw badRequest('The fields[energy] value pf must be sent with a plus sign: +pf');
      else if (item === 'timestamp') timestampOnly = true;
      else throw badRequest(firstOrLatest ? 'The fields[energy] value must be +pf or timestamp' : 'The fields[energy] value must be +pf');
    }
    if (powerFactor && timestampOnly) throw badRequest('The fields[energy] values +pf and timestamp are mutually exclusive');
    if (timestampOnly && !firstOrLatest) throw badRequest('The fields[energy] value timestamp is only available on first and latest');
    if (timestampOnly && convert) throw badRequest('The fields[energy] value timestamp cannot be combined with convert[energy]');
    if (timestampOnly && group) throw badRequest('The fields[energy] value timestamp cannot be combined with filter[group]=phases');
    if (powerFactor && group) throw badRequest('The fields[energy] value +pf cannot be combined with filter[group]=phases');
  }
  return { group, convert, powerFactor, timestampOnly };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

function regroup(raw: RawEntry, groups: number[][]): RawEntry {
  const by = (values: number[], combine: (xs: number[]) => number): number[] => groups.map((g) => combine(g.map((i) => values[i])));
  const mean = (xs: number[]): number => round(sum(xs) / xs.length, 2);
  const isMin = (name: string): boolean => name.endsWith('Min');
  const isMax = (name: string): boolean => name.endsWith('Max');
  const pick = (name: string, xs: number[]): number => (isMin(name) ? Math.min(...xs) : isMax(name) ? Math.max(...xs) : mean(xs));
  return {
    ...raw,
    energy: raw.energy.map(([name, v]) => [name, by(v, sum)]),
    volts: raw.volts.map(([name, v]) => [name, by(v, (xs) => pick(name, xs))]),
    amps: raw.amps.map(([name, v]) => [name, by(v, (xs) => round(sum(xs), 3))]),
  };
}

function powerFactorOf(raw: RawEntry): Array<number | null> {
  const real = raw.energy.find(([n]) => n === 'eReal')?.[1] ?? [];
  const reactive = raw.energy.find(([n]) => n === 'eReactive')?.[1] ?? [];
  return real.map((p, i) => {
    const denominator = Math.sqrt(p * p + reactive[i] * reactive[i]);
    return denominator === 0 ? null : round(p / denominator, 3);
  });
}

function converted(name: string, values: number[], convert: 'kWh' | 'kW' | undefined, duration: number): [string, number[]] {
  if (convert === 'kWh') return [`${name}Kwh`, values.map((j) => j / 3600000)];
  if (convert === 'kW') return [`p${name.slice(1)}Kw`, values.map((j) => j / (1000 * duration))];
  return [name, values];
}

/** Applies the options; `groups` are channel indexes per phase group (only used when grouping). */
export function formatEntry(raw: RawEntry, opts: EnergyOptions, groups: number[][]): EnergyEntry {
  if (opts.timestampOnly) return { timestamp: raw.timestamp };
  const entry = opts.group ? regroup(raw, groups) : raw;
  const out: EnergyEntry = { timestamp: entry.timestamp, duration: entry.duration };
  if (opts.group) out.groupedBy = 'phases';
  if (entry.frequency !== undefined) out.frequency = entry.frequency;
  for (const [name, values] of entry.energy) {
    const [outName, outValues] = converted(name, values, opts.convert, entry.duration);
    out[outName] = outValues;
  }
  for (const [name, values] of [...entry.volts, ...entry.amps]) out[name] = values;
  if (opts.powerFactor) out.powerFactor = powerFactorOf(raw);
  return out;
}
