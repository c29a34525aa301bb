import { DAY_S, declareRequestCost, isDisabled, SITE_INTERVAL_S, SITE_STATUS_S, type SavedNode } from '../shared/request-cost.js';

/**
 * energy-load-control: every node measuring one device on one config node shares one short-energy read
 * per evaluation (at the shortest interval of them) and one status read per switch device about every
 * 5 minutes. The group's cost is counted once, on its member with the smallest id; the others cost 0.
 * A run target in surplus mode adds one long-energy read a day (the last day, for the forecast of the sun).
 * Not counted: the first device read, and per switching a PATCH and the reads that follow it until the device
 * confirms (every 5 s: about 6, as for a switch node's command; 36 at most when the device never takes it).
 * A load switched by the flow (`actuator` flow) reads and writes no switch: it costs only its share of the energy reads.
 */
function loadControlRequestsPerDay(node: SavedNode, flow: readonly SavedNode[]): number {
  const intervalOf = (n: SavedNode): number => {
    const value = n.interval === undefined || n.interval === '' ? SITE_INTERVAL_S : Number(n.interval);
    return Number.isFinite(value) && value > 0 ? Math.max(5, value) : 0;
  };
  const group = flow.filter((n) => n.type === 'energy-load-control' && n.api === node.api && n.deviceId === node.deviceId && !isDisabled(n, flow));
  if (group.some((n) => n.id < node.id)) return 0;
  const intervals = group.map(intervalOf).filter((s) => s > 0);
  if (intervals.length === 0) return 0;
  const intervalS = Math.min(...intervals);
  const switchDevices = new Set(group.filter((n) => n.actuator !== 'flow').map((n) => String(n.switchDeviceId || n.deviceId)));
  const statusEveryS = Math.ceil(SITE_STATUS_S / intervalS) * intervalS;
  const forecast = group.some((n) => n.mode === 'surplus' && (Number(n.runFor) > 0 || (n.cheapBelow !== undefined && n.cheapBelow !== ''))) ? 1 : 0;
  return Math.ceil(DAY_S / intervalS + switchDevices.size * (DAY_S / statusEveryS)) + forecast;
}

declareRequestCost('energy-load-control', { perDay: (node, flow) => loadControlRequestsPerDay(node, flow) });
