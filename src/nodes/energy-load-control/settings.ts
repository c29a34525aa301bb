import { checkDeviceId, ConfigError, type Device } from '../../api/index.js';
import { parseMicros } from '../../domain/pricing/money.js';
import { switchIdFor } from '../../domain/site/switch-command.js';
import { parseBy } from '../../domain/planning/period.js';
import { NAIVE_SCHEDULES, type NaiveSchedule } from '../../domain/planning/savings.js';
import { channelIndex } from '../../domain/site/signal.js';
import { COMMAND_FORMS, CONFIRM_BYS, type ActuatorKind, type CommandForm, type ConfirmBy } from '../../domain/site/actuator.js';
import type { FailSafe, LoadSettings, Mode, TargetSettings } from '../../domain/site/types.js';
import { parseEnergyTarget, parsePower, type PowerDef } from './power-settings.js';

/** The node's properties as the editor saves them (numbers may arrive as text). */
export interface LoadControlDef extends PowerDef {
  deviceId?: string;
  switchDeviceId?: string;
  switchId?: string;
  mode?: string;
  channels?: string;
  loadChannel?: string;
  loadPower?: string | number;
  onAbove?: string | number;
  offBelow?: string | number;
  margin?: string | number;
  limit?: string | number;
  window?: string | number;
  minOn?: string | number;
  minOff?: string | number;
  maxOff?: string | number;
  priority?: string | number;
  staleAfter?: string | number;
  failSafe?: string;
  dryRun?: boolean;
  interval?: string | number;
  runFor?: string | number;
  by?: string;
  minBlock?: string | number;
  maxPrice?: string | number;
  cheapBelow?: string | number;
  /** The naive schedule the savings are measured against: `timer` (ending at by, the default) or `start`. */
  naive?: string;
  tariff?: string;
  actuator?: string;
  commandForm?: string;
  confirmBy?: string;
  confirmAfter?: string | number;
}

export const DEFAULTS = { margin: 200, window: 300, minOn: 300, minOff: 300, maxOff: 0, priority: 1, staleAfter: 600, interval: 30, failSafe: 'hold', minBlock: 1800, confirmAfter: 30 } as const;
/** How long a switch change may stay pending before it counts as timed out (as energy-switch-control). */
export const SWITCH_TIMEOUT_S = 180;
/** Grid connect (spec: import positive, export negative). */
const GRID_CONNECT = 1;
/** Channel categories that measure the sun: Solar generation, Hybrid solar & battery system. */
const SOLAR_CATEGORIES = [5, 12];
const MODES: readonly Mode[] = ['threshold', 'surplus', 'peak', 'price'];
const DAY_S = 86400;
const FAIL_SAFES: readonly FailSafe[] = ['hold', 'open', 'closed'];

/** Everything fixed at deploy: the devices, the switch and the numbers. Channels are resolved against the device later. */
export interface ParsedDef {
  deviceId: string;
  switchDeviceId: string;
  switchId: string;
  intervalS: number;
  channels: string[];
  loadChannel?: string;
  settings: Omit<LoadSettings, 'channels' | 'loadChannel'>;
  /** The energy-tariff config node's id, when the plan reads prices from a tariff. */
  tariffId?: string;
  /** Who switches the load, and for a flow's actuator how commands are worded and its state is known. */
  actuator: ActuatorKind;
  flow?: { commandForm: CommandForm; confirmBy: ConfirmBy; confirmAfterS: number };
}

/** The actuator's properties: `device` (the relay, a switch required) unless `flow` is chosen. */
function parseActuator(def: LoadControlDef, loadChannel: string | undefined): Pick<ParsedDef, 'actuator' | 'flow'> {
  const actuator = (def.actuator || 'device') as ActuatorKind;
  if (actuator !== 'device' && actuator !== 'flow') throw new ConfigError(`actuator must be device or flow, not "${String(def.actuator).slice(0, 20)}"`);
  if (actuator === 'device') return { actuator };
  const commandForm = (def.commandForm || 'onoff') as CommandForm;
  if (!COMMAND_FORMS.includes(commandForm)) throw new ConfigError(`commandForm must be onoff, truefalse, ONOFF or 10, not "${String(def.commandForm).slice(0, 20)}"`);
  const confirmBy = (def.confirmBy || 'feedback') as ConfirmBy;
  if (!CONFIRM_BYS.includes(confirmBy)) throw new ConfigError(`confirmBy must be feedback, draw or time, not "${String(def.confirmBy).slice(0, 20)}"`);
  if (confirmBy === 'draw' && loadChannel === undefined) throw new ConfigError('confirmBy draw needs loadChannel: the channel that measures the load');
  const confirmAfterS = num(def.confirmAfter, 'confirmAfter (s)', DEFAULTS.confirmAfter, 1);
  if (confirmAfterS > SWITCH_TIMEOUT_S) throw new ConfigError(`confirmAfter (${confirmAfterS} s) must not be above ${SWITCH_TIMEOUT_S} s`);
  return { actuator, flow: { commandForm, confirmBy, confirmAfterS } };
}

