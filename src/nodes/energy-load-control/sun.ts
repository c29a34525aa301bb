import type { Node } from 'node-red';
import { MsgError } from '../../api/index.js';
import { readForecast, type SunInput } from '../../domain/planning/sun.js';

const KEY = 'energyLoadControlForecast';
/** A forecast this long past its end is dropped as it arrives. */
const KEEP_PAST_S = 86_400;
/** The last forecast per node id: Node-RED forgets the context on a redeploy without a context store. */
const survivors = new Map<string, SunInput>();

/** The load's solar forecast: the last msg.forecast (kept across restarts), which the plan's sun runs on. */
export class LoadSun {
  private sun?: SunInput;
  readonly ready: Promise<void>;

  constructor(private readonly node: Node, private readonly store: string | undefined) {
    this.ready = new Promise((resolve) => {
      node.context().get(KEY, store as string, (err: Error | undefined, value: unknown) => {
        const saved = !err && value && typeof value === 'object' && Array.isArray((value as SunInput).slots) ? (value as SunInput) : survivors.get(node.id);
        if (!this.sun) this.sun = saved;
        resolve();
      });
    });
  }

  get input(): SunInput | undefined {
    return this.sun;
  }

  /** msg.forecast for a node that may or may not plan: one without a run target says so. */
  static accept(sun: LoadSun | undefined, value: unknown, stale: unknown, nowS: number): void {
    if (!sun) throw new MsgError('msg.forecast arrived, but this node has no run target: set runFor or cheapBelow (surplus mode) or choose price mode');
    sun.receive(value, stale, nowS);
  }

  /** A new msg.forecast (unix s or ms); a bad one throws and the last good one stays. `stale`: msg.forecastStale. */
  receive(value: unknown, stale: unknown, nowS: number): void {
    const slots = readForecast(value).filter((s) => s.end > nowS - KEEP_PAST_S);
    const sun: SunInput = { slots, receivedS: nowS };
    if (stale === true) sun.stale = true;
    this.sun = sun;
    survivors.set(this.node.id, sun);
    this.node.context().set(KEY, sun, this.store as string, (err?: Error) => {
      if (err) this.node.warn(`energy-load-control: could not save its forecast: ${err.message}`);
    });
  }

  static forget(node: Node): void {
    survivors.delete(node.id);
  }
}
