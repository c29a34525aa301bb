import { EnergyApiError, isEnergyApiError, supportsModbus, type CallOptions, type Device, type EnergyApiClient } from '../../api/index.js';

/** Failures of the device read that a modbus request would meet as well: passed on as they are. */
const FINAL_STATUSES = new Set([401, 403, 404]);
const FINAL_CODES = new Set(['ABORTED', 'INVALID_REQUEST', 'DAILY_LIMIT']);

/**
 * The device (for its model and timezone), or undefined when it cannot be read for a reason the
 * modbus request itself may not share (5xx, network, malformed body): the service then decides.
 */
export async function readDevice(client: EnergyApiClient, deviceId: string, options: CallOptions): Promise<Device | undefined> {
  try {
    return await client.knownDevice(deviceId, options);
  } catch (err) {
    if (isEnergyApiError(err) && (FINAL_STATUSES.has(err.status) || FINAL_CODES.has(err.code))) throw err;
    return undefined;
  }
}

/** Refuses a device whose model has no modbus meter, before any modbus request. */
export function assertModbusDevice(device: Device | undefined, deviceId: string): void {
  if (device && !supportsModbus(device.model)) {
    throw EnergyApiError.invalid(`device ${deviceId} is a ${device.model}: only models with "+One" (6M+One) have a modbus meter`);
  }
}

/** The service's 422 for a non-modbus device (code sent as `UNPROCESSABLE ENTITY`) in the user's words. */
export function explainModbusRefusal(err: unknown, deviceId: string): unknown {
  if (!isEnergyApiError(err) || err.status !== 422 || err.code !== 'UNPROCESSABLE_ENTITY') return err;
  if (!/modbus|unsupported|not support/i.test(err.apiMessage ?? '')) return err;
  return new EnergyApiError({
    status: err.status,
    code: err.code,
    message: `device ${deviceId} does not support modbus: the service refused the modbus query (422 ${err.code} - ${err.apiMessage}); only 6M+One devices have a modbus meter`,
    apiMessage: err.apiMessage,
    method: err.method,
    path: err.path,
    cause: err,
  });
}
