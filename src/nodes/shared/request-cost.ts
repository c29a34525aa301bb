import {
  GRANULARITIES, parseTime, planLongRanges, planModbusRanges, planShortRanges,
  type Granularity, type TimeInput,
} from '../../api/index.js';

/**
 * A flow node that spends its key's daily budget on a schedule: its own polling, or the repeating
 * injects that trigger it. The `energy-api` config node adds these up against the key's daily limit.
 */
export interface DailyRequestCost {
  /** Requests a day this node makes while deployed, as far as schedules in the flows decide it. */
  requestsPerDay(): number;
}

/** A node as the flows save it (flow JSON, or what the runtime's `RED.nodes.eachNode` gives). */
export interface SavedNode {
  id: string;
  type: string;
  wires?: string[][];
  [property: string]: unknown;
}

export interface CostOptions {
  /** Devices on the key, for "every device" status reads (1 + one per device); default 1. */
  deviceCount?: number;
  /** energy-mqtt: how many of its devices have switches (each read about every minute), once known; default all. */
  switchDevices?: number;
  /** Devices one trigger reaches (msgs naming msg.deviceId, one per device); default 1. */
  devicesPerTrigger?: number;
  /** Clock for relative times such as "-1h" (the span matters, not the date). */
  nowMs?: number;
}

const DAY_S = 86400;
/** A confirmation is polled at most every 5 s and devices report about every 30 s: about six polls. */
const CONFIRMATION_POLLS = 6;

export function hasDailyCost<T>(node: T): node is T & DailyRequestCost {
  return typeof (node as Partial<DailyRequestCost> | null)?.requestsPerDay === 'function';
}

/** How often a day `crontab` (the inject node's five fields) fires; unknown syntax counts as once. */
export function cronRunsPerDay(crontab: string): number {
  const fields = crontab.trim().split(/\s+/);
  if (fields.length < 5) return 1;
  const count = (field: string, min: number, max: number): number => {
    let total = 0;
    for (const part of field.split(',')) {
      const [range, stepText] = part.split('/');
      const step = Math.max(1, Number(stepText) || 1);
      let lo = min;
      let hi = max;
      if (range !== '*') {
        const [a, b] = range.split('-').map(Number);
        if (!Number.isFinite(a)) return 1;
        lo = a;
        hi = stepText && b === undefined ? max : Number.isFinite(b) ? b : a;
      }
      total += Math.floor((hi - lo) / step) + 1;
    }
    return total;
  };
  const [minute, hour, , , weekday] = fields;
  const days = weekday === '*' ? 1 : count(weekday, 0, 6) / 7;
  return count(minute, 0, 59) * count(hour, 0, 23) * days;
}

/** Messages a day that reach `nodeId` from repeating injects, through the nodes between (one msg in, one out). */
export function triggersPerDay(flow: readonly SavedNode[], nodeId: string): number {
  const upstream = new Map<string, SavedNode[]>();
  for (const node of flow) {
    for (const port of node.wires ?? []) {
      for (const target of port) upstream.set(target, [...(upstream.get(target) ?? []), node]);
    }
  }
  const visiting = new Set<string>();
  const rate = (id: string): number => {
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let total = 0;
    for (const source of upstream.get(id) ?? []) total += emitsPerDay(source, rate);
    visiting.delete(id);
    return total;
  };
  return rate(nodeId);
}

function emitsPerDay(node: SavedNode, inputRate: (id: string) => number): number {
  if (node.type === 'inject') {
    const repeat = Number(node.repeat);
    if (Number.isFinite(repeat) && repeat > 0) return DAY_S / repeat;
    return typeof node.crontab === 'string' && node.crontab.trim() ? cronRunsPerDay(node.crontab) : 0;
  }
  // Dashboard widgets send what a person does, not what reaches them on a schedule.
  if (node.type.startsWith('ui-')) return 0;
  // One message per entry: as many as the data has, not a schedule (a threshold decides what follows).
  if (node.type === 'energy-query' && (node.output === 'split' || node.follow === true)) return 0;
  return inputRate(node.id) + ownPollsPerDay(node);
}

