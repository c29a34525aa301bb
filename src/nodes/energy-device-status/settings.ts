import type { FlowNodeDef } from '../shared/flow-node.js';
import { checkMode, type StatusMode } from './read-status.js';

export interface DeviceStatusDef extends FlowNodeDef {
  mode?: string;
  offlineAfter?: string | number;
  interval?: string | number;
  onlyOnChange?: boolean;
  outputOnDeploy?: boolean;
}

export interface DeviceStatusSettings {
  mode: StatusMode;
  offlineAfterSeconds: number;
  /** 0 = no polling. */
  intervalSeconds: number;
  onlyOnChange: boolean;
  outputOnDeploy: boolean;
  /** Set when the configured interval was raised to the minimum. */
  raisedInterval?: number;
}

export const DEFAULT_OFFLINE_AFTER_S = 900;
/** Polling faster than this would spend the key's budget for nothing (devices report every 30 s). */
export const MIN_INTERVAL_S = 5;

export function readSettings(def: DeviceStatusDef): DeviceStatusSettings {
  const offlineAfter = Number(def.offlineAfter);
  const interval = Number(def.interval);
  const wanted = Number.isFinite(interval) && interval > 0 ? interval : 0;
  const intervalSeconds = wanted > 0 && wanted < MIN_INTERVAL_S ? MIN_INTERVAL_S : wanted;
  return {
    mode: checkMode(def.mode),
    offlineAfterSeconds: Number.isFinite(offlineAfter) && offlineAfter > 0 ? offlineAfter : DEFAULT_OFFLINE_AFTER_S,
    intervalSeconds,
    onlyOnChange: def.onlyOnChange === true,
    outputOnDeploy: def.outputOnDeploy === true,
    raisedInterval: intervalSeconds !== wanted ? wanted : undefined,
  };
}
