import { parseTime, type TimeInput } from '../../api/index.js';

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

export const DAY_S = 86400;
/** A confirmation is polled at most every 5 s and devices report about every 30 s: about six polls. */
export const CONFIRMATION_POLLS = 6;
/** A site group evaluates every 30 s unless set otherwise, and reads its switch devices at least every 5 minutes (STATUS_EVERY_MS of the site). */
export const SITE_INTERVAL_S = 30;
export const SITE_STATUS_S = 300;

/**
 * What one node type costs, declared by the node itself (its `request-cost.ts`); the config node adds the
 * declarations of its users up against the key's daily limit.
 */
export interface RequestCost {
  /** Requests one msg reaching the node makes. */
  perTrigger?(node: SavedNode, options: CostOptions & { nowMs: number }): number;
  /** Requests a day of the node's own polling, without any msg. */
  ownPollsPerDay?(node: SavedNode): number;
  /** Devices one msg makes it read (default: the devices the msgs name, `options.devicesPerTrigger`). */
  devicesPerTrigger?(node: SavedNode, options: CostOptions): number | undefined;
  /** True when its msgs follow the data (one per entry), not a schedule: what it triggers is not counted. */
  unscheduledOutput?(node: SavedNode): boolean;
  /** A whole day's estimate that replaces the per-msg one (nodes that share reads with others). */
  perDay?(node: SavedNode, flow: readonly SavedNode[], options: CostOptions): number;
}

const costs = new Map<string, RequestCost>();

/** Declares what nodes of `type` cost; called once by the node's own module. */
export function declareRequestCost(type: string, cost: RequestCost): void {
  costs.set(type, cost);
}

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
  if (costs.get(node.type)?.unscheduledOutput?.(node) === true) return 0;
  return inputRate(node.id) + ownPollsPerDay(node);
}

function ownPollsPerDay(node: SavedNode): number {
  return costs.get(node.type)?.ownPollsPerDay?.(node) ?? 0;
}

/** Requests a span read makes from the node's saved `fromTs` (default `defaultFrom`) to its `toTs` (default now). */
export function spanRequests(node: SavedNode, nowMs: number, defaultFrom: string, plan: (fromTs: number, toTs: number, nowS: number) => number): number {
  try {
    const read = (value: unknown, fallback: string): number =>
      parseTime((value === undefined || value === '' ? fallback : value) as TimeInput, { timezone: 'UTC', nowMs });
    const toTs = read(node.toTs, 'now');
    const fromTs = read(node.fromTs, defaultFrom);
    // A saved end in the future counts the spans up to it, but at most a year ahead: an absurd end
    // (1e17 s) must not make the estimate plan billions of spans at deploy.
    const nowS = Math.floor(nowMs / 1000);
    return Math.max(1, plan(fromTs, toTs, Math.min(Math.max(toTs, nowS), nowS + 366 * DAY_S)));
  } catch {
    return 1;
  }
}

/** Requests one trigger of `node` makes (device lookups the client caches are not counted), as its type declares. */
export function requestsPerTrigger(node: SavedNode, options: CostOptions = {}): number {
  return costs.get(node.type)?.perTrigger?.(node, { ...options, nowMs: options.nowMs ?? Date.now() }) ?? 0;
}

/** A disabled node, or one on a disabled tab, is not started and costs nothing. */
export function isDisabled(node: SavedNode, flow: readonly SavedNode[]): boolean {
  return node.d === true || flow.some((n) => n.type === 'tab' && n.id === node.z && n.disabled === true);
}

/** What `node` costs a day: its own polling plus the scheduled messages that reach it, each at its per-trigger cost. */
export function estimateRequestsPerDay(node: SavedNode, flow: readonly SavedNode[], options: CostOptions = {}): number {
  if (isDisabled(node, flow)) return 0;
  const cost = costs.get(node.type);
  if (cost?.perDay) return cost.perDay(node, flow, options);
  const perTrigger = requestsPerTrigger(node, options);
  if (perTrigger === 0) return 0;
  // A node's own polling reads its own device; what triggers it reads every device its msgs name.
  const devices = cost?.devicesPerTrigger?.(node, options) ?? Math.max(1, options.devicesPerTrigger ?? 1);
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
