import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { EnergyApiError, isEnergyApiError, type Device, type EnergyApiClient, type SwitchState } from '../../api/index.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { isConfirmed, parseCommand, stateLabel, switchIdFor, switchToControl } from './command.js';
import { abortError, DevicePoller, timerSleep } from '../shared/device-poller.js';
import { SwitchLane, type JobOutcome } from './switch-lane.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
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
    const poller = new DevicePoller(() => rt.client(), timerSleep((fn, ms) => rt.setTimer(fn, ms), (t) => rt.clearTimer(t)), rt.call, rt.now);
    const lanes = new Map<string, SwitchLane>();
    const key = (k: string, opts?: Record<string, string | number>): string => RED._(`energy-switch-control.${k}`, opts);

    rt.onClose(() => {
      for (const lane of lanes.values()) lane.abandon(abortError());
      lanes.clear();
    });

    /**
     * A fresh read, unless the device was read within the poll spacing by any node on the key or is
     * being polled: then the client's copy (refreshed by every poll and write) is that fresh. Concurrent msgs share one read.
     */
    async function readDevice(client: EnergyApiClient, deviceId: string): Promise<Device> {
      const laneBusy = [...lanes.values()].some((l) => l.deviceId === deviceId && !l.idle);
      if (poller.busy(deviceId) || laneBusy) return client.knownDevice(deviceId, { ...rt.call, priority: 'interactive' });
      return (await client.pollDevice(deviceId, { ...rt.call, priority: 'interactive' })).device;
    }

    function laneFor(client: EnergyApiClient, deviceId: string, switchId: string): SwitchLane {
      const existing = lanes.get(switchId);
      if (existing) return existing;
      const lane = new SwitchLane(deviceId, switchId, {
        timeoutMs,
        now: rt.now,
        onSending: (target) => rt.busy(key(target === 'closed' ? 'status.closing' : 'status.opening')),
        write: async (id, swId, target) => {
          try {
            const outcome = await client.updateDevice(id, { switches: [{ id: swId, state: target }] }, { ...rt.call, priority: 'interactive' });
            return outcome.device;
          } catch (err) {
            if (isEnergyApiError(err) && err.status === 403) throw notPermitted(err, client.key);
            // A server error or a lost answer may come after the service took the change: the poll that
            // follows tells, and the command ends confirmed or not confirmed (output 2), never unknown.
            if (mayHaveApplied(err)) {
              rt.node.warn(key('errors.writeUncertain', { reason: isEnergyApiError(err) ? err.code : String(err) }));
              return client.knownDevice(id, { signal: rt.signal, priority: 'interactive' });
            }
            throw err;
          }
        },
        waitFor: (id, swId, target, ms) => poller.wait(id, (d) => isConfirmed(d, swId, target), ms),
      });
      lanes.set(switchId, lane);
      return lane;
    }

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
      const device = await readDevice(client, deviceId);
      const sw = switchToControl(device, switchId);
      const command = parseCommand(msg.payload, sw);
      const outcome = await laneFor(client, deviceId, sw.id).submit(command, device);
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

  /** 5xx, or sent without an answer (reset, timeout, malformed body): the write may have been applied. */
  function mayHaveApplied(err: unknown): boolean {
    if (!isEnergyApiError(err) || !err.sent || err.code === 'ABORTED') return false;
    return err.status >= 500 || err.status === 0;
  }

  /** A 403 on a switch write means the key lacks the switching permission (spec 4.3 rule 2, 5.4). */
  function notPermitted(err: EnergyApiError, keyHint: string): EnergyApiError {
    return new EnergyApiError({
      status: err.status,
      code: err.code,
      message: `switching is not permitted for the API key ${keyHint} (403 ${err.code}): ask the service operator to enable switching for this key`,
      apiMessage: err.apiMessage,
      errors: err.errors,
      method: err.method,
      path: err.path,
      sent: true,
    });
  }

  RED.nodes.registerType('energy-switch-control', EnergySwitchControlNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
};
