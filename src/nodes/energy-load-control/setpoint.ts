import type { NodeMessage, NodeStatus } from 'node-red';
import type { LoadIds, StatusWords } from './report.js';
import type { Evaluation, SetpointState } from '../../domain/site/types.js';

/** Output 1 of a modulating load: the new setpoint (msg.payload in msg.unit, 0 = off) for the charger's node. */
export function setpointMsg(ids: LoadIds, evaluation: Evaluation): NodeMessage {
  const setpoint = evaluation.setpoint as SetpointState;
  return {
    ...ids,
    payload: setpoint.value,
    unit: setpoint.unit,
    on: setpoint.value > 0,
    watts: setpoint.watts,
    reason: evaluation.reason,
    signal: evaluation.signal,
    loadDraw: evaluation.loadDraw,
    timestamp: evaluation.at,
  } as NodeMessage;
}

/** The setpoint's fields on output 2's evaluation msg. */
export function setpointFields(evaluation: Evaluation): Record<string, unknown> {
  const setpoint = evaluation.setpoint;
  return setpoint ? { setpoint: setpoint.value, unit: setpoint.unit, setpointWatts: setpoint.watts } : {};
}

/** The status of a modulating load: the setpoint in place of on/off ("surplus 2.3 kW · 10 A · surplus"). */
export function setpointStatus(status: NodeStatus, evaluation: Evaluation): NodeStatus {
  const setpoint = evaluation.setpoint as SetpointState;
  const on = setpoint.value > 0;
  const text = String(status.text ?? '').replace(/ · (on|off|\?) · /, ` · ${on ? `${setpoint.value} ${setpoint.unit}` : 'off'} · `);
  return { fill: evaluation.stale ? 'red' : on ? 'green' : 'grey', shape: on ? 'dot' : 'ring', text };
}

export type { StatusWords };
