import type { Node } from 'node-red';
import type { EnergyApiClient } from '../../api/index.js';
import { importHistory, type HistoryDevice, type HistoryOutcome } from '../../domain/site/ha-history-import.js';
import { HOUR_S } from '../../domain/site/ha-history.js';
import { connectHomeAssistant, HaError } from '../../ha/websocket.js';
import type { Now } from '../shared/clock.js';
import type { NodeCallOptions } from '../shared/flow-node.js';
import type { MqttNodeStatus } from './node-status.js';
import type { MqttSettings } from './settings.js';

const KEY = 'energyMqttHistory';
/**
 * After the first run, HA is looked at again this often (no request to the energy API unless hours are missing):
 * hours it had no row for (Node-RED or the device offline) are filled once HA has compiled an hour after them.
 */
export const HISTORY_RECHECK_MS = 3_600_000;

export interface HistoryHost {
  node: Node;
  store: string | undefined;
  client(): EnergyApiClient;
  call: NodeCallOptions;
  now: Now;
  settings: MqttSettings;
  token: string;
  status: MqttNodeStatus;
  devices(): HistoryDevice[];
  setTimer(fn: () => void, ms: number): NodeJS.Timeout;
  closed(): boolean;
}

/**
 * energy-mqtt's import of past energy into Home Assistant's long-term statistics: at the start (once the totals
 * are read), then every hour from where HA's own statistics were, and whenever a msg says "import history". One
 * run at a time; each remembers how far it got in the node's context (a restart goes on from there).
 */
export class HistoryRunner {
  private running?: Promise<HistoryOutcome>;
  /** Where the next scheduled run looks from (undefined: the whole range, as after a failure). */
  private nextFromS?: number;

  constructor(private readonly host: HistoryHost) {}

  /** Runs now (the whole range when `full`), joining a run in progress. Rejects with the run's error. */
  run(full = true): Promise<HistoryOutcome> {
    this.running ??= this.once(full).finally(() => { this.running = undefined; });
    return this.running;
  }

  /** The scheduled runs: now, then every hour; a failure shows (status, log) and the next run tries again. */
  schedule(): void {
    const tick = (): void => {
      if (this.host.closed()) return;
      this.run(this.nextFromS === undefined).catch(() => undefined).finally(() => {
        if (!this.host.closed()) this.host.setTimer(tick, HISTORY_RECHECK_MS);
      });
    };
    tick();
  }

  private async once(full: boolean): Promise<HistoryOutcome> {
    const { host } = this;
    const nowS = Math.floor(host.now() / 1000);
    const rangeFrom = nowS - host.settings.historyDays * 86400;
    const fromS = full || this.nextFromS === undefined ? rangeFrom : Math.max(rangeFrom, this.nextFromS);
    let ha;
    try {
      ha = await connectHomeAssistant(host.settings.haUrl, host.token, { signal: host.call.signal });
      const outcome = await importHistory({
        client: host.client(), call: host.call, nowMs: host.now, ha,
        loadResume: (id) => this.load(id),
        saveResume: (id, resume) => this.save(id, resume),
        progress: (p) => host.status.historyShow('status.historyProgress', p),
      }, host.devices(), fromS);
      const hours = Object.values(outcome.imported).reduce((a, b) => a + b, 0);
      const waiting = Object.keys(outcome.waiting).some((id) => !outcome.waiting[id].startsWith('disabled') && !outcome.waiting[id].startsWith('not in'));
      if (waiting && hours === 0) host.status.historyShow('status.historyWaiting');
      else host.status.historyShow('status.historyDone', { hours });
      // Hours after HA's newest row are HA's to compile; one hour earlier in case that hour was cut short.
      this.nextFromS = waiting || outcome.newestSeen === undefined ? undefined : outcome.newestSeen - HOUR_S;
      return outcome;
    } catch (err) {
      this.nextFromS = undefined;
      if (!(err instanceof HaError && err.code === 'aborted') && !host.closed()) host.status.historyFailed(err);
      throw err;
    } finally {
      ha?.close();
    }
  }

  private all(): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.host.node.context().get(KEY, this.host.store as string, (err: Error | undefined, value: unknown) => {
        resolve(!err && value && typeof value === 'object' ? (value as Record<string, unknown>) : {});
      });
    });
  }

  private async load(deviceId: string): Promise<unknown> {
    return (await this.all())[deviceId];
  }

  private async save(deviceId: string, resume: unknown): Promise<void> {
    const all = { ...(await this.all()) };
    if (resume === undefined) delete all[deviceId];
    else all[deviceId] = resume;
    await new Promise<void>((resolve) => {
      this.host.node.context().set(KEY, all, this.host.store as string, () => resolve());
    });
  }
}
