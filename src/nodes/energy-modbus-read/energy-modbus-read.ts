import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import { checkPlanCost, type ModbusEntry, type RangeQuery } from '../../api/index.js';
import { maxRequestsOf } from '../shared/request-budget.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { commonKey } from '../shared/i18n.js';
import { resolveTimezone } from '../shared/timezone.js';
import { assertModbusDevice, explainModbusRefusal, readDevice } from './modbus-device.js';
import { readQuery, readRange, readScale, type ModbusReadOverrides, type ModbusReadSettings } from './modbus-input.js';
import { fieldUnits, meterSegments, scaleEntries } from './modbus-output.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { nodeClock } from '../shared/clock.js';

type ModbusReadDef = FlowNodeDef & ModbusReadSettings & { maxRequests?: unknown };
type ModbusReadMsg = NodeMessageInFlow & ModbusReadOverrides & { deviceId?: unknown };

export = function (RED: NodeAPI): void {
  function EnergyModbusReadNode(this: Node, def: ModbusReadDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const runtime = new FlowNodeRuntime(RED, this, def);
    /** Refuses, before any planning, a range that would cost more than the node's maxRequests. */
    const checkBudget = (range: RangeQuery): void =>
      checkPlanCost({ kind: 'modbus', ...range, nowS: Math.floor(runtime.now() / 1000) }, maxRequestsOf(def));

    runtime.onInput<ModbusReadMsg>(async ({ msg, send, client, config, call }) => {
      const deviceId = runtime.deviceId(msg);
      const query = readQuery(msg, def);
      const scale = readScale(msg, def);
      // Refuse unreadable times before any request; they are read again in the device's timezone.
      if (query === 'range') checkBudget(readRange(msg, def, { timezone: config.timezone, nowMs: runtime.now() }));
      runtime.busy(RED._(commonKey('status.requesting')));

      const device = await readDevice(client, deviceId, call);
      assertModbusDevice(device, deviceId);
      const timezone = resolveTimezone(undefined, device, config) ?? 'UTC';

      let entries: ModbusEntry[];
      const out = msg as ModbusReadMsg & Record<string, unknown>;
      try {
        if (query === 'range') {
          const range = readRange(msg, def, { timezone, nowMs: runtime.now() });
          checkBudget(range);
          entries = await client.getModbus(deviceId, range, { ...call, maxRequests: maxRequestsOf(def) });
          out.range = { ...range, timezone };
        } else {
          const entry = await client.getModbusEdge(deviceId, query, {}, call);
          entries = entry ? [entry] : [];
        }
      } catch (err) {
        throw explainModbusRefusal(err, deviceId);
      }

      const scaled = scaleEntries(entries, scale);
      const meters = meterSegments(scaled);
      out.payload = query === 'range' ? scaled : scaled[0] ?? null;
      out.meters = meters;
      out.units = fieldUnits(meters, scale);
      out.deviceId = deviceId;
      out.query = query;
      out.scale = scale;
      send(out);

      if (scaled.length === 0) {
        runtime.status({ fill: 'yellow', shape: 'ring', text: RED._(commonKey('status.noData')) });
      } else {
        const models = meters.map((m) => m.model).join(' → ');
        const key = query === 'range' ? 'energy-modbus-read.status.entries' : 'energy-modbus-read.status.edge';
        runtime.status({ fill: 'green', shape: 'dot', text: RED._(key, { count: scaled.length, models, query }) });
      }
    });
  }

  RED.nodes.registerType('energy-modbus-read', EnergyModbusReadNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
