import type { Node, NodeAPI, NodeDef } from 'node-red';
import { acquireClient, type ClientLease, ConfigError, isEnergyApiError, type KeyStatus, type RateLimitState, type SharedStatus } from '../../api/index.js';
import type { EnergyApiConfigNode } from '../shared/config-types.js';
import { registerAdminRoutes } from './admin-routes.js';
import { watchDailyBudget } from './daily-budget.js';
import { nodeClock } from '../shared/clock.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';

interface EnergyApiDef extends NodeDef {
  baseUrl: string;
  tps: string | number;
  tpd: string | number;
  timezone?: string;
  /** Optional: a Redis address through which every Node-RED instance using this key shares its limits. */
  redisUrl?: string;
}

interface EnergyApiCredentials {
  apiKey?: string;
  redisPassword?: string;
}

const REDIS_URL = /^rediss?:\/\/\S+$/;
/** redis://user:password@host: a password in the address, which is a flow property, not a credential. */
const REDIS_URL_WITH_PASSWORD = /^rediss?:\/\/[^@/]*:[^@/]*@/;

/** Below this share of the daily budget, users are told the key is running low. */
const LOW_BUDGET_SHARE = 0.1;

export = function (RED: NodeAPI): void {
  function EnergyApiNode(this: EnergyApiConfigNode & { credentials: EnergyApiCredentials }, def: EnergyApiDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
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
      if (!apiKey) throw new ConfigError(RED._('energy-api.errors.noKey'));
      // Node-RED substitutes ${NAME} in credentials but leaves the text as typed when NAME is unset.
      const unsetVariable = /^\$\{(\S+)\}$/.exec(apiKey);
      if (unsetVariable) throw new ConfigError(RED._('energy-api.errors.envKeyUnset', { name: unsetVariable[1] }));
      const redisUrl = def.redisUrl?.trim() || undefined;
      if (redisUrl && !REDIS_URL.test(redisUrl)) throw new ConfigError(RED._('energy-api.errors.badRedisUrl'));
      // Kept working for flows saved that way, but the flow file and every export carry it: the editor moves it.
      if (redisUrl && REDIS_URL_WITH_PASSWORD.test(redisUrl)) node.warn(RED._('energy-api.errors.redisPasswordInUrl'));
      // One client and limiter per base address and key in this process: config nodes sharing a key share its limits.
      lease = acquireClient({
        sharedLimiter: redisUrl ? { redisUrl, password: node.credentials?.redisPassword || undefined } : undefined,
        baseUrl: def.baseUrl,
        apiKey,
        tps: Number(def.tps) || undefined,
        tpd: Number(def.tpd) || undefined,
        now: nodeClock(RED),
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
        // A wait after a 429 is shown by the nodes whose own requests wait (see RetryStatus), not by every user of the key.
        const low = state.dailyRemaining < state.tpd * LOW_BUDGET_SHARE;
        if (low && !warnedLow) {
          push('yellow', RED._('energy-api.status.budgetLow', { remaining: state.dailyRemaining }));
          node.warn(RED._('energy-api.errors.budgetLow', { remaining: state.dailyRemaining, tpd: state.tpd }));
        }
        warnedLow = low;
      };
      let lastMode = '';
      let warnedUnreachable = false;
      const onShared = (status: SharedStatus) => {
        if (status.mode === 'shared') node.status({ fill: 'green', shape: 'dot', text: RED._('energy-api.status.shared', { instances: status.instances }) });
        else node.status({ fill: 'yellow', shape: 'ring', text: RED._('energy-api.status.sharedFallback', { tps: status.fallbackTps }) });
        if (status.mode === lastMode) return;
        // Every start goes through fallback until Redis answers: only a loss of a working Redis is worth a warning.
        if (status.mode === 'fallback' && lastMode === 'shared') {
          warnedUnreachable = true;
          push('yellow', RED._('energy-api.status.sharedFallback', { tps: status.fallbackTps }));
          node.warn(RED._('energy-api.errors.redisUnreachable', { tps: status.fallbackTps }));
        } else if (status.mode === 'shared' && warnedUnreachable) node.log(RED._('energy-api.errors.redisBack'));
        lastMode = status.mode;
      };
      client.on('keyStatus', onKeyStatus);
      client.on('rateLimit', onRateLimit);
      client.on('sharedLimiter', onShared);
      if (client.shared) onShared(client.shared.status());
      lastKey = client.lastKeyStatus();
      stopListening = () => {
        client.off('keyStatus', onKeyStatus);
        client.off('rateLimit', onRateLimit);
        client.off('sharedLimiter', onShared);
      };
    } catch (err) {
      node.problem = isEnergyApiError(err) || err instanceof Error ? err.message : String(err);
      node.error(RED._('energy-api.errors.unusable', { reason: node.problem }));
    }

    const budget = watchDailyBudget(RED, node, () => users.values(), () => node.client?.rateLimitState().tpd ?? (Number(def.tpd) || 10000));
    node.dailyBudget = budget.report;

    node.on('close', (_removed: boolean, done: () => void) => {
      budget.close();
      stopListening();
      node.client = undefined;
      users.clear();
      const held = lease;
      lease = undefined;
      void (held ? held.release() : Promise.resolve()).finally(done);
    });
  }

  RED.nodes.registerType('energy-api', EnergyApiNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { apiKey: { type: 'password' }, redisPassword: { type: 'password' } },
  });
  registerAdminRoutes(RED);
};