function num(raw: unknown, name: string, fallback: number | undefined, min = 0): number {
  if (raw === undefined || raw === null || raw === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required`);
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new ConfigError(`${name} must be a number of at least ${min}, not "${String(raw).slice(0, 20)}"`);
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(/[\s,]+/).filter((s) => s !== '');
}

function deviceIdOf(raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') throw new ConfigError('no device id: choose the device that measures the site');
  return checkDeviceId(String(raw));
}

/** Checks the properties; throws a readable error for anything the node cannot work with. */
export function parseDef(def: LoadControlDef): ParsedDef {
  const deviceId = deviceIdOf(def.deviceId);
  const switchDeviceId = def.switchDeviceId ? deviceIdOf(def.switchDeviceId) : deviceId;
  const loadChannel = def.loadChannel?.trim() || undefined;
  const actuator = parseActuator(def, loadChannel);
  // A load switched by the flow needs no switch on any device: the monitor only measures it.
  const switchId = actuator.actuator === 'flow' ? '' : switchIdFor(switchDeviceId, def.switchId);
  if (switchId === undefined) throw new ConfigError('no switch: choose the switch this node drives, or actuator "flow" for a load switched by another node');
  const mode = (def.mode || 'surplus') as Mode;
  if (!MODES.includes(mode)) throw new ConfigError(`mode must be threshold, surplus, peak or price, not "${String(def.mode).slice(0, 20)}"`);
  const failSafe = (def.failSafe || DEFAULTS.failSafe) as FailSafe;
  if (!FAIL_SAFES.includes(failSafe)) throw new ConfigError(`failSafe must be hold, open or closed, not "${String(def.failSafe).slice(0, 20)}"`);
  const threshold = mode === 'threshold';
  const onAbove = threshold ? num(def.onAbove, 'onAbove (W)', undefined, -Infinity) : 0;
  const offBelow = threshold ? num(def.offBelow, 'offBelow (W)', undefined, -Infinity) : 0;
  if (threshold && offBelow > onAbove) throw new ConfigError(`offBelow (${offBelow} W) must not be above onAbove (${onAbove} W): the gap between them is the hysteresis`);
  const limit = mode === 'peak' ? num(def.limit, 'limit (W)', undefined, 1) : 0;
  const windowS = num(def.window, 'window (s)', DEFAULTS.window, 1);
  const intervalS = num(def.interval, 'interval (s)', DEFAULTS.interval);
  if (intervalS > 0 && intervalS < 5) throw new ConfigError('interval must be 0 (only on msg.payload "evaluate") or at least 5 s');
  if (loadChannel && channelIndex(deviceId, loadChannel) === null) throw new ConfigError(`loadChannel "${loadChannel.slice(0, 40)}" is not a channel of ${deviceId} (a number or ${deviceId}_C<n>)`);
  const channels = list(def.channels);
  for (const c of channels) if (channelIndex(deviceId, c) === null) throw new ConfigError(`channel "${c.slice(0, 40)}" is not a channel of ${deviceId} (a number or ${deviceId}_C<n>)`);
  const power = parsePower(def, mode, actuator.actuator);
  const energyTarget = parseEnergyTarget(def, power);
  const target = power ? undefined : parseTarget(def, mode);
  return {
    deviceId, switchDeviceId: actuator.actuator === 'flow' ? deviceId : switchDeviceId, switchId, intervalS, channels, loadChannel, ...actuator,
    tariffId: def.tariff?.trim() || undefined,
    settings: {
      ...(target ? { target } : {}),
      mode, onAbove, offBelow, limit, windowS, failSafe,
      loadPower: num(def.loadPower, 'loadPower (W)', 0),
      margin: num(def.margin, 'margin (W)', DEFAULTS.margin),
      minOnS: num(def.minOn, 'minOn (s)', DEFAULTS.minOn),
      minOffS: num(def.minOff, 'minOff (s)', DEFAULTS.minOff),
      maxOffS: num(def.maxOff, 'maxOff (s)', DEFAULTS.maxOff),
      priority: num(def.priority, 'priority', DEFAULTS.priority, 1),
      staleAfterS: num(def.staleAfter, 'staleAfter (s)', DEFAULTS.staleAfter, 1),
      dryRun: def.dryRun === true,
      timeoutS: SWITCH_TIMEOUT_S,
      ...(actuator.actuator === 'flow' ? { actuator: 'flow' as const } : {}),
      ...(power ? { power } : {}),
      ...(energyTarget ? { energyTarget } : {}),
    },
  };
}

function price(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  try {
    return parseMicros(raw);
  } catch (err) {
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

/**
 * The run target: runFor by `by`, in blocks of minBlock, within maxPrice, always at cheapBelow. A node with
 * none of them and not in price mode has no target and decides exactly as before targets existed.
 */
function parseTarget(def: LoadControlDef, mode: Mode): TargetSettings | undefined {
  const runForS = num(def.runFor, 'runFor (s)', 0);
  if (runForS > DAY_S) throw new ConfigError(`runFor (${runForS} s) is more than a day (${DAY_S} s)`);
  const maxPriceMicros = price(def.maxPrice, 'maxPrice');
  const cheapBelowMicros = price(def.cheapBelow, 'cheapBelow');
  if (mode !== 'price' && runForS === 0 && cheapBelowMicros === undefined) return undefined;
  if (mode === 'threshold' || mode === 'peak') throw new ConfigError(`a run target (runFor, cheapBelow) is planned in surplus or price mode, not in ${mode} mode`);
  if (mode === 'price' && runForS === 0 && cheapBelowMicros === undefined) throw new ConfigError('price mode needs runFor (s of running a day) or cheapBelow (a price to always run at)');
  if (maxPriceMicros !== undefined && cheapBelowMicros !== undefined && cheapBelowMicros > maxPriceMicros) throw new ConfigError(`cheapBelow (${def.cheapBelow}) is above maxPrice (${def.maxPrice}): it would always run where it may never buy`);
  let byMinute: number;
  try {
    byMinute = parseBy(def.by);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return { runForS, byMinute, minBlockS: num(def.minBlock, 'minBlock (s)', DEFAULTS.minBlock), maxPriceMicros, cheapBelowMicros, naive: naiveOf(def.naive) };
}

function naiveOf(value: string | undefined): NaiveSchedule {
  if (value === undefined || value === '') return 'timer';
  if (!NAIVE_SCHEDULES.includes(value as NaiveSchedule)) throw new ConfigError(`naive "${String(value).slice(0, 10)}" is not a schedule: timer (ending at by) or start (at the start of the day)`);
  return value as NaiveSchedule;
}

/** The settings with channels as indexes: the ones given, else the device's Grid connect channel. */
export function resolveSettings(parsed: ParsedDef, device: Device): LoadSettings {
  const count = device.channels.length;
  const index = (raw: string): number => {
    const i = channelIndex(parsed.deviceId, raw) as number;
    if (i >= count) throw new ConfigError(`channel ${raw} does not exist: ${parsed.deviceId} has ${count} channels`);
    return i;
  };
  let channels = parsed.channels.map(index);
  if (channels.length === 0) {
    const grid = device.channels.findIndex((c) => c.categoryId === GRID_CONNECT);
    if (grid < 0) throw new ConfigError(`no channels chosen and ${parsed.deviceId} has no channel of category Grid connect: choose the channels that measure the signal`);
    channels = [grid];
  }
  const loadChannel = parsed.loadChannel === undefined ? undefined : index(parsed.loadChannel);
  const solarChannels = device.channels.flatMap((c, i) => (SOLAR_CATEGORIES.includes(c.categoryId) ? [i] : []));
  return { ...parsed.settings, channels, loadChannel, solarChannels };
}
