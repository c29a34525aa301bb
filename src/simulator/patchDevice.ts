/**
 * PATCH /devices/{id} (spec 4.3, 3.1 to 3.3). Everything is validated first and applied only
 * when the whole body is valid; failures are reported together in the multi-error format.
 */
import { CATEGORIES } from './catalog.js';
import { firmwareReaches, isDualTransportModel, isWpa2Key, isRogowskiModel, ROGOWSKI_CT, SETTABLE_CT_RATINGS, WIFI_WRITE_FIRMWARE } from './rules.js';
import { ApiError, badRequest, forbidden, MultiError, unprocessable } from './errors.js';
import { defaultGrouping } from './fleet.js';
import { renderDevice } from './renderDevice.js';
import { ok, type Reply } from './reply.js';
import { isValidZone } from './buckets.js';
import type { BodyStyle, Queued, SimDevice, WifiChange } from './types.js';

const READ_ONLY_DEVICE_FIELDS = ['model', 'firmwareVersion', 'latestStatus', 'uninitialised', 'pending'];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface PatchPlan {
  errors: ApiError[];
  /** Mutations to run once the whole body is known to be valid. */
  apply: Array<() => void>;
  /** A ctRating or switch state change was queued: the answer is 202. */
  accepted: boolean;
}

function text(plan: PatchPlan, name: string, value: unknown, max: number, set: (v: string) => void, nullable = false): void {
  if (value === null && nullable) {
    plan.apply.push(() => set(''));
    return;
  }
  if (typeof value !== 'string') {
    plan.errors.push(badRequest(`The ${name} value must be a string`));
    return;
  }
  if (value.length > max) {
    plan.errors.push(unprocessable(`The ${name} value must be at most ${max} characters`));
    return;
  }
  plan.apply.push(() => set(value));
}

/** Queues a device-side change unless it would change nothing. */
function enqueue<T>(queue: Queued<T>[], current: T, value: T, now: number): boolean {
  if (queue.length === 0 && value === current) return false;
  queue.push({ value, requestedAt: now });
  return true;
}

function planChannels(plan: PatchPlan, dev: SimDevice, value: unknown, now: number): void {
  if (!Array.isArray(value)) {
    plan.errors.push(badRequest('The channels value must be an array'));
    return;
  }
  value.forEach((item: unknown, index) => {
    const where = `channels[${index}]`;
    if (!isObject(item)) return void plan.errors.push(badRequest(`The ${where} value must be an object`));
    if (typeof item.id !== 'string') return void plan.errors.push(badRequest(`The ${where}.id value must be specified`));
    if (!item.id.startsWith(`${dev.id}_C`)) return void plan.errors.push(unprocessable(`The channel id ${item.id} does not match the device id ${dev.id}`));
    const ch = dev.channels.find((c) => c.id === item.id);
    if (!ch) return void plan.errors.push(unprocessable(`The channel id ${item.id} does not exist on device ${dev.id}`));
    for (const [field, v] of Object.entries(item)) {
      if (field === 'id') continue;
      if (field === 'label') text(plan, `${where}.label`, v, 64, (s) => { ch.label = s; });
      else if (field === 'ctRating') {
        if (typeof v !== 'number' || !Number.isInteger(v)) plan.errors.push(badRequest(`The ${where}.ctRating value must be an integer`));
        else if (isRogowskiModel(dev.model)) {
          if (v !== ROGOWSKI_CT) plan.errors.push(unprocessable(`The ctRating of Rogowski device ${dev.id} is fixed at 3000`));
        } else if (!SETTABLE_CT_RATINGS.includes(v)) plan.errors.push(unprocessable(`The ${where}.ctRating value must be one of 60, 120, 200, 400, 600`));
        else {
          plan.apply.push(() => { if (enqueue(ch.ctQueue, ch.ctRating, v, now)) plan.accepted = true; });
        }
      } else if (field === 'categoryId') {
        if (typeof v !== 'number' || !Number.isInteger(v)) plan.errors.push(badRequest(`The ${where}.categoryId value must be an integer`));
        else if (!CATEGORIES.some((c) => c.id === v)) plan.errors.push(unprocessable(`The ${where}.categoryId value ${v} is not a known channel category`));
        else plan.apply.push(() => { ch.categoryId = v; });
      } else if (field === 'categoryLabel' || field === 'pending') plan.errors.push(unprocessable(`The ${where}.${field} value is read-only`));
      else plan.errors.push(badRequest(`Unknown field ${where}.${field}`));
    }
  });
}

