import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import { BrokerError, ConfigError, MsgError } from '../../api/index.js';
import { siteGroup } from '../../domain/site/site.js';
import { persistentStore } from '../shared/context-store.js';
import { SwitchTransactions } from '../../domain/site/switch-transactions.js';
import { toError } from '../shared/errors.js';
import { FlowNodeRuntime } from '../shared/flow-node.js';
import { loadControlRegistry } from '../shared/load-control-registry.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { describeValue } from '../shared/msg-guard.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { asBroker, BrokerLink, type MqttBrokerNode } from './broker-link.js';
import { DeviceBridge, type BridgeHost } from './device-bridge.js';
import { isPermanent, resolveDevices } from './devices.js';
import { migrations } from './migrations.js';
import { MqttNodeStatus } from './node-status.js';
import { parseSettings, type EnergyMqttDef, type MqttSettings } from './settings.js';
import { bridgeIdentifier, bridgePayload, type BridgeInfo } from './discovery.js';
import { bridgeAvailabilityTopic, discoveryTopic, haStatusTopic, keyBudgetTopic } from './topics.js';
import { TotalsStore } from './totals-store.js';
import { HistoryRunner } from './history.js';

/** As energy-switch-control's default: a switch command not confirmed by then is reported as such. */
const SWITCH_TIMEOUT_S = 180;
/** A start that failed for a passing reason (outage, 5xx) is tried again after this long. */
const RETRY_START_MS = 60_000;
/** A broker not reached by then (a wrong address, none running) is worth one warning. */
const FIRST_CONNECT_MS = 10_000;
let warnedNoStore = false;

