import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import type { SwitchState } from '../../api/index.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { parseCommand, stateLabel, switchIdFor, switchToControl } from '../../domain/site/switch-command.js';
import type { JobOutcome } from '../../domain/site/switch-lane.js';
import { SwitchTransactions } from '../../domain/site/switch-transactions.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
import { nodeClock } from '../shared/clock.js';

interface SwitchControlDef extends FlowNodeDef {
  switchId?: string;
  timeout?: string | number;
}

interface SwitchMsg extends NodeMessageInFlow {
  switchId?: unknown;
  deviceId?: unknown;
}

const DEFAULT_TIMEOUT_S = 180;

export = function (RED: NodeAPI): void {
  function EnergySwitchControlNode(this: Node, def: SwitchControlDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const rt = new FlowNodeRuntime(RED, this, def);
    const timeoutS = Number(def.timeout);
    const timeoutMs = (Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS : DEFAULT_TIMEOUT_S) * 1000;
    const key = (k: string, opts?: Record<string, string | number>): string => RED._(`energy-switch-control.${k}`, opts);
    const transactions = new SwitchTransactions({
      client: () => rt.client(),
      call: rt.call,
      now: rt.now,
      setTimer: (fn, ms) => rt.setTimer(fn, ms),
      clearTimer: (t) => rt.clearTimer(t),
      onSending: (_switchId, target) => rt.busy(key(target === 'closed' ? 'status.closing' : 'status.opening')),
      warnUncertain: (reason) => rt.node.warn(key('errors.writeUncertain', { reason })),
    }, timeoutMs);

    rt.onClose(() => transactions.abandon());

    function output(msg: SwitchMsg, deviceId: string, switchId: string, outcome: Exclude<JobOutcome, { kind: 'superseded' }>): NodeMessage {
      const sw = outcome.device.switches.find((s) => s.id === switchId);
      const state: SwitchState = outcome.kind === 'confirmed' ? outcome.target : (sw?.state ?? outcome.target);
      const out = msg as SwitchMsg & Record<string, unknown>;
      out.payload = state;
      out.deviceId = deviceId;
      out.switchId = switchId;
      out.requested = outcome.target;
      out.confirmed = outcome.kind === 'confirmed';
      out.elapsed = outcome.elapsedMs;
      out.label = stateLabel(sw, state);
      out.device = outcome.device;
      if (outcome.kind === 'notConfirmed') out.pending = sw?.pending ?? null;
      return out;
    }

    rt.onInput<SwitchMsg>(async ({ msg, send, client }) => {
      const deviceId = rt.deviceId(msg);
      const switchId = switchIdFor(deviceId, msg.switchId ?? def.switchId);
      const device = await transactions.readDevice(client, deviceId);
      const sw = switchToControl(device, switchId);
      const command = parseCommand(msg.payload, sw);
      const outcome = await transactions.submit(client, deviceId, sw.id, command, device);
      if (outcome.kind === 'superseded') return;
      const out = output(msg, deviceId, sw.id, outcome);
      if (outcome.kind === 'confirmed') {
        rt.status({ fill: 'green', shape: 'dot', text: key('status.confirmed', { state: outcome.target, seconds: Math.round(outcome.elapsedMs / 1000) }) });
        send([out, null]);
      } else {
        rt.status({ fill: 'yellow', shape: 'ring', text: key('status.notConfirmed') });
        send([null, out]);
      }
    });
  }

  RED.nodes.registerType('energy-switch-control', EnergySwitchControlNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
