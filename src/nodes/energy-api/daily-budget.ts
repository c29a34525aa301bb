import type { Node, NodeAPI } from 'node-red';
import type { BudgetReport, EnergyApiConfigNode } from '../shared/config-types.js';
import { hasDailyCost } from '../shared/request-cost.js';

const SHOWN = 5;
const NAMED_IN_STATUS = 2;

/** 1326240 → "1,326,240": figures of a fleet's budget stay readable. */
export const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "a (x), b (y) and 3 more (z)": the costliest nodes, and the rest in one figure. */
function costliest(r: BudgetReport, shown: number): string {
  const named = r.top.slice(0, shown);
  const list = named.map((c) => `${c.name} (${c.type}): ${grouped(c.requestsPerDay)}`).join('; ');
  const rest = r.nodes - named.length;
  if (rest <= 0) return list;
  const restPerDay = r.requestsPerDay - named.reduce((sum, c) => sum + c.requestsPerDay, 0);
  return `${list}; ${rest} more node${rest === 1 ? '' : 's'}: ${grouped(restPerDay)}`;
}

/**
 * Adds up the users' `requestsPerDay()` once the flows have started (and again when the service tells a
 * different daily limit); above the limit the config node shows a warning status and logs the costliest nodes.
 */
export function watchDailyBudget(RED: NodeAPI, node: EnergyApiConfigNode, users: () => Iterable<Node>, tpd: () => number): { report(): BudgetReport; close(): void } {
  const report = (): BudgetReport => {
    const costs = [...users()].filter(hasDailyCost).map((user) => ({
      id: user.id, type: user.type, name: user.name || user.id, requestsPerDay: Math.ceil(user.requestsPerDay()),
    })).filter((c) => c.requestsPerDay > 0).sort((a, b) => b.requestsPerDay - a.requestsPerDay);
    const requestsPerDay = costs.reduce((sum, c) => sum + c.requestsPerDay, 0);
    const limit = tpd();
    const top = costs.slice(0, SHOWN);
    const othersPerDay = requestsPerDay - top.reduce((sum, c) => sum + c.requestsPerDay, 0);
    return { tpd: limit, requestsPerDay, over: requestsPerDay > limit, top, nodes: costs.length, othersPerDay };
  };
  let warnedFor = '';
  const check = (): void => {
    const r = report();
    if (!r.over) {
      if (warnedFor) node.status({});
      warnedFor = '';
      return;
    }
    const names = r.top.slice(0, NAMED_IN_STATUS).map((c) => c.name).join(', ') + (r.nodes > NAMED_IN_STATUS ? ` +${r.nodes - NAMED_IN_STATUS}` : '');
    node.status({ fill: 'yellow', shape: 'ring', text: RED._('energy-api.status.overBudget', { requests: grouped(r.requestsPerDay), tpd: grouped(r.tpd), names }) });
    const key = `${r.requestsPerDay}/${r.tpd}`;
    if (key === warnedFor) return;
    warnedFor = key;
    node.warn(RED._('energy-api.errors.overBudget', { requests: grouped(r.requestsPerDay), tpd: grouped(r.tpd), list: costliest(r, SHOWN) }));
  };
  const onStarted = (): void => check();
  let lastTpd = tpd();
  const onRateLimit = (): void => {
    if (tpd() !== lastTpd) {
      lastTpd = tpd();
      check();
    }
  };
  RED.events.on('flows:started', onStarted);
  node.client?.on('rateLimit', onRateLimit);
  return {
    report,
    close() {
      RED.events.removeListener('flows:started', onStarted);
      node.client?.removeListener('rateLimit', onRateLimit);
    },
  };
}
