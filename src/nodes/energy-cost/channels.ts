// Which channels of the device are the grid connection.
import { ConfigError, MsgError } from '../../api/index.js';
import type { Device } from '../../api/index.js';

/** Channel category 1 is "Grid connect" (import positive, export negative). */
export const GRID_CONNECT_CATEGORY = 1;

/**
 * 0-based channel indexes from the user's pick ("1", "1,4", "D630000000002_C1", "_C1"), or,
 * when nothing is picked, every channel of the device in the Grid connect category.
 */
export function gridChannels(picked: string, device: Device | undefined, deviceId: string | undefined): number[] {
  const text = picked.trim();
  if (text) {
    return text.split(',').map((part) => {
      const m = /^(?:[BDEF][A-Za-z0-9]{12})?_?C?(\d+)$/i.exec(part.trim());
      const n = m ? Number(m[1]) : NaN;
      if (!m || n < 1) throw new ConfigError(`channel "${part.trim().slice(0, 30)}" should be a channel number such as 1, or an id such as ${deviceId ?? 'D630000000002'}_C1`);
      const id = part.trim().match(/^([BDEF][A-Za-z0-9]{12})_/)?.[1];
      if (id && deviceId && id !== deviceId) throw new MsgError(`channel ${part.trim()} belongs to device ${id}, but the entries are of ${deviceId}`);
      return n - 1;
    });
  }
  if (!device) throw new ConfigError('no channels picked and no device to read them from: pick the grid channels in the node, or select an energy-api config node and send msg.deviceId (energy-query sets it)');
  const grid = (device.channels ?? []).map((c, i) => ({ c, i })).filter(({ c }) => c.categoryId === GRID_CONNECT_CATEGORY);
  if (grid.length === 0) throw new ConfigError(`device ${device.id} has no channel in the "Grid connect" category: set one with energy-device-config, or pick the channels in the node`);
  return grid.map(({ i }) => i);
}
