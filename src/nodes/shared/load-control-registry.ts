import { EventEmitter } from 'node:events';
import { clientScoped, type EnergyApiClient } from '../../api/index.js';

/** What an override can be set to from outside the flow: force on, force off, or back to automatic. */
export type OverrideChoice = 'auto' | 'on' | 'off';
export const OVERRIDE_CHOICES: readonly OverrideChoice[] = ['auto', 'on', 'off'];

/** The latest evaluation of a load, as far as others may show it. */
export interface LoadControlReport {
  /** The reason code of the decision (surplus, minOn, override…). */
  reason: string;
  /** The load's state as known (or where a pending change is heading); null when unknown. */
  state: 'on' | 'off' | null;
  pending: boolean;
  /** W: the signal the decision compared, and the thresholds. */
  signal: number | null;
  onAt: number | null;
  offAt: number | null;
  /** s until the hold (minOn/minOff) ends. */
  holdLeftS: number;
  /** Node-clock ms of the evaluation. */
  at: number;
}

/** One energy-load-control node as other nodes on its key see it: which switch it drives, its override and its last decision. */
export interface LoadControlView {
  readonly nodeId: string;
  readonly name: string;
  readonly mode: string;
  /** The device that measures; the device and switch that it drives. */
  readonly deviceId: string;
  readonly switchDeviceId: string;
  readonly switchId: string;
  override(): OverrideChoice;
  report(): LoadControlReport | undefined;
  /** Sets the override as a msg to the node would (`auto` drops it) and evaluates at once. */
  setOverride(choice: OverrideChoice): Promise<void>;
}

/**
 * The energy-load-control nodes of one key in this process, so that energy-mqtt can show each load's
 * override and reason and set the override without wires between the nodes. Events: `members` when a
 * node joins or leaves (its switch device as the argument), `report` (the view) after each evaluation
 * or override change.
 */
export class LoadControlRegistry extends EventEmitter {
  private readonly views = new Set<LoadControlView>();

  add(view: LoadControlView): { changed(): void; remove(): void } {
    this.views.add(view);
    this.emit('members', view.switchDeviceId);
    return {
      changed: () => {
        if (this.views.has(view)) this.emit('report', view);
      },
      remove: () => {
        if (this.views.delete(view)) this.emit('members', view.switchDeviceId);
      },
    };
  }

  /** The load-control nodes that drive a switch of `deviceId`, ordered by switch then node id. */
  driving(deviceId: string): LoadControlView[] {
    return [...this.views]
      .filter((v) => v.switchDeviceId === deviceId)
      .sort((a, b) => (a.switchId === b.switchId ? (a.nodeId < b.nodeId ? -1 : 1) : a.switchId < b.switchId ? -1 : 1));
  }
}

const REGISTRY = Symbol('load-control registry');

/** The registry of the key's one client in this process (created on first use). */
export function loadControlRegistry(client: EnergyApiClient): LoadControlRegistry {
  return clientScoped(client, REGISTRY, () => {
    const registry = new LoadControlRegistry();
    registry.setMaxListeners(0);
    return registry;
  });
}
