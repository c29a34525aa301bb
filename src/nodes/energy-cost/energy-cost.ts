import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { ConfigError, type Device, type EnergyEntry, isValidTimezone, MsgError } from '../../api/index.js';
import type { EnergyTariffConfigNode } from '../shared/config-types.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { gridChannels } from './channels.js';
import { computeCost, type CostResult } from '../../domain/pricing/entry-cost.js';
import { gridEnergy } from '../../domain/entries/grid-energy.js';
import { exportPeriods, readPrices } from '../../domain/pricing/normalise.js';

interface EnergyCostDef extends NodeDef {
  tariff: string;
  api?: string;
  channels?: string;
  timezone?: string;
}

type CostMsg = NodeMessageInFlow & {
  payload?: unknown;
  deviceId?: unknown;
  timezone?: unknown;
  prices?: unknown;
  exportPrices?: unknown;
  apiError?: unknown;
};

export = function (RED: NodeAPI): void {
  function EnergyCostNode(this: Node, def: EnergyCostDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    const tariffNode = RED.nodes.getNode(def.tariff) as EnergyTariffConfigNode | null;
    // The energy-api config node is optional: it only finds a device's Grid channel and timezone.
    const runtime = new FlowNodeRuntime(RED, this, def as FlowNodeDef, { api: Boolean(def.api) });
    const api = runtime.config;
    if (!tariffNode?.tariff) runtime.status({ fill: 'red', shape: 'ring', text: RED._('energy-cost.status.noTariff') });

    /** The device, when its Grid channel or its timezone decides (the device's zone comes before msg.timezone). */
    async function device(msg: CostMsg): Promise<Device | undefined> {
      const needed = !def.channels?.trim() || !(def.timezone || tariffNode?.tariff?.timezone);
      if (!needed || typeof msg.deviceId !== 'string' || !api?.client) return undefined;
      return api.client.knownDevice(msg.deviceId, { signal: runtime.signal });
    }

    async function cost(msg: CostMsg): Promise<CostResult & { deviceId?: string; channels: string[] }> {
      const tariff = tariffNode?.tariff;
      if (!tariff) throw new ConfigError(tariffNode?.problem ? `the tariff is not usable: ${tariffNode.problem}` : 'no energy-tariff config node is selected');
      const entries = Array.isArray(msg.payload) ? msg.payload : msg.payload && typeof msg.payload === 'object' ? [msg.payload] : undefined;
      if (!entries) throw new MsgError('msg.payload must be energy entries (energy-query "entries" output) or one entry');
      const deviceId = typeof msg.deviceId === 'string' ? msg.deviceId : undefined;
      const dev = await device(msg);
      // The first that is set: the node's, the tariff's, the device's, the msg's, the config node's.
      const zone = def.timezone || tariff.timezone || dev?.timezone || (typeof msg.timezone === 'string' ? msg.timezone : '') || api?.timezone || '';
      if (!isValidTimezone(zone)) throw new ConfigError(zone ? `"${String(zone).slice(0, 64)}" is not a time zone name` : 'no timezone: set one in the node or the tariff, or send msg.timezone (energy-query sets it)');
      const channels = gridChannels(def.channels ?? '', dev, deviceId);
      const energies = (entries as EnergyEntry[]).map((entry, i) => gridEnergy(entry, channels, i)).sort((a, b) => a.end - b.end);
      const importPrices = readPrices(msg.prices, { source: 'msg.prices', single: 'forever' }).periods;
      // Export prices: msg.exportPrices, else the exportPrice of msg.prices' slots (energy-price sends both in one list).
      const exportPrices = msg.exportPrices === undefined || msg.exportPrices === null
        ? exportPeriods(importPrices)
        : readPrices(msg.exportPrices, { source: 'msg.exportPrices', single: 'forever' }).periods;
      const result = computeCost(energies, { tariff, zone, importPrices, exportPrices });
      const ids = channels.map((i) => (deviceId ? `${deviceId}_C${i + 1}` : `C${i + 1}`));
      return { deviceId, channels: ids, ...result };
    }

    runtime.onMessage<CostMsg>(async ({ msg, send }) => {
      const result = await cost(msg);
      msg.payload = result;
      const net = result.total.netCost.toFixed(2);
      runtime.status({ fill: 'green', shape: 'dot', text: RED._(result.days.length === 1 ? 'energy-cost.status.doneOneDay' : 'energy-cost.status.done', { days: result.days.length, net, currency: result.currency }) });
      send(msg);
    });
  }

  RED.nodes.registerType('energy-cost', EnergyCostNode);
};
