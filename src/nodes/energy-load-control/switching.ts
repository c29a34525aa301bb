import type { NodeMessage } from 'node-red';
import type { Device } from '../../api/index.js';
import { shortReason } from '../shared/errors.js';
import { isAborted, type FlowNodeRuntime } from '../shared/flow-node.js';
import { decisionMsg } from './report.js';
import type { LoadIds } from './words.js';
import type { ParsedDef } from './settings.js';
import type { Evaluation, LoadMemory, LoadSettings } from '../../domain/site/types.js';
import { commandPayload, type FlowActuator } from '../../domain/site/actuator.js';

/** What sending a switch change needs of its node. */
export interface SwitchContext {
  rt: FlowNodeRuntime;
  parsed: ParsedDef;
  ids: LoadIds;
  memory(): LoadMemory;
  remember(next: LoadMemory): void;
  send(out: Array<NodeMessage | null>): void;
  problem(err: unknown): void;
  /** The load is switched by the flow: the command goes out on output 1 instead of a PATCH. */
  actuator?: FlowActuator;
}

/** Sends the change (or, in a dry run, only reports it); the next evaluations watch it until confirmed or timed out. */
export async function switchLoad(ctx: SwitchContext, evaluation: Evaluation, device: Device | undefined, settings: LoadSettings): Promise<Device | undefined> {
  const { rt, parsed, ids } = ctx;
  const target = evaluation.switchTo as 'on' | 'off';
  if (settings.dryRun) {
    ctx.remember({ ...ctx.memory(), state: target, since: evaluation.at });
    // A flow's output 1 switches whatever it is wired to: a dry run sends nothing there.
    if (!ctx.actuator) ctx.send([decisionMsg(ids, evaluation, target, 'dryRun'), null]);
    return undefined;
  }
  if (ctx.actuator && parsed.flow) {
    ctx.actuator.commanded();
    ctx.remember({ ...ctx.memory(), pending: { target, at: evaluation.at, reason: evaluation.reason, signal: evaluation.signal } });
    ctx.send([decisionMsg(ids, evaluation, target, 'sent', { payload: commandPayload(parsed.flow.commandForm, target), state: target }), null]);
    return undefined;
  }
  try {
    const update = { switches: [{ id: parsed.switchId, state: target === 'on' ? ('closed' as const) : ('open' as const) }] };
    const outcome = await rt.client().updateDevice(parsed.switchDeviceId, update, { device, signal: rt.signal, priority: 'interactive' });
    ctx.remember({ ...ctx.memory(), pending: { target, at: evaluation.at, reason: evaluation.reason, signal: evaluation.signal } });
    ctx.send([decisionMsg(ids, evaluation, target, 'sent'), null]);
    return outcome.device;
  } catch (err) {
    if (rt.closed || isAborted(err)) return undefined;
    ctx.send([decisionMsg(ids, evaluation, target, 'failed', { error: shortReason(err) }), null]);
    ctx.problem(err);
    return undefined;
  }
}
