import { MsgError } from '../../api/index.js';
import type { NodeMessage } from 'node-red';
import type { Device } from '../../api/index.js';
import type { LoadControlRegistry, LoadControlView } from '../shared/load-control-registry.js';
import { runOverrideCommand } from './commands.js';
import { memberNumber, type DeviceTopics } from './topics.js';

/**
 * A load-control node redeployed leaves and joins again within a deploy: the device's discovery is sent
 * once for both, so Home Assistant does not remove and recreate its select in between.
 */
const MEMBERS_SETTLE_MS = 1000;

export interface LoadControlHost {
  registry: LoadControlRegistry;
  setTimer(fn: () => void, ms: number): NodeJS.Timeout;
  clearTimer(timer: NodeJS.Timeout): void;
  publish(topic: string, payload: string): void;
  /** Subscribes a command topic once (retained commands are ignored). */
  listen(topic: string, handler: (payload: string) => Promise<unknown>): void;
  refused(err: unknown, msg: NodeMessage): void;
}

/**
 * The load-control nodes that drive a switch of one device, in Home Assistant: each one's override as a
 * select (set through the node's own command path) and the reason of its last decision as a sensor.
 */
export class LoadControls {
  private timer?: NodeJS.Timeout;
  private rediscover?: () => void;

  constructor(private readonly host: LoadControlHost, private readonly topics: DeviceTopics, private readonly device: () => Device) {}

  /** Follows the registry: each decision and override change is published; a node joining or leaving calls `rediscover` first. */
  follow(rediscover: () => void): void {
    this.rediscover = rediscover;
    this.host.registry.on('members', this.onMembers);
    this.host.registry.on('report', this.onReport);
  }

  stop(): void {
    this.host.registry.off('members', this.onMembers);
    this.host.registry.off('report', this.onReport);
    if (this.timer) this.host.clearTimer(this.timer);
    this.rediscover = undefined;
  }

  /** Subscribes every override's command topic and publishes every override and reason. */
  publishAll(): void {
    for (const view of this.host.registry.driving(this.device().id)) {
      const at = this.position(view);
      if (!at) continue;
      const topic = this.topics.overrideCommand(at.n, at.k);
      this.host.listen(topic, async (payload) => {
        // Looked up at each command: the load-control node may have been redeployed since.
        const current = this.host.registry.driving(this.device().id).filter((v) => v.switchId === view.switchId)[at.k - 1];
        if (!current) return this.host.refused(new MsgError(`no load-control node drives ${view.switchId} any more`), { topic, payload });
        if (!(await runOverrideCommand(this.host, current, topic, payload))) this.report(current);
      });
      this.report(view);
    }
  }

  /** Its override, and its last decision's reason with the figures behind it as attributes. */
  report(view: LoadControlView): void {
    const at = this.position(view);
    if (!at) return;
    this.host.publish(this.topics.override(at.n, at.k), view.override());
    const report = view.report();
    if (!report) return;
    this.host.publish(this.topics.reason(at.n, at.k), report.reason);
    const { reason: _reason, at: when, ...figures } = report;
    this.host.publish(this.topics.reasonAttributes(at.n, at.k), JSON.stringify({ ...figures, node: view.name || view.nodeId, mode: view.mode, evaluated_at: new Date(when).toISOString() }));
  }

  private readonly onMembers = (switchDeviceId: string): void => {
    if (!this.rediscover || switchDeviceId !== this.device().id) return;
    if (this.timer) this.host.clearTimer(this.timer);
    this.timer = this.host.setTimer(() => {
      this.timer = undefined;
      this.rediscover?.();
      this.publishAll();
    }, MEMBERS_SETTLE_MS);
  };

  private readonly onReport = (view: LoadControlView): void => {
    if (this.rediscover && view.switchDeviceId === this.device().id) this.report(view);
  };

  /** The switch's number, and the node's rank among those driving that switch (1 for the only one). */
  private position(view: LoadControlView): { n: number; k: number } | undefined {
    const device = this.device();
    const index = device.switches.findIndex((s) => s.id === view.switchId);
    if (index < 0) return undefined;
    const k = this.host.registry.driving(device.id).filter((v) => v.switchId === view.switchId).indexOf(view) + 1;
    return { n: memberNumber(view.switchId, index), k };
  }
}
