import Ajv, { type ErrorObject, type JSONSchemaType } from 'ajv';
import { EnergyApiError, type ApiErrorDetail } from './errors.js';
import { firmwareAtLeast, isDualTransport, isRogowski, ROGOWSKI_CT_RATING, STANDARD_CT_RATINGS, supportsSwitching, WIFI_MIN_FIRMWARE } from './models.js';
import { isValidTimezone } from './time.js';
import type { Device, DeviceUpdate } from './types.js';

/** The shape rules of PATCH /devices/{id} (spec 4.3). Device-specific rules follow in `deviceRules`. */
const updateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    label: { type: ['string', 'null'], maxLength: 64 },
    timezone: { type: 'string', maxLength: 64 },
    channels: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id: { type: 'string' },
          label: { type: 'string', maxLength: 64 },
          ctRating: { type: 'integer', enum: [...STANDARD_CT_RATINGS, ROGOWSKI_CT_RATING] },
          categoryId: { type: 'integer' },
        },
      },
    },
    phases: {
      type: 'object',
      additionalProperties: false,
      required: ['count'],
      properties: {
        count: { type: 'integer', enum: [0, 1, 2, 3] },
        grouping: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['included'],
            properties: { included: { type: 'array', minItems: 1, items: { type: 'string' } } },
          },
        },
      },
    },
    switches: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id: { type: 'string' },
          label: { type: 'string', maxLength: 64 },
          state: { type: 'string', enum: ['open', 'closed'] },
          contactorType: { type: 'string', enum: ['NO', 'NC'] },
          closedStateLabel: { type: 'string', maxLength: 16 },
          openStateLabel: { type: 'string', maxLength: 16 },
        },
      },
    },
    comms: {
      type: 'object',
      additionalProperties: false,
      properties: {
        wifi: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          // The SSID's limit is in bytes, not characters: see ssidLengthProblem.
          properties: { ssid: { type: 'string' }, psk: { type: 'string', maxLength: 64 } },
        },
      },
    },
  },
} as const;

const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** What WPA2 takes as a pre-shared key, in words for an error (the PSK itself is never echoed). */
export const WPA_PSK_RULE = 'a WPA2 passphrase of 8 to 63 printable ASCII characters (codes 32 to 126, so no ä, ö, ü, ß or other letters outside ASCII), or a key of exactly 64 hexadecimal digits';

/** WPA2 (IEEE 802.11i): a passphrase of 8 to 63 printable ASCII characters, or the 256-bit key as 64 hex digits. */
export function isWpaPsk(psk: string): boolean {
  return /^[\x20-\x7e]{8,63}$/.test(psk) || /^[0-9A-Fa-f]{64}$/.test(psk);
}

/** An 802.11 SSID is at most 32 octets, whatever the characters (an "é" takes 2, an emoji 4). */
export const SSID_MAX_BYTES = 32;

