import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import type { EnergyApiClient } from '../../api/index.js';
import { FlowNodeRuntime } from '../shared/flow-node.js';
import { commonKey } from '../shared/i18n.js';
import { changeSignature, messageFields, readStatus, type StatusReading } from './read-status.js';
import { MIN_INTERVAL_S, readSettings, type DeviceStatusDef, type DeviceStatusSettings } from './settings.js';
import { statusFor, type Translate } from './status-text.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';

/** Lets downstream nodes start before the deploy-time output (as the inject node's "once after"). */
const DEPLOY_OUTPUT_DELAY_MS = 100;

export = function (RED: NodeAPI): void {
  function EnergyDeviceStatusNode(this: Node, def: DeviceStatusDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    const node = this;
    const runtime = new FlowNodeRuntime(RED, node, def);
    const t: Translate = (key, params) => RED._(key, params);

    let settings: DeviceStatusSettings;
    try {
      settings = readSettings(def);
    } catch (err) {
      runtime.error(err);
      node.error(err instanceof Error ? err.message : String(err));
      runtime.onInput(async () => {
        throw err;
      });
      return;
    }
    if (settings.raisedInterval !== undefined) {
      node.warn(RED._('energy-device-status.errors.intervalTooShort', { interval: settings.raisedInterval, min: MIN_INTERVAL_S }));
    }

    /** Devices seen by the last "every device" read: that mode costs one request per device. */
    let deviceCount: number | undefined;
    attachDailyCost(RED, node, def, () => ({ deviceCount, devicesPerTrigger: runtime.devicesPerTrigger() }));

    /** Signature of the last output, for "only on change". */
    let lastSignature: string | undefined;

    const read = async (client: EnergyApiClient, msg: { deviceId?: unknown }): Promise<StatusReading> => {
      const reading = await readStatus(client, {
        mode: settings.mode,
        deviceId: () => runtime.deviceId(msg),
        offlineAfterSeconds: settings.offlineAfterSeconds,
        call: runtime.call,
        now: runtime.now,
      });
      runtime.status(statusFor(reading, t));
      if (reading.mode === 'devices') deviceCount = reading.payload.length;
      return reading;
    };

    runtime.onInput<NodeMessageInFlow & { deviceId?: unknown }>(async ({ msg, send, client }) => {
      runtime.busy(RED._(commonKey('status.requesting')));
      const reading = await read(client, msg);
      lastSignature = changeSignature(reading);
      send(Object.assign(msg, messageFields(reading)));
    });

    /** A read outside any input (polling, deploy): emits unless "only on change" and nothing changed. */
    const emitReading = (onlyIfChanged: boolean) =>
      runtime.runTask(async (client) => {
        const reading = await read(client, {});
        const signature = changeSignature(reading);
        const changed = signature !== lastSignature;
        lastSignature = signature;
        if (runtime.closed || (onlyIfChanged && !changed)) return;
        node.send(messageFields(reading) as NodeMessage);
      });

    const schedulePoll = (): void => {
      if (runtime.closed || settings.intervalSeconds <= 0) return;
      runtime.setTimer(() => void emitReading(settings.onlyOnChange).finally(schedulePoll), settings.intervalSeconds * 1000);
    };

    if (settings.outputOnDeploy) {
      runtime.setTimer(() => void emitReading(false).finally(schedulePoll), DEPLOY_OUTPUT_DELAY_MS);
    } else {
      schedulePoll();
    }
  }

  RED.nodes.registerType('energy-device-status', EnergyDeviceStatusNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