function planSwitches(plan: PatchPlan, dev: SimDevice, value: unknown, now: number): void {
  if (!Array.isArray(value)) {
    plan.errors.push(badRequest('The switches value must be an array'));
    return;
  }
  value.forEach((item: unknown, index) => {
    const where = `switches[${index}]`;
    if (!isObject(item)) return void plan.errors.push(badRequest(`The ${where} value must be an object`));
    if (typeof item.id !== 'string') return void plan.errors.push(badRequest(`The ${where}.id value must be specified`));
    if (!item.id.startsWith(`${dev.id}_S`)) return void plan.errors.push(unprocessable(`The switch id ${item.id} does not match the device id ${dev.id}`));
    const sw = dev.switches.find((s) => s.id === item.id);
    if (!sw) return void plan.errors.push(unprocessable(`The switch id ${item.id} does not exist on device ${dev.id}`));
    for (const [field, v] of Object.entries(item)) {
      if (field === 'id') continue;
      if (field === 'label') text(plan, `${where}.label`, v, 64, (s) => { sw.label = s; });
      else if (field === 'closedStateLabel') text(plan, `${where}.closedStateLabel`, v, 16, (s) => { sw.closedStateLabel = s; });
      else if (field === 'openStateLabel') text(plan, `${where}.openStateLabel`, v, 16, (s) => { sw.openStateLabel = s; });
      else if (field === 'contactorType') {
        if (v !== 'NO' && v !== 'NC') plan.errors.push(unprocessable(`The ${where}.contactorType value must be NO or NC`));
        else plan.apply.push(() => { sw.contactorType = v; });
      } else if (field === 'state') {
        if (v !== 'open' && v !== 'closed') plan.errors.push(unprocessable(`The ${where}.state value must be open or closed`));
        else if (dev.uninitialised) plan.errors.push(unprocessable(`The switch state cannot be set on uninitialised device ${dev.id}`));
        else plan.apply.push(() => { if (enqueue(sw.stateQueue, sw.state, v, now)) plan.accepted = true; });
      } else if (field === 'pending') plan.errors.push(unprocessable(`The ${where}.pending value is read-only`));
      else plan.errors.push(badRequest(`Unknown field ${where}.${field}`));
    }
  });
}

function planPhases(plan: PatchPlan, dev: SimDevice, value: unknown): void {
  if (!isObject(value)) return void plan.errors.push(badRequest('The phases value must be an object'));
  const count = value.count;
  if (count === undefined || count === null) return void plan.errors.push(unprocessable('The phases.count value must be specified'));
  if (typeof count !== 'number' || !Number.isInteger(count)) return void plan.errors.push(badRequest('The phases.count value must be an integer'));
  if (count !== 0 && count !== 1 && count !== 2 && count !== 3) return void plan.errors.push(unprocessable('The phases.count value must be 0, 1, 2 or 3'));
  for (const field of Object.keys(value)) {
    if (field !== 'count' && field !== 'grouping') plan.errors.push(badRequest(`Unknown field phases.${field}`));
  }
  const channelIds = dev.channels.map((c) => c.id);
  if (value.grouping === undefined) {
    if (count === 0) return void plan.errors.push(unprocessable('The phases.grouping value is required when phases.count is 0'));
    const grouping = defaultGrouping(channelIds.length, count).map((g) => g.map((n) => channelIds[n - 1]));
    plan.apply.push(() => { dev.phasesCount = count; dev.grouping = grouping; });
    return;
  }
  const raw = value.grouping;
  if (!Array.isArray(raw) || !raw.every((g) => isObject(g) && Array.isArray(g.included) && g.included.every((id: unknown) => typeof id === 'string'))) {
    return void plan.errors.push(badRequest('The phases.grouping value must be an array of {included: [channel ids]}'));
  }
  const grouping = raw.map((g) => [...((g as { included: string[] }).included)]);
  const before = plan.errors.length;
  const seen = new Set<string>();
  grouping.forEach((group, i) => {
    if (group.length === 0) plan.errors.push(unprocessable(`The phases.grouping[${i}] group must include at least one channel`));
    if (count > 0 && group.length > count) plan.errors.push(unprocessable(`The phases.grouping[${i}] group has more channels than phases.count ${count} allows`));
    for (const id of group) {
      if (!channelIds.includes(id)) plan.errors.push(unprocessable(`The channel id ${id} in phases.grouping does not exist on device ${dev.id}`));
      else if (seen.has(id)) plan.errors.push(unprocessable(`The channel id ${id} appears more than once in phases.grouping`));
      seen.add(id);
    }
  });
  if (plan.errors.length === before && seen.size !== channelIds.length) {
    plan.errors.push(unprocessable('The phases.grouping value must include every channel of the device exactly once'));
  }
  plan.apply.push(() => { dev.phasesCount = count; dev.grouping = grouping; });
}