/** What is wrong with the SSID's length, to follow its field name in an error; undefined when it fits. */
export function ssidLengthProblem(ssid: string): string | undefined {
  const bytes = new TextEncoder().encode(ssid).length;
  if (bytes <= SSID_MAX_BYTES) return undefined;
  return `must be at most ${SSID_MAX_BYTES} bytes in UTF-8 (the 802.11 limit; a letter outside ASCII takes 2 to 4 bytes): this one has ${bytes} bytes`;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateShape = ajv.compile<DeviceUpdate>(updateSchema as unknown as JSONSchemaType<DeviceUpdate>);

const READ_ONLY_FIELDS: Record<string, string> = {
  shortEnergyReportingInterval: 'shortEnergyReportingInterval is read-only (the service answers 403)',
  model: 'model is read-only',
  firmwareVersion: 'firmwareVersion is read-only',
  pending: 'pending is read-only',
};

function fieldPath(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  return path || 'update';
}

function describeSchemaError(error: ErrorObject): ApiErrorDetail {
  const field = fieldPath(error);
  const params = error.params as Record<string, unknown>;
  let message: string;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const prefix = field === 'update' ? '' : `${field}.`;
      message = READ_ONLY_FIELDS[extra] ?? `${prefix}${extra} is not a writable field`;
      break;
    }
    case 'maxLength':
      message = `${field} must be at most ${String(params.limit)} characters`;
      break;
    case 'enum':
      message = `${field} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'required':
      message = `${field === 'update' ? '' : `${field}.`}${String(params.missingProperty)} is required`;
      break;
    case 'type':
      message = `${field} must be of type ${String(params.type)}`;
      break;
    default:
      message = `${field} ${error.message ?? 'is invalid'}`;
  }
  return { code: 'INVALID_FIELD', message };
}

export interface UpdateContext {
  deviceId: string;
  /** The device as last read; enables the rules that depend on its model, channels and switches. */
  device?: Device;
  /** Known channel category ids; enables the categoryId rule. */
  categoryIds?: number[];
}

/** Every rule of spec 4.3 that can be checked before sending. Returns the broken rules, each naming its field. */
export function checkDeviceUpdate(update: unknown, context: UpdateContext): ApiErrorDetail[] {
  if (typeof update !== 'object' || update === null || Array.isArray(update)) {
    return [{ code: 'INVALID_FIELD', message: 'the update must be an object with the fields to change' }];
  }
  if (!validateShape(update)) return (validateShape.errors ?? []).map(describeSchemaError);
  return deviceRules(update, context);
}

/** Throws INVALID_REQUEST listing every broken rule; returns the update otherwise. */
export function assertDeviceUpdate(update: unknown, context: UpdateContext): DeviceUpdate {
  const problems = checkDeviceUpdate(update, context);
  if (problems.length) {
    throw EnergyApiError.invalid(`invalid device update: ${problems.map((p) => p.message).join('; ')}`, problems);
  }
  return update as DeviceUpdate;
}

function deviceRules(update: DeviceUpdate, { deviceId, device, categoryIds }: UpdateContext): ApiErrorDetail[] {
  const problems: string[] = [];
  if (Object.keys(update).filter((k) => k !== 'id').length === 0) problems.push('the update changes nothing');
  if (update.id !== undefined && update.id !== deviceId) problems.push(`id "${update.id}" does not match the device ${deviceId}`);
  if (update.timezone !== undefined && !isValidTimezone(update.timezone)) {
    problems.push(`timezone "${update.timezone}" is not a TZ database name (for example Europe/Berlin)`);
  }
  const channelIds = device ? new Set(device.channels.map((c) => c.id)) : undefined;
  const switchIds = device ? new Set(device.switches.map((s) => s.id)) : undefined;

  update.channels?.forEach((channel, i) => {
    const where = `channels[${i}]`;
    checkMemberId(problems, where, channel.id, deviceId, 'C', channelIds);
    if (device && channel.ctRating !== undefined) {
      if (isRogowski(device.model) && channel.ctRating !== ROGOWSKI_CT_RATING) {
        problems.push(`${where}.ctRating: the ${device.model} is a Rogowski model, its CT rating is fixed at 3000`);
      } else if (!isRogowski(device.model) && channel.ctRating === ROGOWSKI_CT_RATING) {
        problems.push(`${where}.ctRating: 3000 applies only to Rogowski models (3RM, 3RM+3SW); use 60, 120, 200, 400 or 600`);
      }
    }
    if (categoryIds && channel.categoryId !== undefined && !categoryIds.includes(channel.categoryId)) {
      problems.push(`${where}.categoryId ${channel.categoryId} is not a known channel category`);
    }
  });
  dupes(update.channels?.map((c) => c.id) ?? []).forEach((id) => problems.push(`channel ${id} appears twice`));

  if (update.phases) checkPhases(problems, update.phases, deviceId, channelIds);

  update.switches?.forEach((sw, i) => {
    const where = `switches[${i}]`;
    checkMemberId(problems, where, sw.id, deviceId, 'S', switchIds);
    if (sw.state !== undefined && device) {
      if (!supportsSwitching(device.model)) problems.push(`${where}.state: switching is not available on the ${device.model}`);
      else if (device.uninitialised) problems.push(`${where}.state: the device has never connected, so its switches cannot be set yet`);
    }
  });
  dupes(update.switches?.map((s) => s.id) ?? []).forEach((id) => problems.push(`switch ${id} appears twice`));

  const wifi = update.comms?.wifi;
  if (wifi) {
    if (device && !isDualTransport(device.model)) {
      problems.push(`comms.wifi: WiFi settings exist only on the 6MW and 6MW-CER: device ${deviceId} is a ${device.model}`);
    } else if (device?.firmwareVersion && !device.uninitialised && !firmwareAtLeast(device.firmwareVersion, WIFI_MIN_FIRMWARE)) {
      problems.push(`comms.wifi: WiFi settings need firmware ${WIFI_MIN_FIRMWARE} or later: device ${deviceId} has ${device.firmwareVersion}`);
    }
    for (const field of ['ssid', 'psk'] as const) {
      // Never echo the value: a psk is a secret.
      if (typeof wifi[field] === 'string' && CONTROL_CHARS.test(wifi[field])) problems.push(`comms.wifi.${field} must not contain control characters (line breaks, tabs, NUL)`);
    }
    const ssidProblem = typeof wifi.ssid === 'string' ? ssidLengthProblem(wifi.ssid) : undefined;
    if (ssidProblem) problems.push(`comms.wifi.ssid ${ssidProblem}`);
    if (wifi.ssid === '' && wifi.psk !== undefined && wifi.psk !== '') problems.push('comms.wifi: to turn WiFi off send both ssid and psk as empty strings');
    if (wifi.psk === '' && wifi.ssid !== '') problems.push('comms.wifi.psk: an empty psk only turns WiFi off, together with an empty ssid');
    if (typeof wifi.psk === 'string' && wifi.psk !== '' && !CONTROL_CHARS.test(wifi.psk) && !isWpaPsk(wifi.psk)) problems.push(`comms.wifi.psk must be ${WPA_PSK_RULE}`);
  }
  return problems.map((message) => ({ code: 'INVALID_FIELD', message }));
}

function checkMemberId(problems: string[], where: string, id: string, deviceId: string, kind: 'C' | 'S', known?: Set<string>): void {
  const noun = kind === 'C' ? 'channel' : 'switch';
  if (!new RegExp(`^${escapeRegExp(deviceId)}_${kind}\\d+$`).test(id)) {
    problems.push(`${where}.id "${id}" is not a ${noun} of ${deviceId} (expected ${deviceId}_${kind}<n>)`);
  } else if (known && !known.has(id)) {
    problems.push(`${where}.id: ${id} does not exist on this device`);
  }
}

function checkPhases(problems: string[], phases: NonNullable<DeviceUpdate['phases']>, deviceId: string, channelIds?: Set<string>): void {
  if (phases.count === 0 && !phases.grouping) problems.push('phases.grouping is required when phases.count is 0 (mixed)');
  if (!phases.grouping) return;
  const all = phases.grouping.flatMap((g) => g.included);
  dupes(all).forEach((id) => problems.push(`phases.grouping: channel ${id} is in more than one group`));
  phases.grouping.forEach((group, i) => {
    group.included.forEach((id, j) => checkMemberId(problems, `phases.grouping[${i}].included[${j}]`, id, deviceId, 'C', channelIds));
    if (phases.count > 0 && group.included.length > phases.count) {
      problems.push(`phases.grouping[${i}] has ${group.included.length} channels, more than a ${phases.count}-phase group can hold`);
    }
  });
}

function dupes(values: string[]): string[] {
  return [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
