import path from 'node:path';
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { ConfigError, isValidTimezone } from '../../api/index.js';
import { errorDetails, toError } from '../shared/errors.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { batchOf, type EntriesMsg } from './batch.js';
import { DiskQueue, mb } from './queue.js';
import { Watermarks } from './watermarks.js';
import { EnergyStore, type Health } from './store.js';
import { answerRead } from './read.js';
import { resumeFrom } from './resume.js';
import { queueFigures, shortText, statusOf } from './status.js';
import { sharedBackend } from './shared-backend.js';
import { QUEUE_WARN_SHARE, backendId, backendOf, readStoreSettings, userDirOf, type EnergyStoreDef, type StoreCredentials, type StoreSettings } from './settings.js';

type StoreMsg = NodeMessageInFlow & EntriesMsg & Record<string, unknown>;
type Send = (msg: Array<NodeMessage | NodeMessage[] | null>) => void;

export = function (RED: NodeAPI): void {
  function EnergyStoreNode(this: Node<StoreCredentials>, def: EnergyStoreDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    const node = this;
    const runtime = new FlowNodeRuntime(RED, node, def as unknown as FlowNodeDef, {
      api: false,
      // A database's refusal is already in the status with the queue beside it; a bad msg is shown here.
      errorStatus: (err) => (/^STORE_(REFUSED|UNREACHABLE)$/.test(String((err as { code?: unknown }).code)) ? undefined : { fill: 'red', shape: 'ring', text: shortText(err) }),
    });
    const now = runtime.now;
    const userDir = userDirOf(RED.settings as { userDir?: unknown });
    let settings: StoreSettings | undefined;
    let problem: Error | undefined;
    try {
      settings = readStoreSettings(def, userDir);
    } catch (err) {
      problem = toError(err);
    }
    const inflight = new Set<Promise<unknown>>();
    let warnedFull = false;
    let warnedAway = false;

    const show = (health: Health): void => {
      if (runtime.closed || !settings) return;
      runtime.status(statusOf(health, now(), settings.queueLimitBytes, (key, values) => RED._(key, values), undefined));
      const q = queueFigures(health, now(), settings.queueLimitBytes);
      if (q.full >= QUEUE_WARN_SHARE && !warnedFull) node.warn(RED._('energy-store.warn.queueFull', { percent: Math.round(q.full * 100), mb: mb(settings.queueLimitBytes) }));
      warnedFull = q.full >= QUEUE_WARN_SHARE;
      if (health.state === 'unreachable' && !warnedAway) node.warn(RED._('energy-store.warn.unreachable', { reason: health.error?.message ?? '' }));
      if (health.state === 'ok' && warnedAway) node.log(RED._('energy-store.warn.back'));
      warnedAway = health.state === 'unreachable' || (warnedAway && health.state !== 'ok');
    };

    const store = settings ? new EnergyStore(
      sharedBackend(backendId(def, node.credentials ?? {}, userDir), () => backendOf(def, node.credentials ?? {}, userDir)),
      new DiskQueue(path.join(settings.dataDir, 'queue'), settings.queueLimitBytes),
      new Watermarks(path.join(settings.dataDir, 'watermarks.json')),
      now,
      settings.retentionDays,
      {
        changed: show,
        replayRefused: (err, batches) => {
          const entries = batches.reduce((n, b) => n + b.entries, 0);
          node.error(err, { topic: 'queue', payload: { batches: batches.length, entries }, apiError: errorDetails(err) } as NodeMessage);
        },
      },
    ) : undefined;
    if (problem) runtime.status({ fill: 'red', shape: 'ring', text: shortText(problem) });
    const started = store?.start().catch((err: unknown) => {
      problem = toError(err);
      runtime.status({ fill: 'red', shape: 'ring', text: shortText(problem) });
    });

    /** `onDisk`: called once the msg's entries are in the disk queue (or it holds none). */
    async function handle(msg: StoreMsg, send: Send, onDisk: () => void): Promise<void> {
      await started;
      if (!store || !settings || problem) throw problem ?? new ConfigError('the store is not configured');
      if (msg.topic === 'read') {
        const result = await answerRead({
          msg, backend: await store.ready(), storedTimezone: typeof msg.deviceId === 'string' ? store.timezoneOf(msg.deviceId) : undefined,
          nowMs: now(), clone: RED.util.cloneMessage, generateId: RED.util.generateId, stopped: () => runtime.closed,
          send: (out) => send([null, out, null]), phaseWord: RED._('energy-store.chart.phase'),
        });
        runtime.status({ fill: 'green', shape: 'dot', text: RED._('energy-store.status.read', { count: result.count }) });
        return;
      }
      if (msg.topic === 'resume') {
        resumeFrom(msg, await store.watermarks(), Math.floor(now() / 1000));
        send([null, null, msg]);
        return;
      }
      const timezone = typeof msg.timezone === 'string' && isValidTimezone(msg.timezone) ? msg.timezone : undefined;
      const batch = await batchOf(msg);
      const queued = batch.rows.length ? await store.enqueue(batch, timezone) : undefined;
      onDisk();
      const outcome = queued ? await queued.outcome : { state: 'written' as const, rows: 0, changed: 0 };
      const queue = queueFigures(store.current(), now(), settings.queueLimitBytes);
      msg.payload = {
        deviceId: batch.device, kind: batch.kind, granularity: batch.granularity || undefined, entries: batch.entries, rows: batch.rows.length,
        state: outcome.state, changed: outcome.state === 'written' ? outcome.changed : undefined, newest: batch.newest || undefined, held: heldOf(batch),
        backend: settings.backend, target: settings.target, queue,
      };
      send([msg, null, null]);
    }

    /** What a flow may read back of the batch's stream instead of asking the service (retention cuts the start). */
    function heldOf(batch: { device: string; kind: 'short' | 'long'; granularity: string }): { fromTs?: number; toTs?: number } {
      const held = store?.held(batch) ?? {};
      const keptFrom = settings?.retentionDays ? Math.floor(now() / 1000) - settings.retentionDays * 86400 : undefined;
      return { fromTs: held.fromTs !== undefined && keptFrom !== undefined ? Math.max(held.fromTs, keptFrom) : held.fromTs, toTs: held.toTs };
    }

    runtime.onMessage<StoreMsg>(async ({ msg, send }) => {
      // Until its entries are on disk a msg holds up close: a redeploy never drops what the node has taken.
      let onDisk = (): void => undefined;
      const taken = new Promise<void>((resolve) => { onDisk = resolve; });
      inflight.add(taken);
      void taken.then(() => inflight.delete(taken));
      try {
        // Nothing goes out after close (the runtime's send drops it): what a stopped node had queued is written at the next start.
        await handle(msg, send as Send, onDisk);
      } catch (err) {
        if (!runtime.closed) throw err;
      } finally {
        onDisk();
      }
    });
    runtime.onClose(async () => {
      await Promise.allSettled([...inflight]);
      await store?.close().catch(() => undefined);
    });
  }

  RED.nodes.registerType('energy-store', EnergyStoreNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { user: { type: 'text' }, password: { type: 'password' }, token: { type: 'password' } },
  });
};
