import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import {
  EnergyApiError, checkPlanCost, floorToBucket, formatTime, planLongRanges, planShortRanges,
  type Device, type EnergyApiClient, type EnergyEntry,
} from '../../api/index.js';
import { commonKey } from '../shared/i18n.js';
import { resolveTimezone } from '../shared/timezone.js';
import { FlowNodeRuntime, type InputContext } from '../shared/flow-node.js';
import { FollowStore, followKey, followWindow, isCompleteBucket, selectNew } from './follow.js';
import { chartSeries, seriesNames } from './outputs.js';
import { readChartOptions, type ChartDef } from './chart-settings.js';
import { inSlices } from './chunks.js';
import { maxRequestsOf } from '../shared/request-budget.js';
import { catchUpSeconds, readSettings, resolveRange, type EnergyQueryDef, type OutputFormat, type QueryMsg, type QuerySettings } from './query-settings.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { shortRetentionClip } from './clipped.js';
import { attachDailyCost } from '../shared/request-cost.js';
import { nodeClock } from '../shared/clock.js';

type QueryInMsg = NodeMessageInFlow & QueryMsg & Record<string, unknown>;

interface Resolved {
  deviceId: string;
  settings: QuerySettings;
  timezone?: string;
  device?: Device;
}

export = function (RED: NodeAPI): void {
  function EnergyQueryNode(this: Node, def: EnergyQueryDef & ChartDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const node = this;
    const runtime = new FlowNodeRuntime(RED, node, def);
    const output: OutputFormat = def.output === 'chart' || def.output === 'split' ? def.output : 'entries';
    const store = new FollowStore(node);
    // Follow triggers run one after another, so two overlapping triggers never emit the same entry.
    let followChain: Promise<unknown> = Promise.resolve();

    const nowS = (): number => Math.floor(runtime.now() / 1000);

    async function resolve(msg: QueryInMsg, client: EnergyApiClient, config: { timezone?: string }): Promise<Resolved> {
      const deviceId = runtime.deviceId(msg);
      const settings = readSettings(def, msg);
      // Chart options too are refused before any request.
      if (output === 'chart') readChartOptions(def, msg, settings.options.convert);
      // Bad time text and unaffordable ranges are refused before any request; the real reading needs the device's timezone.
      if (settings.query === 'range') {
        const { fromTs, toTs } = resolveRange(settings, settings.timezone, runtime.now());
        checkBudget({ settings }, fromTs, toTs);
      }
      const grouped = Boolean(settings.options.groupByPhase);
      const needsDevice = !settings.timezone || output === 'chart' || grouped;
      const device = needsDevice ? await client.knownDevice(deviceId, runtime.call) : undefined;
      // The service answers 422 when grouping is asked of a device without phase groups.
      if (grouped && (device?.phases?.count === null || device?.phases?.count === undefined || !device.phases.grouping?.length)) {
        throw EnergyApiError.invalid(`groupByPhase: device ${deviceId} has no phase grouping configured, so its energy cannot be grouped by phase`);
      }
      return { deviceId, settings, timezone: resolveTimezone(settings.timezone, device, config), device };
    }

    function requestCount(r: Resolved, fromTs: number, toTs: number): number | undefined {
      try {
        if (r.settings.kind === 'short') return planShortRanges(fromTs, toTs, nowS()).length;
        return planLongRanges(fromTs, toTs, r.settings.granularity ?? '5m', r.timezone, nowS()).length;
      } catch {
        return undefined;
      }
    }

    /** Refuses, before any planning or device read, a range that would cost more than the node's maxRequests. */
    function checkBudget(r: Pick<Resolved, 'settings'>, fromTs: number, toTs: number): void {
      checkPlanCost({ kind: r.settings.kind, granularity: r.settings.granularity, fromTs, toTs, nowS: nowS() }, maxRequestsOf(def));
    }

    function fetchRange(client: EnergyApiClient, r: Resolved, fromTs: number, toTs: number): Promise<EnergyEntry[]> {
      checkBudget(r, fromTs, toTs);
      const count = requestCount(r, fromTs, toTs);
      runtime.busy(count && count > 1 ? RED._('energy-query.status.requestingMany', { count }) : RED._(commonKey('status.requesting')));
      const { options, kind, granularity } = r.settings;
      const call = { ...runtime.call, maxRequests: maxRequestsOf(def) };
      if (kind === 'short') return client.getShortEnergy(r.deviceId, { fromTs, toTs, ...options }, call);
      return client.getLongEnergy(r.deviceId, { fromTs, toTs, granularity, timezone: r.timezone, ...options }, call);
    }

    function describe(msg: QueryInMsg, r: Resolved, fromTs: number | undefined, toTs: number | undefined): void {
      msg.deviceId = r.deviceId;
      msg.kind = r.settings.kind;
      msg.fromTs = fromTs;
      msg.toTs = toTs;
      if (r.settings.kind === 'long' && r.settings.granularity) msg.granularity = r.settings.granularity;
      else delete msg.granularity;
      msg.timezone = r.timezone ?? 'UTC';
    }

    async function emit(ctx: InputContext<QueryInMsg>, r: Resolved, entries: EnergyEntry[], single: boolean, follow: boolean): Promise<void> {
      const { msg, send } = ctx;
      const stopped = (): boolean => runtime.closed;
      if (output === 'split') {
        // Each entry's msg is a copy of the input without its payload (which may be large).
        const { payload: _payload, ...base } = msg;
        await inSlices(entries, (slice) => send([slice.map((entry) => splitMessage(base as QueryInMsg, r, entry))]), stopped, 50);
      } else if (output === 'chart') {
        const phase = RED._('energy-query.chart.phase');
        const grouped = Boolean(r.settings.options.groupByPhase);
        const options = readChartOptions(def, msg, r.settings.options.convert);
        const chart = await chartSeries(entries, r.settings.options.convert, (n) => seriesNames(r.device, n, grouped, phase), r.device, grouped, options);
        if (ctx.signal.aborted) return;
        msg.payload = chart.points;
        msg.action = follow ? 'append' : 'replace';
        // Dashboard 2 ui-chart: the unit on the y axis, one colour per category in the series' order, axis labels kept inside.
        msg.ui_update = { chartOptions: { color: chart.colours, yAxis: { name: chart.unit }, grid: { containLabel: true, bottom: 12 }, legend: { type: 'scroll', top: 22 } } };
        msg.unit = chart.unit;
        if (!follow || entries.length) send(msg);
      } else {
        msg.payload = single ? (entries[0] ?? null) : entries;
        if (!follow || entries.length) send(msg);
      }
      showResult(r, entries, follow);
    }

    function splitMessage(msg: QueryInMsg, r: Resolved, entry: EnergyEntry): NodeMessage {
      const out = RED.util.cloneMessage(msg) as QueryInMsg;
      out.payload = entry;
      out.timestamp = entry.timestamp * 1000;
      out.topic = r.deviceId;
      return out;
    }

    function showResult(r: Resolved, entries: EnergyEntry[], follow: boolean): void {
      const last = entries[entries.length - 1];
      if (!last) {
        runtime.status({ fill: 'yellow', shape: 'ring', text: RED._(follow ? 'energy-query.status.noNew' : commonKey('status.noData')) });
        return;
      }
      const at = formatTime(last.timestamp, r.timezone ?? 'UTC').slice(0, 16).replace('T', ' ');
      runtime.status({ fill: 'green', shape: 'dot', text: RED._('energy-query.status.entries', { count: entries.length, at }) });
    }

    async function runOnce(ctx: InputContext<QueryInMsg>, r: Resolved): Promise<void> {
      const { client, msg } = ctx;
      const { kind, query, options } = r.settings;
      if (query !== 'range') {
        runtime.busy(RED._(commonKey('status.requesting')));
        const entry = await client.getEnergyEdge(kind, r.deviceId, query, options, runtime.call);
        describe(msg, r, undefined, undefined);
        await emit(ctx, r, entry ? [entry] : [], true, false);
        return;
      }
      const { fromTs, toTs } = resolveRange(r.settings, r.timezone, runtime.now());
      const entries = await fetchRange(client, r, fromTs, toTs);
      describe(msg, r, fromTs, toTs);
      const clipped = kind === 'short' ? shortRetentionClip(fromTs, toTs, Math.floor(nodeClock(RED)() / 1000)) : undefined;
      if (clipped) msg.clipped = clipped;
      else delete msg.clipped;
      await emit(ctx, r, entries, false, false);
      if (clipped) {
        const from = formatTime(clipped.returned.fromTs, r.timezone ?? 'UTC').slice(0, 10);
        runtime.status({ fill: 'yellow', shape: 'dot', text: RED._('energy-query.status.clipped', { count: entries.length, from }) });
      }
    }

    async function runFollow(ctx: InputContext<QueryInMsg>, r: Resolved): Promise<void> {
      const catchUpS = catchUpSeconds(def);
      const { fromTs: startTs, toTs } = resolveRange(r.settings, r.timezone, runtime.now());
      const { kind, granularity } = r.settings;
      const key = followKey(r.deviceId, kind, granularity);
      const state = (await store.load(key)) ?? { startTs, emitted: [] };
      const window = followWindow(state, catchUpS);
      const zone = r.timezone ?? 'UTC';
      const fromTs = kind === 'long' && granularity ? floorToBucket(window.fromTs, granularity, zone) : window.fromTs;
      let entries = toTs > fromTs ? await fetchRange(ctx.client, r, fromTs, toTs) : [];
      if (kind === 'long' && granularity) entries = entries.filter((e) => isCompleteBucket(e, granularity, zone));
      const { fresh, next } = selectNew(entries, state, window, catchUpS);
      await store.save(key, next);
      describe(ctx.msg, r, fromTs, toTs);
      await emit(ctx, r, fresh, false, true);
    }

    runtime.onInput<QueryInMsg>(async (ctx) => {
      const r = await resolve(ctx.msg, ctx.client, ctx.config);
      if (!(def.follow && r.settings.query === 'range')) return runOnce(ctx, r);
      const run = followChain.then(() => runFollow(ctx, r));
      followChain = run.catch(() => undefined);
      return run;
    });
  }

  RED.nodes.registerType('energy-query', EnergyQueryNode);
};
