import type { NodeMessage, NodeStatus } from 'node-red';
import type { LoadIds, StatusWords } from './words.js';
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
  if (!setpoint) return {};
  const energy = evaluation.energy;
  const kWh = (wh: number): number => Math.round(wh) / 1000;
  return {
    setpoint: setpoint.value, unit: setpoint.unit, setpointWatts: setpoint.watts,
    ...(energy ? { energy: { taken: kWh(energy.count.wh), need: kWh(energy.needWh), surplus: kWh(energy.surplusWh), grid: kWh(energy.gridWh), short: kWh(energy.shortWh), by: energy.period.end } } : {}),
  };
}

/** The status of a modulating load: the setpoint in place of on/off ("surplus 2.3 kW · 10 A · surplus"). */
export function setpointStatus(status: NodeStatus, evaluation: Evaluation): NodeStatus {
  const setpoint = evaluation.setpoint as SetpointState;
  const on = setpoint.value > 0;
  let text = String(status.text ?? '').replace(/ · (on|off|\?) · /, ` · ${on ? `${setpoint.value} ${setpoint.unit}` : 'off'} · `);
  const energy = evaluation.energy;
  if (energy) text += ` · ${(energy.count.wh / 1000).toFixed(1)}/${((energy.count.wh + energy.needWh) / 1000).toFixed(1)} kWh`;
  return { fill: evaluation.stale ? 'red' : on ? 'green' : 'grey', shape: on ? 'dot' : 'ring', text };
}

export type { StatusWords };