function ownPollsPerDay(node: SavedNode): number {
  if (node.type !== 'energy-device-status') return 0;
  const interval = Number(node.interval);
  return Number.isFinite(interval) && interval > 0 ? DAY_S / Math.max(interval, 5) : 0;
}

function spanRequests(node: SavedNode, nowMs: number, plan: (fromTs: number, toTs: number, nowS: number) => number): number {
  try {
    const read = (value: unknown, fallback: string): number =>
      parseTime((value === undefined || value === '' ? fallback : value) as TimeInput, { timezone: 'UTC', nowMs });
    const toTs = read(node.toTs, 'now');
    const fromTs = read(node.fromTs, node.type === 'energy-modbus-read' ? '-24h' : '-1h');
    // A saved end in the future counts the spans up to it, but at most a year ahead: an absurd end
    // (1e17 s) must not make the estimate plan billions of spans at deploy.
    const nowS = Math.floor(nowMs / 1000);
    return Math.max(1, plan(fromTs, toTs, Math.min(Math.max(toTs, nowS), nowS + 366 * DAY_S)));
  } catch {
    return 1;
  }
}

/** Requests one trigger of `node` makes (device lookups the client caches are not counted). */
export function requestsPerTrigger(node: SavedNode, options: CostOptions = {}): number {
  const nowMs = options.nowMs ?? Date.now();
  switch (node.type) {
    case 'energy-device-status':
      return node.mode === 'devices' ? 1 + Math.max(1, options.deviceCount ?? 1) : 1;
    case 'energy-query': {
      if (node.query === 'first' || node.query === 'latest') return 1;
      const granularity = (GRANULARITIES as readonly string[]).includes(String(node.granularity)) ? (node.granularity as Granularity) : '5m';
      if (node.follow === true) {
        // Follow re-reads only the catch-up window before its cursor.
        const hours = node.catchUp === undefined || node.catchUp === '' ? 6 : Number(node.catchUp) || 0;
        const window = { ...node, fromTs: `-${Math.max(1, Math.ceil(hours)) * 60 + 5}m`, toTs: 'now' };
        return node.kind === 'long'
          ? spanRequests(window, nowMs, (f, t, n) => planLongRanges(f, t, granularity, 'UTC', n).length)
          : spanRequests(window, nowMs, (f, t, n) => planShortRanges(f, t, n).length);
      }
      return node.kind === 'long'
        ? spanRequests(node, nowMs, (f, t, n) => planLongRanges(f, t, granularity, 'UTC', n).length)
        : spanRequests(node, nowMs, (f, t, n) => planShortRanges(f, t, n).length);
    }
    case 'energy-modbus-read':
      if (node.query === 'first' || node.query === 'latest') return 1;
      return spanRequests(node, nowMs, (f, t, n) => planModbusRanges(f, t, n).length);
    case 'energy-switch-control':
    case 'energy-wifi-config':
      return 1 + CONFIRMATION_POLLS;
    case 'energy-device-config':
      return 1 + (node.waitForPending === true ? CONFIRMATION_POLLS : 0);
    default:
      return 0;
  }
}

/** A disabled node, or one on a disabled tab, is not started and costs nothing. */
function isDisabled(node: SavedNode, flow: readonly SavedNode[]): boolean {
  return node.d === true || flow.some((n) => n.type === 'tab' && n.id === node.z && n.disabled === true);
}

const LOAD_CONTROL_INTERVAL_S = 30;
/** energy-load-control reads its switch devices at least this often (site.ts STATUS_EVERY_MS). */
const LOAD_CONTROL_STATUS_S = 300;

/**
 * energy-load-control: every node measuring one device on one config node shares one short-energy read
 * per evaluation (at the shortest interval of them) and one status read per switch device about every
 * 5 minutes. The group's cost is counted once, on its member with the smallest id; the others cost 0.
 * A run target in surplus mode adds one long-energy read a day (the last day, for the forecast of the sun).
 * Not counted: the first device read, and per switching a PATCH and the reads that follow it until the device
 * confirms (every 5 s: about 6, as for a switch node's command; 36 at most when the device never takes it).
 */
