import type { Node, NodeAPI, NodeDef } from 'node-red';
import { acquireClient, isEnergyApiError, type ClientLease, type KeyStatus, type RateLimitState } from '../../api/index.js';
import type { EnergyApiConfigNode } from '../shared/config-types.js';
import { registerAdminRoutes } from './admin-routes.js';

interface EnergyApiDef extends NodeDef {
  baseUrl: string;
  tps: string | number;
  tpd: string | number;
  timezone?: string;
}

interface EnergyApiCredentials {
  apiKey?: string;
}

/** Below this share of the daily budget, users are told the key is running low. */
const LOW_BUDGET_SHARE = 0.1;

export = function (RED: NodeAPI): void {
  function EnergyApiNode(this: EnergyApiConfigNode & { credentials: EnergyApiCredentials }, def: EnergyApiDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const users = new Map<string, Node>();
    node.timezone = def.timezone || undefined;
    let lastKey: KeyStatus | undefined;
    let lease: ClientLease | undefined;
    let stopListening = () => {};

    node.keyStatus = () => lastKey;
    node.register = (user: Node) => {
      users.set(user.id, user);
    };
    node.deregister = (user: Node, done?: () => void) => {
      users.delete(user.id);
      done?.();
    };

    const push = (fill: 'red' | 'yellow' | 'green', text: string) => {
      for (const user of users.values()) user.status({ fill, shape: 'ring', text });
    };

    try {
      const apiKey = node.credentials?.apiKey?.trim();
      if (!apiKey) throw new Error(RED._('energy-api.errors.noKey'));
      // Node-RED substitutes ${NAME} in credentials but leaves the text as typed when NAME is unset.
      const unsetVariable = /^\$\{(\S+)\}$/.exec(apiKey);
      if (unsetVariable) throw new Error(RED._('energy-api.errors.envKeyUnset', { name: unsetVariable[1] }));
      // One client and limiter per base address and key in this process: config nodes sharing a key share its limits.
      lease = acquireClient({
        baseUrl: def.baseUrl,
        apiKey,
        tps: Number(def.tps) || undefined,
        tpd: Number(def.tpd) || undefined,
      });
      const client = lease.client;
      node.client = client;
      const onKeyStatus = (status: KeyStatus) => {
        lastKey = status;
        if (!status.accepted) {
          push('red', RED._('energy-api.status.keyRefused', { key: status.key }));
          node.error(RED._('energy-api.errors.keyRefused', { key: status.key, reason: status.error?.message ?? '' }));
        }
      };
      let warnedLow = false;
      const onRateLimit = (state: RateLimitState) => {
        if (state.throttled) push('yellow', RED._('energy-api.status.rateLimited'));
        const low = state.dailyRemaining < state.tpd * LOW_BUDGET_SHARE;
        if (low && !warnedLow) {
          push('yellow', RED._('energy-api.status.budgetLow', { remaining: state.dailyRemaining }));
          node.warn(RED._('energy-api.errors.budgetLow', { remaining: state.dailyRemaining, tpd: state.tpd }));
        }
        warnedLow = low;
      };
      client.on('keyStatus', onKeyStatus);
      client.on('rateLimit', onRateLimit);
      lastKey = client.lastKeyStatus();
      stopListening = () => {
        client.off('keyStatus', onKeyStatus);
        client.off('rateLimit', onRateLimit);
      };
    } catch (err) {
      node.problem = isEnergyApiError(err) || err instanceof Error ? err.message : String(err);
      node.error(RED._('energy-api.errors.unusable', { reason: node.problem }));
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      stopListening();
      node.client = undefined;
      users.clear();
      const held = lease;
      lease = undefined;
      void (held ? held.release() : Promise.resolve()).finally(done);
    });
  }

  RED.nodes.registerType('energy-api', EnergyApiNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { apiKey: { type: 'password' } },
  });
  registerAdminRoutes(RED);
};
