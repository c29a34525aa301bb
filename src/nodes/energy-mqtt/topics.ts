import type { SiteTotal } from '../../domain/site/energy-totals.js';

export { memberNumber, type SiteTotal } from '../../domain/site/energy-totals.js';

/**
 * Where the node publishes. Discovery: `<prefix>/device/<deviceId>/config` (Home Assistant's device-based
 * form). States: under `<baseTopic>/<deviceId>/`, one plain value per topic, all retained. Ids in topics are
 * the API's own (device ids are letters and digits; channel and switch numbers are digits).
 */

/** HA accepts only these characters in a discovery object id (and the node keeps to them in every id it makes). */
export function topicId(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function discoveryTopic(prefix: string, deviceId: string): string {
  return `${prefix}/device/${topicId(deviceId)}/config`;
}

/** Home Assistant's birth and last-will topic. */
export function haStatusTopic(prefix: string): string {
  return `${prefix}/status`;
}


/** Node-RED's own availability under a base topic: `online` while connected, `offline` on close and (by the broker's Last Will) on a crash. */
export function bridgeAvailabilityTopic(baseTopic: string): string {
  return `${baseTopic}/bridge/availability`;
}

/** The key's requests left today (one topic per key, whatever device reads it). */
export function keyBudgetTopic(baseTopic: string, keyHint: string): string {
  return `${baseTopic}/bridge/key_${keyHint.replace(/[^A-Za-z0-9]/g, '')}/api_budget`;
}


export class DeviceTopics {
  readonly root: string;

  constructor(baseTopic: string, readonly deviceId: string) {
    this.root = `${baseTopic}/${topicId(deviceId)}`;
  }

  get availability(): string { return `${this.root}/availability`; }
  /** JSON attributes of every energy total: the newest record counted and the late records still expected. */
  get energyAttributes(): string { return `${this.root}/energy/attributes`; }
  power(channel: number): string { return `${this.root}/channel/${channel}/power`; }
  imported(channel: number): string { return `${this.root}/channel/${channel}/imported`; }
  exported(channel: number): string { return `${this.root}/channel/${channel}/exported`; }
  site(total: SiteTotal): string { return `${this.root}/site/${total}`; }
  switchState(n: number): string { return `${this.root}/switch/${n}/state`; }
  switchCommand(n: number): string { return `${this.root}/switch/${n}/set`; }
  switchAttributes(n: number): string { return `${this.root}/switch/${n}/attributes`; }
  /** Load control of switch n (`k` > 1 when several load-control nodes drive one switch). */
  override(n: number, k = 1): string { return `${this.root}/switch/${n}/load_control${k > 1 ? `_${k}` : ''}/override`; }
  overrideCommand(n: number, k = 1): string { return `${this.override(n, k)}/set`; }
  reason(n: number, k = 1): string { return `${this.root}/switch/${n}/load_control${k > 1 ? `_${k}` : ''}/reason`; }
  reasonAttributes(n: number, k = 1): string { return `${this.reason(n, k)}/attributes`; }
}
