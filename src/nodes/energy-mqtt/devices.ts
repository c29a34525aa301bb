import { ConfigError, isEnergyApiError, type CallOptions, type Device, type EnergyApiClient } from '../../api/index.js';

export interface ResolvedDevices {
  devices: Device[];
  /** Devices of the key left out because they have never connected (no data, switches refused). */
  uninitialised: string[];
}

/**
 * The devices to publish, each read once: every device of the key, or the listed ones, all of which must
 * be on the key (an unknown one refuses the whole node before anything is published).
 */
export async function resolveDevices(client: EnergyApiClient, wanted: 'all' | string[], options: CallOptions): Promise<ResolvedDevices> {
  const onKey = await client.listDevices(options);
  if (wanted !== 'all') {
    const unknown = wanted.filter((id) => !onKey.includes(id));
    if (unknown.length > 0) {
      const known = onKey.length > 8 ? `${onKey.slice(0, 8).join(', ')}…` : onKey.join(', ');
      throw new ConfigError(`device ${unknown.join(', ')} is not one of the devices of the API key ${client.key} (${known || 'none'})`);
    }
  }
  const devices: Device[] = [];
  const uninitialised: string[] = [];
  for (const id of wanted === 'all' ? onKey : wanted) {
    const device = await client.getDevice(id, options);
    if (device.uninitialised === true) uninitialised.push(id);
    else devices.push(device);
  }
  return { devices, uninitialised };
}

/** A refusal that no retry will change (a wrong device, a refused key, bad input); other failures are retried. */
export function isPermanent(err: unknown): boolean {
  if (!isEnergyApiError(err)) return true;
  if (err.code === 'INVALID_REQUEST') return true;
  return err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
}
