import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import type { Device } from '../../api/index.js';
import { DevicePoller, timerSleep } from '../../domain/site/device-poller.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { commonKey } from '../shared/i18n.js';
import { confirmedOn, pendingCausedBy, pendingOf } from './pending.js';
import { prepareUpdate } from './prepare-update.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { nodeClock } from '../shared/clock.js';

interface DeviceConfigDef extends FlowNodeDef {
  waitForPending?: boolean;
  timeout?: string | number;
}

type ConfigMessage = NodeMessageInFlow & { deviceId?: unknown };

const DEFAULT_TIMEOUT_S = 180;

export = function (RED: NodeAPI): void {
  function EnergyDeviceConfigNode(this: Node, def: DeviceConfigDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const runtime = new FlowNodeRuntime(RED, this, def);
    const poller = new DevicePoller(() => runtime.client(), timerSleep((fn, ms) => runtime.setTimer(fn, ms), (t) => runtime.clearTimer(t)), runtime.call, runtime.now);
    const waitForPending = def.waitForPending === true;
    const timeout = Number(def.timeout);
    const timeoutMs = (Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_S) * 1000;

    runtime.onInput<ConfigMessage>(async ({ msg, send, client, call }) => {
      const deviceId = runtime.deviceId(msg);
      const update = prepareUpdate(msg.payload, deviceId);
      runtime.busy(RED._(commonKey('status.requesting')));
      const started = runtime.now();
      const outcome = await client.updateDevice(deviceId, update, call);
      const out = msg as ConfigMessage & Record<string, unknown>;
      out.deviceId = deviceId;
      out.status = outcome.status;

      if (!waitForPending) {
        const pending = pendingOf(outcome.device);
        Object.assign(out, { payload: outcome.device, pending });
        runtime.status({
          fill: 'green',
          shape: pending.length ? 'ring' : 'dot',
          text: pending.length ? RED._('energy-device-config.status.updatedPending', { count: pending.length }) : RED._('energy-device-config.status.updated'),
        });
        send(out);
        return;
      }

      const caused = pendingCausedBy(update, pendingOf(outcome.device));
      let device: Device = outcome.device;
      let confirmed = true;
      if (caused.length) {
        runtime.busy(RED._(commonKey('status.waiting')));
        const waited = await poller.wait(deviceId, (d) => confirmedOn(d, caused), timeoutMs);
        device = waited.device;
        confirmed = waited.done;
      }
      const elapsed = runtime.now() - started;
      Object.assign(out, { payload: device, pending: pendingOf(device), confirmed, elapsed });
      runtime.status(
        confirmed
          ? { fill: 'green', shape: 'dot', text: RED._('energy-device-config.status.confirmed', { seconds: Math.round(elapsed / 1000) }) }
          : { fill: 'yellow', shape: 'ring', text: RED._('energy-device-config.status.notConfirmed') },
      );
      send(out);
    });
  }

  RED.nodes.registerType('energy-device-config', EnergyDeviceConfigNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
