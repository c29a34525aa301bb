import { MsgError, type Device } from '../../api/index.js';
import { describeValue } from '../describe-value.js';
import { averagePower } from './signal.js';
import { switchToControl } from './switch-command.js';
import type { LoadMemory, LoadSettings, LoadState, ShortEntry, SwitchReading } from './types.js';

/** Who switches the load: the monitor's own relay (a PATCH), or whatever node the flow wires to output 1. */
export type ActuatorKind = 'device' | 'flow';
/** The words a flow actuator's command is sent in. */
export type CommandForm = 'onoff' | 'truefalse' | 'ONOFF' | '10';
/** How a flow actuator's state is known: state msgs sent back, draw on loadChannel, or assumed after confirmAfter. */
export type ConfirmBy = 'feedback' | 'draw' | 'time';

export const COMMAND_FORMS: readonly CommandForm[] = ['onoff', 'truefalse', 'ONOFF', '10'];
export const CONFIRM_BYS: readonly ConfirmBy[] = ['feedback', 'draw', 'time'];

/** The command payload for `state` in `form`. */
export function commandPayload(form: CommandForm, state: LoadState): string | boolean | number {
  const on = state === 'on';
  if (form === 'truefalse') return on;
  if (form === 'ONOFF') return on ? 'ON' : 'OFF';
  if (form === '10') return on ? 1 : 0;
  return on ? 'on' : 'off';
}

const WORDS: Record<string, LoadState> = { on: 'on', off: 'off', true: 'on', false: 'off', '1': 'on', '0': 'off', closed: 'on', open: 'off' };

function word(value: unknown): LoadState | undefined {
  if (value === true || value === 1) return 'on';
  if (value === false || value === 0) return 'off';
  if (typeof value === 'string') return WORDS[value.trim().toLowerCase()];
  return undefined;
}

/**
 * The load's state as an actuator reports it: on/off, true/false, ON/OFF, 1/0; a Shelly Gen2 status
 * (`{output: true}`, Switch.GetStatus, or an RPC answer `{result: {output}}`, or a NotifyStatus `{params: {"switch:0": {output}}}`);
 * a Tasmota `{POWER: "ON"}` or `{POWER1: "OFF"}`. Throws a readable error for anything else.
 */
export function parseFeedback(value: unknown): LoadState {
  const direct = word(value);
  if (direct) return direct;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if ('output' in o) {
      const state = word(o.output);
      if (state) return state;
    }
    const power = Object.keys(o).find((k) => /^POWER\d*$/.test(k));
    if (power) {
      const state = word(o[power]);
      if (state) return state;
    }
    if (o.result && typeof o.result === 'object') return parseFeedback(o.result);
    const params = o.params as Record<string, unknown> | undefined;
    const sw = params && typeof params === 'object' ? Object.keys(params).find((k) => /^switch:\d+$/.test(k)) : undefined;
    if (params && sw) return parseFeedback(params[sw]);
  }
  throw new MsgError(
    `msg.payload ${describeValue(value)} is not a load state: send on/off, true/false, ON/OFF, 1/0, a Shelly status ({"output": true}) or a Tasmota one ({"POWER": "ON"})`,
  );
}

/** What the evaluation knows when it asks a flow actuator for the load's state. */
export interface ActuatorView {
  memory: LoadMemory;
  settings: Pick<LoadSettings, 'loadChannel' | 'loadPower'>;
  entries: readonly ShortEntry[];
  /** Node-clock ms. */
  now: number;
}

/** Draw on loadChannel at or above this (W) means the load runs (as the learnt power's minimum). */
const MIN_DRAW_W = 50;

/**
 * A load switched by the flow: the node sends commands on its output and learns the state from what
 * comes back (feedback), from the load's channel (draw), or assumes it after `confirmAfterS` (time).
 * It reads and writes no device: its readings feed the same observation as a relay's.
 */
export class FlowActuator {
  /** Feedback and commands in the order they happened (one clock instant may see both). */
  private sequence = 0;
  private feedback?: { state: LoadState; seq: number };
  private commandedSeq?: number;
  /** Unreadable feedback: the state is unknown until a readable one comes (the fail-safe applies meanwhile). */
  private unreadable = false;

  constructor(
    readonly confirmBy: ConfirmBy,
    readonly confirmAfterS: number,
  ) {}

  /** A state msg came back; an unreadable one throws and puts the load in its fail-safe until a readable one comes. */
  report(value: unknown): LoadState {
    try {
      const state = parseFeedback(value);
      this.feedback = { state, seq: (this.sequence += 1) };
      this.unreadable = false;
      return state;
    } catch (err) {
      this.unreadable = true;
      throw err;
    }
  }

  /** A command went out: only feedback that comes after it confirms it. */
  commanded(): void {
    this.commandedSeq = this.sequence += 1;
  }

  /** The feedback last received could not be read. */
  get faulty(): boolean {
    return this.unreadable;
  }

  /** The state as the actuator tells it at this evaluation, undefined when it tells nothing new. */
  reading(view: ActuatorView): SwitchReading | undefined {
    const { memory, now } = view;
    if (this.confirmBy === 'feedback') {
      if (!this.feedback || this.unreadable) return undefined;
      // Feedback older than the last command says nothing of it (a status published before the command took effect).
      if (this.commandedSeq !== undefined && this.feedback.seq < this.commandedSeq) return undefined;
      return { state: this.feedback.state };
    }
    if (this.confirmBy === 'time') {
      if (memory.pending && now - memory.pending.at >= this.confirmAfterS * 1000) return { state: memory.pending.target };
      // Nothing tells the state: at first the load is taken as off.
      if (memory.state === undefined && !memory.pending) return { state: 'off' };
      return undefined;
    }
    // By draw: a load on but drawing nothing (its thermostat satisfied) is not "off": only a change we sent, or an unknown state, is read from it.
    if (!memory.pending && memory.state !== undefined) return undefined;
    return this.drawn(view, memory.pending ? memory.pending.at : -Infinity);
  }

  /** On or off as the newest entry wholly after `afterMs` shows the load channel drawing. */
  private drawn(view: ActuatorView, afterMs: number): SwitchReading | undefined {
    const channel = view.settings.loadChannel;
    if (channel === undefined) return undefined;
    const afterS = afterMs / 1000;
    const entries = view.entries.filter((e) => e.timestamp - (e.duration ?? 0) >= afterS && e.timestamp * 1000 <= view.now);
    if (entries.length === 0) return undefined;
    const newest = entries.reduce((a, b) => (b.timestamp > a.timestamp ? b : a));
    const watts = averagePower([newest], [channel]);
    if (watts === null) return undefined;
    return { state: watts >= Math.max(MIN_DRAW_W, view.settings.loadPower * 0.2) ? 'on' : 'off' };
  }
}

/** The monitor's own relay as the device reports it: closed is on; a change waiting on the device is pending. */
export function relayReading(device: Device, switchId: string): SwitchReading {
  const sw = switchToControl(device, switchId);
  const toLoad = (state: string): LoadState => (state === 'closed' ? 'on' : 'off');
  return { state: toLoad(sw.state), pending: sw.pending?.state ? toLoad(sw.pending.state) : undefined };
}
