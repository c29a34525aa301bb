import type { Node, NodeAPI } from 'node-red';
import type { EnergyApiConfigNode } from '../shared/config-types.js';
import { hasDailyCost } from '../shared/request-cost.js';

/** What the nodes using one config node will spend a day, against the key's daily limit. */
export interface BudgetReport {
  /** The key's daily limit: learnt from the service once it has answered, the configured one before. */
  tpd: number;
  requestsPerDay: number;
  over: boolean;
  /** The costliest nodes first (at most five). */
  top: Array<{ id: string; type: string; name: string; requestsPerDay: number }>;
}

const SHOWN = 5;
const NAMED_IN_STATUS = 2;

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
    return { tpd: limit, requestsPerDay, over: requestsPerDay > limit, top: costs.slice(0, SHOWN) };
  };
  let warnedFor = '';
  const check = (): void => {
    const r = report();
    if (!r.over) {
      if (warnedFor) node.status({});
      warnedFor = '';
      return;
    }
    const names = r.top.slice(0, NAMED_IN_STATUS).map((c) => c.name).join(', ');
    node.status({ fill: 'yellow', shape: 'ring', text: RED._('energy-api.status.overBudget', { requests: r.requestsPerDay, tpd: r.tpd, names }) });
    const key = `${r.requestsPerDay}/${r.tpd}`;
    if (key === warnedFor) return;
    warnedFor = key;
    const list = r.top.map((c) => `${c.name} (${c.type}): ${c.requestsPerDay}`).join('; ');
    node.warn(RED._('energy-api.errors.overBudget', { requests: r.requestsPerDay, tpd: r.tpd, list }));
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
