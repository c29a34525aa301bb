import type { NodeMessage } from 'node-red';
import { EnergyApiError, MsgError, type Device, type EnergyApiClient } from '../../api/index.js';
import { parseCommand, switchToControl } from '../../domain/site/switch-command.js';
import type { SwitchTransactions } from '../../domain/site/switch-transactions.js';
import { isAborted } from '../shared/flow-node.js';
import { OVERRIDE_CHOICES, type LoadControlView, type OverrideChoice } from '../shared/load-control-registry.js';
import { describeValue } from '../shared/msg-guard.js';
import { switchAttributes, switchState } from './states.js';
import type { DeviceTopics } from './topics.js';

export interface CommandHost {
  client(): EnergyApiClient;
  transactions: SwitchTransactions;
  /** Switch commands time out after this long without the device's confirmation. */
  timeoutS: number;
  publish(topic: string, payload: string, force?: boolean): void;
  /** The device as last known (for the real state after a failed read). */
  lastKnown(): Device;
  /** The device as a command's transaction last saw it. */
  seen(device: Device): void;
  /** A command from MQTT failed: to the log and a Catch node (with the msg), and the node's status. */
  refused(err: unknown, msg: NodeMessage): void;
}

/**
 * A command from Home Assistant for one switch (`ON`/`OFF`, or any word energy-switch-control takes) goes
 * through the switch transaction. The state topic reports the new state only once the device confirms; a
 * refused or timed-out command publishes the real state back with the error in the switch's attributes.
 */
export async function runSwitchCommand(host: CommandHost, topics: DeviceTopics, n: number, switchId: string, payload: string): Promise<void> {
  const msg: NodeMessage = { topic: topics.switchCommand(n), payload, deviceId: topics.deviceId, switchId } as NodeMessage;
  let device = host.lastKnown();
  const report = (error: string | null, requested: string | null): void => {
    const sw = device.switches.find((s) => s.id === switchId);
    if (!sw) return;
    // Sent even when unchanged: the command's sender is told the real state, whatever it assumed.
    host.publish(topics.switchState(n), switchState(sw), true);
    host.publish(topics.switchAttributes(n), switchAttributes(sw, error, requested));
  };
  try {
    const client = host.client();
    device = await host.transactions.readDevice(client, topics.deviceId);
    host.seen(device);
    const sw = switchToControl(device, switchId);
    const outcome = await host.transactions.submit(client, topics.deviceId, sw.id, parseCommand(payload, sw), device);
    if (outcome.kind === 'superseded') return;
    device = outcome.device;
    host.seen(device);
    if (outcome.kind === 'confirmed') return report(null, null);
    const problem = `not confirmed by the device within ${host.timeoutS} s (${outcome.target} requested)`;
    report(problem, outcome.target);
    host.refused(new EnergyApiError({ code: 'NOT_CONFIRMED', message: `switch ${switchId}: ${problem}`, sent: true }), msg);
  } catch (err) {
    if (isAborted(err)) return;
    report(err instanceof Error ? err.message : String(err), null);
    host.refused(err, msg);
  }
}

/** A choice from Home Assistant's select for a load's override: auto, on or off, as the load-control node takes it. */
export async function runOverrideCommand(host: Pick<CommandHost, 'refused'>, view: LoadControlView, topic: string, payload: string): Promise<boolean> {
  const choice = payload.trim().toLowerCase() as OverrideChoice;
  if (!OVERRIDE_CHOICES.includes(choice)) {
    host.refused(new MsgError(`${describeValue(payload)} is not an override of ${view.switchId}: send auto, on or off`), { topic, payload } as NodeMessage);
    return false;
  }
  await view.setOverride(choice);
  return true;
}
