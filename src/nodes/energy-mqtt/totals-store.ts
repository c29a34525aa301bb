import type { Node } from 'node-red';
import { checkTotals, type TotalsState } from './totals.js';

const KEY = 'energyMqttTotals';
/**
 * Node-RED's memory context forgets a node's context when the node closes, so a redeploy would restart
 * the totals: the process keeps its own copy per node id as well (as energy-load-control does).
 */
const survivors = new Map<string, Record<string, TotalsState>>();

/**
 * The energy totals of every device of one node, in its context: the store given (the first persistent
 * one) survives a restart of Node-RED; without one, only redeploys.
 */
export class TotalsStore {
  private all: Record<string, TotalsState> = {};
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly node: Node, private readonly store: string | undefined) {}

  /** Reads what the context holds (once, before any device counts). */
  load(): Promise<void> {
    return new Promise((resolve) => {
      this.node.context().get(KEY, this.store as string, (err: Error | undefined, value: unknown) => {
        const saved = !err && value && typeof value === 'object' ? (value as Record<string, unknown>) : survivors.get(this.node.id) ?? {};
        for (const [deviceId, state] of Object.entries(saved)) {
          const checked = checkTotals(state);
          if (checked) this.all[deviceId] = checked;
        }
        resolve();
      });
    });
  }

  get(deviceId: string): TotalsState | undefined {
    return this.all[deviceId];
  }

  /** Keeps the device's new state; resolves once the context store has it. */
  set(deviceId: string, state: TotalsState): Promise<void> {
    this.all = { ...this.all, [deviceId]: state };
    survivors.set(this.node.id, this.all);
    const snapshot = this.all;
    this.saving = this.saving.then(() => new Promise<void>((resolve) => {
      this.node.context().set(KEY, snapshot, this.store as string, (err?: Error) => {
        if (err) this.node.warn(`energy-mqtt: could not save the energy totals: ${err.message}`);
        resolve();
      });
    }));
    return this.saving;
  }

  /** The node was deleted from the flows: its totals go with it. */
  forget(): void {
    survivors.delete(this.node.id);
  }
}