function planComms(plan: PatchPlan, dev: SimDevice, value: unknown, now: number): void {
  if (!isObject(value)) return void plan.errors.push(badRequest('The comms value must be an object'));
  for (const [field, wifiValue] of Object.entries(value)) {
    if (field !== 'wifi') {
      plan.errors.push(unprocessable(`The comms.${field} value is read-only`));
      continue;
    }
    if (!isObject(wifiValue)) return void plan.errors.push(badRequest('The comms.wifi value must be an object'));
    if (!isDualTransportModel(dev.model) || !dev.wifi) {
      return void plan.errors.push(unprocessable(`WiFi credentials can only be set on 6MW series devices; ${dev.id} is a ${dev.model}`));
    }
    if (!dev.uninitialised && !firmwareReaches(dev.firmwareVersion, WIFI_WRITE_FIRMWARE)) {
      return void plan.errors.push(unprocessable(`WiFi credentials need firmware ${WIFI_WRITE_FIRMWARE} or later; device ${dev.id} has ${dev.firmwareVersion}`));
    }
    const { ssid, psk } = wifiValue;
    for (const key of Object.keys(wifiValue)) {
      if (key !== 'ssid' && key !== 'psk') plan.errors.push(unprocessable(`The comms.wifi.${key} value is read-only`));
    }
    if (ssid !== undefined && typeof ssid !== 'string') return void plan.errors.push(badRequest('The comms.wifi.ssid value must be a string'));
    if (psk !== undefined && typeof psk !== 'string') return void plan.errors.push(badRequest('The comms.wifi.psk value must be a string'));
    if (ssid === undefined && psk === undefined) return;
    // An 802.11 SSID is at most 32 octets: the device counts UTF-8 bytes, not characters.
    if (typeof ssid === 'string' && Buffer.byteLength(ssid, 'utf8') > 32) return void plan.errors.push(unprocessable('The comms.wifi.ssid value must be at most 32 bytes (UTF-8)'));
    const turningOff = ssid === '' && psk === '';
    if (ssid === '' && !turningOff) return void plan.errors.push(unprocessable('An empty comms.wifi.ssid is only accepted with an empty comms.wifi.psk (WiFi off)'));
    if (psk === '' && ssid === undefined) return void plan.errors.push(unprocessable('An empty comms.wifi.psk is only accepted with an empty comms.wifi.ssid (WiFi off)'));
    if (typeof psk === 'string' && psk !== '' && !isWpa2Key(psk)) {
      return void plan.errors.push(unprocessable('The comms.wifi.psk value must be 8 to 63 printable ASCII characters or 64 hexadecimal digits'));
    }
    const change: WifiChange = {};
    if (ssid !== undefined) change.ssid = ssid;
    if (psk !== undefined) change.pskUpdatedAt = Math.floor(now);
    const radio = dev.wifi;
    plan.apply.push(() => { radio.queue.push({ value: change, requestedAt: now }); });
  }
}

/** Answered with the bare device object as the live service does, or `{status, result}` as the spec shows. */
export function patchDevice(dev: SimDevice, body: unknown, canSwitch: boolean, now: number, style: BodyStyle = 'live'): Reply {
  if (!isObject(body)) throw new MultiError([badRequest('The request body must be a JSON object')]);
  const switchesBody = body.switches;
  if (Array.isArray(switchesBody) && switchesBody.some((s) => isObject(s) && 'state' in s) && !canSwitch) {
    throw forbidden('The API key does not permit switching');
  }
  const plan: PatchPlan = { errors: [], apply: [], accepted: false };
  for (const [field, value] of Object.entries(body)) {
    switch (field) {
      case 'id':
        if (typeof value !== 'string') plan.errors.push(badRequest('The id value must be a string'));
        else if (value !== dev.id) plan.errors.push(unprocessable(`The id value ${value} does not match the device id ${dev.id}`));
        break;
      case 'label':
        text(plan, 'label', value, 64, (s) => { dev.label = s; }, true);
        break;
      case 'timezone':
        if (typeof value !== 'string') plan.errors.push(badRequest('The timezone value must be a string'));
        else if (value.length > 64) plan.errors.push(unprocessable('The timezone value must be at most 64 characters'));
        else if (!isValidZone(value)) plan.errors.push(unprocessable(`The timezone value ${value} is not a valid TZ database name`));
        else plan.apply.push(() => { dev.timezone = value; });
        break;
      case 'shortEnergyReportingInterval':
        plan.errors.push(forbidden('The shortEnergyReportingInterval value is read-only'));
        break;
      case 'channels':
        planChannels(plan, dev, value, now);
        break;
      case 'switches':
        planSwitches(plan, dev, value, now);
        break;
      case 'phases':
        planPhases(plan, dev, value);
        break;
      case 'comms':
        planComms(plan, dev, value, now);
        break;
      default:
        if (READ_ONLY_DEVICE_FIELDS.includes(field)) plan.errors.push(unprocessable(`The ${field} value is read-only`));
        else plan.errors.push(badRequest(`Unknown field ${field}`));
    }
  }
  if (plan.errors.length > 0) throw new MultiError(plan.errors);
  for (const mutate of plan.apply) mutate();
  if (dev.uninitialised) dev.initialQueue.push({ requestedAt: now, body });
  const status = plan.accepted ? 202 : 200;
  const device = renderDevice(dev, now, style);
  return ok(style === 'live' ? device : { status, result: device }, status);
}
