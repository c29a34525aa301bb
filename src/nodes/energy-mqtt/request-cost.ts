import { DAY_S, declareRequestCost, isDisabled, SITE_INTERVAL_S, SITE_STATUS_S, triggersPerDay, type CostOptions, type SavedNode } from '../shared/request-cost.js';

const MQTT_INTERVAL_S = 60;
const MQTT_ENERGY_INTERVAL_S = 300;
/** A new 5-minute record can exist only this often: energy-mqtt skips a long-energy read before it. */
const LONG_RECORD_S = 300;
/** energy-mqtt reads a device with switches this often, so that a change made elsewhere shows within a minute (device-bridge.ts SWITCH_SYNC_MS). */
const MQTT_SWITCH_SYNC_S = 55;

/**
 * energy-mqtt, per device: its read cycles (its interval, plus the "refresh" msgs that reach it) each read
 * short energy, shared with the load-control nodes measuring that device (only the reads beyond theirs
 * count here); long energy every energyInterval but at most once per 5-minute record; the device about every
 * minute when it has switches (`switchDevices` of them; all until the node knows), else every 5 minutes, less what
 * a load-control node already reads of it as its switch device. "All devices" counts `deviceCount` devices (1 until
 * the node has listed them). Not counted: the start (a device list and one read per device) and switch commands.
 */
function mqttRequestsPerDay(node: SavedNode, flow: readonly SavedNode[], options: CostOptions): number {
  const seconds = (value: unknown, fallback: number): number => (value === undefined || value === '' ? fallback : Number(value));
  const interval = seconds(node.interval, MQTT_INTERVAL_S);
  const energyInterval = Math.max(seconds(node.energyInterval, MQTT_ENERGY_INTERVAL_S), LONG_RECORD_S);
  const cycles = (Number.isFinite(interval) && interval > 0 ? DAY_S / Math.max(5, interval) : 0) + triggersPerDay(flow, node.id);
  if (cycles === 0 || !Number.isFinite(energyInterval)) return 0;
  const listed = String(node.devices ?? '').split(/[\s,;]+/).filter((id) => id !== '' && id.toLowerCase() !== 'all');
  const devices = listed.length > 0 ? listed : Array.from({ length: Math.max(1, options.deviceCount ?? 1) }, () => undefined);
  const loads = flow.filter((n) => n.type === 'energy-load-control' && n.api === node.api && !isDisabled(n, flow));
  const loadInterval = (n: SavedNode): number => {
    const value = seconds(n.interval, SITE_INTERVAL_S);
    return Number.isFinite(value) && value > 0 ? Math.max(5, value) : 0;
  };
  let total = 0;
  const switchDevices = options.switchDevices ?? devices.length;
  for (const [i, id] of devices.entries()) {
    const syncS = i < switchDevices ? MQTT_SWITCH_SYNC_S : SITE_STATUS_S;
    const measuring = loads.filter((n) => n.deviceId === id).map(loadInterval).filter((s) => s > 0);
    const theirs = measuring.length > 0 ? DAY_S / Math.min(...measuring) : 0;
    const statusReads = (everyS: number, syncEveryS: number): number => DAY_S / (Math.ceil(syncEveryS / everyS) * everyS);
    const ours = Math.min(cycles, interval > 0 ? statusReads(interval, syncS) : DAY_S / syncS);
    const switching = loads.filter((n) => n.actuator !== 'flow' && String(n.switchDeviceId || n.deviceId) === id).map(loadInterval).filter((s) => s > 0);
    const theirStatus = switching.length > 0 ? statusReads(Math.min(...switching), SITE_STATUS_S) : 0;
    total += Math.max(0, cycles - theirs) + Math.min(cycles, DAY_S / energyInterval) + Math.max(0, ours - theirStatus);
  }
  return Math.ceil(total);
}

declareRequestCost('energy-mqtt', { perDay: mqttRequestsPerDay });