export = function (RED: NodeAPI): void {
  function EnergyMqttNode(this: Node & { credentials?: { haToken?: string } }, def: EnergyMqttDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    const node = this;
    const rt = new FlowNodeRuntime(RED, node, def);
    let deviceCount: number | undefined;
    let switchDevices: number | undefined;
    attachDailyCost(RED, node, def, () => ({ nowMs: rt.now(), deviceCount, switchDevices }));
    const t = (key: string, values?: Record<string, string | number>): string => RED._(`energy-mqtt.${key}`, values);

    const status = new MqttNodeStatus(rt, node, t);
    let settings: MqttSettings;
    let broker: MqttBrokerNode;
    try {
      settings = parseSettings(def);
      const found = asBroker(RED.nodes.getNode(def.broker ?? ''));
      if (!found) throw new ConfigError('no MQTT broker: select an mqtt-broker config node (the one the mqtt in/out nodes use)');
      broker = found;
      rt.client();
    } catch (err) {
      // Bad input: a red status and an error, nothing published, every msg refused with the same error.
      status.refuse(err);
      return rt.onInput(async () => { throw err; });
    }
    const client = rt.client();
    const store = persistentStore(RED);
    if (!store && !warnedNoStore) {
      warnedNoStore = true;
      node.warn(t('errors.noPersistentStore'));
    }
    const totals = new TotalsStore(node, store);
    const bridges: DeviceBridge[] = [];
    let fatal: unknown;
    const bridge: BridgeInfo = { keyHint: client.key, availabilityTopic: bridgeAvailabilityTopic(settings.baseTopic) };
    const budgetTopic = keyBudgetTopic(settings.baseTopic, client.key);
    const token = node.credentials?.haToken?.trim() ?? '';
    // History set but no token yet (an example just imported): the import waits for one, and the status says so.
    if (settings.historyDays > 0 && !token) status.historyShow('status.historyNoToken');
    const history = settings.historyDays > 0 && token ? new HistoryRunner({
      node, store, client: () => rt.client(), call: rt.call, now: rt.now, settings, token, status,
      devices: () => bridges.map((b) => b.history()), setTimer: (fn, ms) => rt.setTimer(fn, ms), closed: () => rt.closed,
    }) : undefined;
    const link = new BrokerLink(broker, node.id, {
      up: () => status.up(),
      down: () => status.down(),
      failed: (topic, err) => status.failed(new BrokerError(`the broker refused a publish to ${topic}: ${toError(err).message}`)),
    }, bridge.availabilityTopic);
    const transactions = new SwitchTransactions({
      client: () => rt.client(), call: rt.call, now: rt.now, setTimer: (fn, ms) => rt.setTimer(fn, ms), clearTimer: (tm) => rt.clearTimer(tm),
      // HA's switch keeps its confirmed state meanwhile: its attributes say what is on its way.
      onSending: (switchId, target) => bridges.find((b) => b.owns(switchId))?.showPending(switchId, target),
      warnUncertain: (reason) => node.warn(t('errors.writeUncertain', { reason })),
    }, SWITCH_TIMEOUT_S * 1000);
    const host: BridgeHost = {
      client: () => rt.client(), call: rt.call, now: rt.now, settings, link, store: totals, transactions, timeoutS: SWITCH_TIMEOUT_S,
      registry: loadControlRegistry(client),
      budget: () => client.rateLimitState().dailyRemaining, budgetTopic, bridge,
      publish: (topic, payload, force) => link.publish(topic, payload, force),
      failed: (err) => status.failed(err),
      readOk: () => status.ok(),
      setTimer: (fn, ms) => rt.setTimer(fn, ms), clearTimer: (tm) => rt.clearTimer(tm),
      refused: (err, msg) => status.refused(err, msg),
    };

    async function start(): Promise<void> {
      try {
        await totals.load();
        const { devices, uninitialised } = await resolveDevices(client, settings.devices, { ...rt.call, priority: 'normal' });
        if (uninitialised.length > 0) node.warn(t('errors.uninitialised', { devices: uninitialised.join(', ') }));
        if (rt.closed) return;
        deviceCount = devices.length + uninitialised.length;
        switchDevices = devices.filter((d) => d.switches.length > 0).length;
        link.announce();
        if (settings.discovery) {
          link.publish(discoveryTopic(settings.discoveryPrefix, bridgeIdentifier(client.key)), JSON.stringify(bridgePayload(bridge, budgetTopic)));
        }
        status.devices = devices.length;
        for (const device of devices) {
          const bridge = new DeviceBridge(host, device);
          bridges.push(bridge);
          bridge.start();
          const group = siteGroup(client, device.id, rt.now);
          group.join(bridge.member);
          rt.onClose(() => group.leave(bridge.member));
        }
        status.show();
        if (history) {
          // The import chains on the live totals: it starts once every device's first energy read has gone through.
          await Promise.all(bridges.map((b) => b.settled()));
          if (!rt.closed) history.schedule();
        }
      } catch (err) {
        if (rt.closed) return;
        if (isPermanent(err)) {
          // A device not on the key, a refused key: nothing is published, and the broker connection is let go.
          fatal = err;
          status.refuse(err);
          return void link.close(false);
        }
        status.failed(err);
        rt.setTimer(() => { started = start(); }, RETRY_START_MS);
      }
    }

    if (settings.discovery) {
      // Home Assistant's birth message: it has (re)started and needs every discovery payload and state again.
      link.subscribe(haStatusTopic(settings.discoveryPrefix), (payload, packet) => {
        if (!packet.retain && payload.trim() === 'online') link.resend();
      });
    }
    // Without the broker's Last Will on the bridge's topic, HA would not see Node-RED crash or lose the network.
    if (!link.willCovers()) node.warn(t('errors.noWill', { topic: bridge.availabilityTopic }));
    link.start();
    status.show();
    rt.setTimer(() => { if (!status.connected) status.down(); }, FIRST_CONNECT_MS);
    let started = start();

    rt.onInput<NodeMessageInFlow>(async ({ msg }) => {
      const command = typeof msg.payload === 'string' ? msg.payload.trim().toLowerCase() : '';
      if (command !== 'refresh' && command !== 'republish' && command !== 'import history') {
        throw new MsgError(`msg.payload ${describeValue(msg.payload)} is not a command: send "refresh" (read now), "republish" (send discovery and every state again) or "import history"`);
      }
      await started;
      if (fatal) throw fatal;
      if (command === 'import history') {
        if (!history) throw new ConfigError(settings.historyDays > 0 ? 'the history import needs Home Assistant\'s access token: enter a long-lived access token (HA profile → Security) as HA token' : 'the history import is off: set History (days), the Home Assistant address and its access token');
        await Promise.all(bridges.map((b) => b.settled()));
        return void (await history.run(true));
      }
      if (command === 'republish') return link.resend();
      await Promise.all(bridges.map(async (b) => {
        await siteGroup(client, b.deviceId, rt.now).evaluate();
        await b.settled();
      }));
    });

    node.on('close', (removed: boolean, done: () => void) => {
      transactions.abandon();
      for (const bridge of bridges) bridge.close();
      if (removed) totals.forget();
      void link.close(removed).finally(done);
    });
  }

  RED.nodes.registerType('energy-mqtt', EnergyMqttNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { haToken: { type: 'password' } },
  } as Parameters<NodeAPI['nodes']['registerType']>[2]);
};
