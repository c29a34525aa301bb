import { EnergyApiError, supportsModbus, supportsSwitching, type Device, type Switch, type SwitchState } from '../../api/index.js';
import { describeValue } from '../describe-value.js';

/** What a msg asks for: a state, or the opposite of the last known (or already requested) state. */
export type SwitchCommand = SwitchState | 'toggle';

const WORDS: Record<string, SwitchCommand> = {
  open: 'open',
  closed: 'closed',
  close: 'closed',
  toggle: 'toggle',
  on: 'closed',
  off: 'open',
  true: 'closed',
  false: 'open',
  '1': 'closed',
  '0': 'open',
};

/**
 * Reads `msg.payload`. The API's own words (open, closed, toggle) come first, then the switch's
 * own state labels (case-insensitive), then on/off, true/false and 1/0 (closed = current flows).
 */
export function parseCommand(payload: unknown, sw: Switch): SwitchCommand {
  if (payload === true || payload === 1) return 'closed';
  if (payload === false || payload === 0) return 'open';
  if (typeof payload === 'string') {
    const text = payload.trim().toLowerCase();
    if (text === 'open' || text === 'closed' || text === 'toggle') return text;
    const open = sw.openStateLabel?.trim().toLowerCase();
    const closed = sw.closedStateLabel?.trim().toLowerCase();
    if (text && open !== closed) {
      if (text === open) return 'open';
      if (text === closed) return 'closed';
    }
    const word = WORDS[text];
    if (word) return word;
  }
  const shown = describeValue(payload);
  throw EnergyApiError.invalid(
    `msg.payload ${shown} is not a switch command: send open/closed, on/off, true/false, 1/0, toggle` +
      ` or the switch's labels "${sw.closedStateLabel}"/"${sw.openStateLabel}"`,
  );
}

/** The switch id from `msg.switchId` or the node's property: a full id (D…_S2) or its number (2). */
export function switchIdFor(deviceId: string, raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'number' || (typeof raw === 'string' && /^\s*\d+\s*$/.test(raw))) {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw EnergyApiError.invalid(`switchId ${String(raw)} is not a switch number (1, 2, 3…)`);
    return `${deviceId}_S${n}`;
  }
  if (typeof raw !== 'string') throw EnergyApiError.invalid(`switchId must be a switch id such as D…_S2 or a switch number, not ${describeValue(raw)}`);
  const id = raw.trim();
  if (!id.startsWith(`${deviceId}_S`)) {
    throw EnergyApiError.invalid(`switchId "${id.slice(0, 40)}" is not a switch of device ${deviceId} (its switches are ${deviceId}_S1, _S2…)`);
  }
  return id;
}

/** Refuses, before any write, what the device cannot do; returns the switch to act on. */
export function switchToControl(device: Device, switchId: string | undefined): Switch {
  if (supportsModbus(device.model)) throw EnergyApiError.invalid(`switching is not available on the ${device.model} (device ${device.id})`);
  if (!supportsSwitching(device.model) || device.switches.length === 0) {
    throw EnergyApiError.invalid(`device ${device.id} is a ${device.model}, a model without switches`);
  }
  if (device.uninitialised) {
    throw EnergyApiError.invalid(`device ${device.id} is uninitialised (it has never connected), so its switches cannot be set yet`);
  }
  if (switchId === undefined) {
    if (device.switches.length === 1) return device.switches[0];
    throw EnergyApiError.invalid('no switch: set one in the node or send msg.switchId (an id such as D…_S2, or a number)');
  }
  const sw = device.switches.find((s) => s.id === switchId);
  if (!sw) {
    throw EnergyApiError.invalid(`switch ${switchId} does not exist on device ${device.id}: it has ${device.switches.map((s) => s.id).join(', ')}`);
  }
  return sw;
}

/** The state the switch is heading to: the pending request if any, else its state. */
export function heading(sw: Switch): SwitchState {
  return sw.pending?.state ?? sw.state;
}

export function opposite(state: SwitchState): SwitchState {
  return state === 'open' ? 'closed' : 'open';
}

/** Confirmed: the state is the requested one and nothing is pending any more (spec 3.1). */
export function isConfirmed(device: Device, switchId: string, target: SwitchState): boolean {
  const sw = device.switches.find((s) => s.id === switchId);
  return Boolean(sw && sw.state === target && !sw.pending?.state);
}

export function stateLabel(sw: Switch | undefined, state: SwitchState): string {
  if (!sw) return state;
  return state === 'closed' ? sw.closedStateLabel : sw.openStateLabel;
}