function loadControlRequestsPerDay(node: SavedNode, flow: readonly SavedNode[]): number {
  const intervalOf = (n: SavedNode): number => {
    const value = n.interval === undefined || n.interval === '' ? LOAD_CONTROL_INTERVAL_S : Number(n.interval);
    return Number.isFinite(value) && value > 0 ? Math.max(5, value) : 0;
  };
  const group = flow.filter((n) => n.type === 'energy-load-control' && n.api === node.api && n.deviceId === node.deviceId && !isDisabled(n, flow));
  if (group.some((n) => n.id < node.id)) return 0;
  const intervals = group.map(intervalOf).filter((s) => s > 0);
  if (intervals.length === 0) return 0;
  const intervalS = Math.min(...intervals);
  const switchDevices = new Set(group.map((n) => String(n.switchDeviceId || n.deviceId)));
  const statusEveryS = Math.ceil(LOAD_CONTROL_STATUS_S / intervalS) * intervalS;
  const forecast = group.some((n) => n.mode === 'surplus' && (Number(n.runFor) > 0 || (n.cheapBelow !== undefined && n.cheapBelow !== ''))) ? 1 : 0;
  return Math.ceil(DAY_S / intervalS + switchDevices.size * (DAY_S / statusEveryS)) + forecast;
}

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
    const value = seconds(n.interval, LOAD_CONTROL_INTERVAL_S);
    return Number.isFinite(value) && value > 0 ? Math.max(5, value) : 0;
  };
  let total = 0;
  const switchDevices = options.switchDevices ?? devices.length;
  for (const [i, id] of devices.entries()) {
    const syncS = i < switchDevices ? MQTT_SWITCH_SYNC_S : LOAD_CONTROL_STATUS_S;
    const measuring = loads.filter((n) => n.deviceId === id).map(loadInterval).filter((s) => s > 0);
    const theirs = measuring.length > 0 ? DAY_S / Math.min(...measuring) : 0;
    const statusReads = (everyS: number, syncEveryS: number): number => DAY_S / (Math.ceil(syncEveryS / everyS) * everyS);
    const ours = Math.min(cycles, interval > 0 ? statusReads(interval, syncS) : DAY_S / syncS);
    const switching = loads.filter((n) => String(n.switchDeviceId || n.deviceId) === id).map(loadInterval).filter((s) => s > 0);
    const theirStatus = switching.length > 0 ? statusReads(Math.min(...switching), LOAD_CONTROL_STATUS_S) : 0;
    total += Math.max(0, cycles - theirs) + Math.min(cycles, DAY_S / energyInterval) + Math.max(0, ours - theirStatus);
  }
  return Math.ceil(total);
}

/** What `node` costs a day: its own polling plus the scheduled messages that reach it, each at its per-trigger cost. */
export function estimateRequestsPerDay(node: SavedNode, flow: readonly SavedNode[], options: CostOptions = {}): number {
  if (isDisabled(node, flow)) return 0;
  if (node.type === 'energy-load-control') return loadControlRequestsPerDay(node, flow);
  if (node.type === 'energy-mqtt') return mqttRequestsPerDay(node, flow, options);
  const perTrigger = requestsPerTrigger(node, options);
  if (perTrigger === 0) return 0;
  // A node's own polling reads its own device; what triggers it reads every device its msgs name.
  const devices = node.type === 'energy-device-status' && node.mode === 'devices' ? 1 : Math.max(1, options.devicesPerTrigger ?? 1);
  return Math.ceil((ownPollsPerDay(node) + triggersPerDay(flow, node.id) * devices) * perTrigger);
}

/** Every node of the deployed flows, as saved. */
export function deployedNodes(RED: { nodes: { eachNode(cb: (node: object) => void): void } }): SavedNode[] {
  const all: SavedNode[] = [];
  RED.nodes.eachNode((node) => all.push(node as SavedNode));
  return all;
}

/** Gives a flow node its `requestsPerDay()`, estimated from its saved properties and the deployed flows. */
export function attachDailyCost(
  RED: { nodes: { eachNode(cb: (node: object) => void): void } },
  node: object,
  saved: object,
  options: () => CostOptions = () => ({}),
): void {
  (node as Partial<DailyRequestCost>).requestsPerDay = () => estimateRequestsPerDay(saved as SavedNode, deployedNodes(RED), options());
}
