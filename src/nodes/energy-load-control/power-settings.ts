import { ConfigError } from '../../api/index.js';
import type { PowerSettings } from '../../domain/site/types.js';
import type { EnergyTargetSettings } from '../../domain/planning/energy-target.js';
import { parseBy } from '../../domain/planning/period.js';
import { parseMicros } from '../../domain/pricing/money.js';
import type { Mode } from '../../domain/site/types.js';

/** A modulating load's properties as the editor saves them (numbers may arrive as text). */
export interface PowerDef {
  control?: string;
  minCurrent?: string | number;
  maxCurrent?: string | number;
  phases?: string | number;
  voltage?: string | number;
  minPower?: string | number;
  maxPower?: string | number;
  step?: string | number;
  enableDelay?: string | number;
  disableDelay?: string | number;
  gridAllowance?: string | number;
  minInterval?: string | number;
  energyTarget?: string | number;
  by?: string;
  maxPrice?: string | number;
  runFor?: string | number;
  cheapBelow?: string | number;
}

export const POWER_DEFAULTS = { minCurrent: 6, maxCurrent: 16, phases: 1, voltage: 230, stepA: 1, stepW: 100, enableDelay: 60, disableDelay: 180, gridAllowance: 0, minInterval: 60 } as const;

const given = (raw: unknown): boolean => raw !== undefined && raw !== null && String(raw).trim() !== '';

function number(raw: unknown, name: string, fallback: number, min: number, max = Infinity): number {
  if (!given(raw)) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min}${max === Infinity ? '' : ` to ${max}`}, not "${String(raw).slice(0, 20)}"`);
  }
  return value;
}

/**
 * `control`: `onoff` (undefined: the load is switched, as before) or `power`: a setpoint in amperes (minCurrent,
 * maxCurrent, phases, voltage) or, when minPower/maxPower are given, in watts. A modulating load is driven by the
 * flow (output 1 carries the setpoint) in surplus or peak mode.
 */
export function parsePower(def: PowerDef, mode: Mode, actuator: string): PowerSettings | undefined {
  const control = def.control || 'onoff';
  if (control !== 'onoff' && control !== 'power') throw new ConfigError(`control must be onoff or power, not "${String(def.control).slice(0, 20)}"`);
  if (control === 'onoff') return undefined;
  if (actuator !== 'flow') throw new ConfigError('control power sends a setpoint on output 1: choose actuator flow (a relay only switches on and off)');
  if (mode !== 'surplus' && mode !== 'peak') throw new ConfigError(`control power follows the solar surplus or a peak limit, not ${mode} mode`);
  const inWatts = given(def.minPower) || given(def.maxPower);
  let unit: PowerSettings['unit'];
  let min: number;
  let max: number;
  let wattsPerUnit: number;
  if (inWatts) {
    unit = 'W';
    min = number(def.minPower, 'minPower (W)', NaN, 1);
    max = number(def.maxPower, 'maxPower (W)', NaN, 1);
    if (!given(def.minPower) || !given(def.maxPower)) throw new ConfigError('minPower and maxPower (W) go together: give both, or neither for a setpoint in amperes');
    wattsPerUnit = 1;
  } else {
    unit = 'A';
    min = number(def.minCurrent, 'minCurrent (A)', POWER_DEFAULTS.minCurrent, 0.1, 500);
    max = number(def.maxCurrent, 'maxCurrent (A)', POWER_DEFAULTS.maxCurrent, 0.1, 500);
    const phases = number(def.phases, 'phases', POWER_DEFAULTS.phases, 1, 3);
    if (phases !== 1 && phases !== 3) throw new ConfigError(`phases must be 1 or 3, not ${phases}`);
    wattsPerUnit = phases * number(def.voltage, 'voltage (V)', POWER_DEFAULTS.voltage, 50, 500);
  }
  if (min > max) throw new ConfigError(`the minimum (${min} ${unit}) is above the maximum (${max} ${unit})`);
  const step = number(def.step, `step (${unit})`, unit === 'A' ? POWER_DEFAULTS.stepA : POWER_DEFAULTS.stepW, 0.001);
  return {
    unit, wattsPerUnit, min, max, step,
    enableDelayS: number(def.enableDelay, 'enableDelay (s)', POWER_DEFAULTS.enableDelay, 0),
    disableDelayS: number(def.disableDelay, 'disableDelay (s)', POWER_DEFAULTS.disableDelay, 0),
    gridAllowanceW: number(def.gridAllowance, 'gridAllowance (W)', POWER_DEFAULTS.gridAllowance, 0),
    minIntervalS: number(def.minInterval, 'minInterval (s)', POWER_DEFAULTS.minInterval, 0),
  };
}

/**
 * A modulating load's energy target: `energyTarget` kWh by `by` (empty = the end of the day), within `maxPrice`.
 * Run targets (runFor, cheapBelow) are for loads switched on and off.
 */
export function parseEnergyTarget(def: PowerDef, power: PowerSettings | undefined): EnergyTargetSettings | undefined {
  const kWh = number(def.energyTarget, 'energyTarget (kWh)', 0, 0, 1000);
  if (!power) {
    if (kWh > 0) throw new ConfigError('energyTarget (kWh) is for a modulating load (control power): a load switched on and off has runFor');
    return undefined;
  }
  if (Number(def.runFor ?? 0) > 0 || given(def.cheapBelow)) throw new ConfigError('a modulating load (control power) has an energy target (energyTarget kWh by a time), not runFor or cheapBelow');
  if (kWh === 0) return undefined;
  let byMinute: number;
  let maxPriceMicros: number | undefined;
  try {
    byMinute = parseBy(def.by);
    maxPriceMicros = given(def.maxPrice) ? parseMicros(def.maxPrice) : undefined;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return { wh: kWh * 1000, byMinute, ...(maxPriceMicros === undefined ? {} : { maxPriceMicros }) };
}
