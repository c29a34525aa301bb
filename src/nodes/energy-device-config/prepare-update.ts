import { EnergyApiError, type ApiErrorDetail, type DeviceUpdate } from '../../api/index.js';
import { assertPlainData } from '../shared/msg-guard.js';

type Json = Record<string, unknown>;

/**
 * Turns `msg.payload` into the PATCH body: channels, switches and phase-group members may be given
 * by number (2 → `<deviceId>_C2`); switch state and WiFi credentials are refused because other
 * nodes own them. Every other rule of spec 4.3 is the client's (updateDevice validates before sending).
 */
export function prepareUpdate(payload: unknown, deviceId: string): DeviceUpdate {
  if (!isObject(payload)) {
    throw EnergyApiError.invalid('msg.payload must be an object with the fields to change, for example {"label": "Workshop"}');
  }
  assertPlainData(payload, 'msg.payload');
  const update = structuredClone(payload);
  const problems: string[] = [];

  if (update.comms !== undefined) {
    problems.push('comms: WiFi credentials are set with the energy-wifi-config node, which also tracks them until the device applies them');
  }
  mapMembers(update, 'channels', 'C', deviceId);
  mapMembers(update, 'switches', 'S', deviceId);
  if (Array.isArray(update.switches)) {
    update.switches.forEach((sw: unknown, i) => {
      if (isObject(sw) && sw.state !== undefined) {
        problems.push(`switches[${i}].state: switch state is not set here; use the energy-switch-control node, which tracks the command until the device confirms it`);
      }
    });
  }
  if (isObject(update.phases) && Array.isArray(update.phases.grouping)) {
    for (const group of update.phases.grouping as unknown[]) {
      if (isObject(group) && Array.isArray(group.included)) group.included = group.included.map((id) => memberId(id, 'C', deviceId));
    }
  }

  if (problems.length) {
    const errors: ApiErrorDetail[] = problems.map((message) => ({ code: 'INVALID_FIELD', message }));
    throw EnergyApiError.invalid(`refused: ${problems.join('; ')}`, errors);
  }
  return update as DeviceUpdate;
}

function mapMembers(update: Json, field: 'channels' | 'switches', kind: 'C' | 'S', deviceId: string): void {
  const list = update[field];
  if (!Array.isArray(list)) return;
  for (const member of list as unknown[]) {
    if (isObject(member) && member.id !== undefined) member.id = memberId(member.id, kind, deviceId);
  }
}

/** A channel or switch number (1, "1") becomes its id; anything else is left for validation. */
export function memberId(id: unknown, kind: 'C' | 'S', deviceId: string): unknown {
  const number = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id.trim()) ? Number(id) : NaN;
  return Number.isInteger(number) && number >= 1 ? `${deviceId}_${kind}${number}` : id;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
