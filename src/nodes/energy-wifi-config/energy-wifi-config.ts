import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import type { Device } from '../../api/index.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { commonKey } from '../shared/i18n.js';
import { assertPlainData } from '../shared/msg-guard.js';
import { DevicePoller, timerSleep } from '../../domain/site/device-poller.js';
import { parseWifiRequest, scrubPayload, wifiApplied, wifiResult, withoutPsk, type WifiRequest } from './wifi-request.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { nodeClock } from '../shared/clock.js';

interface WifiConfigDef extends FlowNodeDef {
  timeout?: string | number;
}

interface WifiCredentials {
  password?: string;
}

const DEFAULT_TIMEOUT_S = 300;

export = function (RED: NodeAPI): void {
  function EnergyWifiConfigNode(this: Node & { credentials?: WifiCredentials }, def: WifiConfigDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const node = this;
    const rt = new FlowNodeRuntime(RED, this, def);
    const timeoutS = Number(def.timeout);
    const timeoutMs = (Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS : DEFAULT_TIMEOUT_S) * 1000;
    const poller = new DevicePoller(() => rt.client(), timerSleep((fn, ms) => rt.setTimer(fn, ms), (t) => rt.clearTimer(t)), rt.call, rt.now);
    const key = (k: string, opts?: Record<string, string>): string => RED._(`energy-wifi-config.${k}`, opts);
    // One WiFi change at a time: a second one waits until the first is applied or timed out.
    let previous: Promise<unknown> = Promise.resolve();

    function serialised<T>(task: () => Promise<T>): Promise<T> {
      const run = previous.then(task, task);
      previous = run.catch(() => undefined);
      return run;
    }

    /** Each msg's payload as it came, PSK included: only this node's input handler reads it. */
    const originals = new WeakMap<object, unknown>();

    rt.onInput(async ({ msg, send, client, call }) => {
      const original = originals.get(msg);
      originals.delete(msg);
      const deviceId = rt.deviceId(msg as NodeMessageInFlow & { deviceId?: unknown });
      assertPlainData(original, 'msg.payload');
      const request: WifiRequest = parseWifiRequest(original, node.credentials?.password || undefined);

      await serialised(async () => {
        rt.busy(RED._(commonKey('status.requesting')));
        const update = { comms: { wifi: { ssid: request.ssid, psk: request.psk } } };
        let device: Device = (await client.updateDevice(deviceId, update, call)).device;
        // An uninitialised device queues the change without showing it pending (spec 3.3): not applied yet.
        let applied = !device.uninitialised && wifiApplied(device);
        if (!applied && !device.uninitialised) {
          rt.busy(RED._(commonKey('status.waiting')));
          const result = await poller.wait(deviceId, wifiApplied, timeoutMs);
          device = result.device;
          applied = result.done;
        }
        const out = msg as NodeMessageInFlow & Record<string, unknown>;
        out.payload = wifiResult(device, request, applied);
        out.deviceId = deviceId;
        out.device = withoutPsk(device);
        if (applied) {
          const text = request.wifiOff ? key('status.wifiOff') : key('status.applied', { ssid: request.ssid });
          rt.status({ fill: 'green', shape: 'dot', text });
        } else {
          rt.status({ fill: 'yellow', shape: 'ring', text: key(device.uninitialised ? 'status.queued' : 'status.notApplied') });
        }
        send(out);
      });
    }, (msg) => {
      // Before anything can fail: a Catch node or a later node must never receive the PSK.
      originals.set(msg, msg.payload);
      msg.payload = scrubPayload(msg.payload);
    });
  }

  RED.nodes.registerType('energy-wifi-config', EnergyWifiConfigNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { password: { type: 'password' } },
  });
};
