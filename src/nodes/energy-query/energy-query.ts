import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import {
  EnergyApiError, checkPlanCost, floorToBucket, formatTime, planLongRanges, planShortRanges,
  type Device, type EnergyApiClient, type EnergyEntry, type RangePages,
} from '../../api/index.js';
import { commonKey } from '../shared/i18n.js';
import { resolveTimezone } from '../shared/timezone.js';
import { FlowNodeRuntime, type InputContext } from '../shared/flow-node.js';
import { FollowQueue, FollowStore, followKey, followWindow, isCompleteBucket, selectNew } from './follow.js';
import { ChartBuilder, chartSeries, seriesNames, type ChartSeries } from '../../domain/entries/outputs.js';
import { readChartOptions, xAxisNote, type ChartDef } from '../../domain/entries/chart-settings.js';
import { inSlices, nextTurn } from '../../domain/entries/chunks.js';
import { chartMessage, pageMessage, splitMessages } from '../shared/query-messages.js';
import { chartPlacement, readPeriod, shiftOf } from '../../domain/entries/periods.js';
import { maxRequestsOf } from '../shared/request-budget.js';
import { OUTPUT_FORMATS, catchUpSeconds, readSettings, resolveRange, type EnergyQueryDef, type OutputFormat, type QueryMsg, type QuerySettings } from '../shared/query-settings.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { migrations } from './migrations.js';
import { shortRetentionClip } from './clipped.js';
import { attachDailyCost } from '../shared/request-cost.js';
import './request-cost.js';
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
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)(), devicesPerTrigger: runtime.devicesPerTrigger() }));
    const node = this;
    const runtime = new FlowNodeRuntime(RED, node, def);
    const output: OutputFormat = OUTPUT_FORMATS.includes(def.output as OutputFormat) ? (def.output as OutputFormat) : 'entries';
    const store = new FollowStore(node);
    const follows = new FollowQueue();

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

    /** The range's pages as they arrive (the one way this node reads a range). */
    function readRange(client: EnergyApiClient, r: Resolved, fromTs: number, toTs: number): RangePages<EnergyEntry> {
      checkBudget(r, fromTs, toTs);
      const count = requestCount(r, fromTs, toTs);
      runtime.busy(count && count > 1 ? RED._('energy-query.status.requestingMany', { count }) : RED._(commonKey('status.requesting')));
      const { options, kind, granularity } = r.settings;
      const call = { ...runtime.call, maxRequests: maxRequestsOf(def) };
      if (kind === 'short') return client.readPages('short', r.deviceId, { fromTs, toTs, ...options }, call);
      return client.readPages('long', r.deviceId, { fromTs, toTs, granularity, timezone: r.timezone, ...options }, call);
    }

    function fetchRange(client: EnergyApiClient, r: Resolved, fromTs: number, toTs: number): Promise<EnergyEntry[]> {
      return readRange(client, r, fromTs, toTs).collect();
    }

    /**
     * Chart, split and pages outputs of a range: each page is used as it arrives and dropped, so a
     * year never sits in memory as entries. Returns how many entries were delivered and the last one.
     */
    async function streamRange(ctx: InputContext<QueryInMsg>, r: Resolved, fromTs: number, toTs: number): Promise<{ count: number; last?: EnergyEntry }> {
      const { msg, send } = ctx;
      const stopped = (): boolean => runtime.closed;
      const convert = r.settings.options.convert;
      const chart = output === 'chart' ? new ChartBuilder(convert, readChartOptions(def, msg, convert), placement(r)) : undefined;
      const { payload: _payload, ...base } = msg;
      const pages = readRange(ctx.client, r, fromTs, toTs);
      const partsId = RED.util.generateId();
      let count = 0;
      let index = 0;
      let last: EnergyEntry | undefined;
      for await (const page of pages) {
        // A page already waiting resolves without a turn of the event loop: give one per page.
        await nextTurn();
        if (stopped()) break;
        // What the entries cover is known for sure once the service has answered.
        setPeriod(base, ctx.client, r, fromTs, toTs);
        if (output === 'split') {
          await inSlices(page, (slice) => send([splitMessages(RED.util.cloneMessage, base, r.deviceId, slice)]), stopped, 50);
        } else if (output === 'pages') {
          send(pageMessage(RED.util.cloneMessage, base, r.deviceId, page, { id: partsId, index, count: pages.requests }));
        } else {
          chart?.add(page);
        }
        index += 1;
        count += page.length;
        if (page.length) last = page[page.length - 1];
      }
      if (chart && !stopped()) {
        setPeriod(msg, ctx.client, r, fromTs, toTs);
        sendChart(ctx, r, await chart.finish(chartLabels(r), r.device, Boolean(r.settings.options.groupByPhase)), false, count > 0);
      }
      return { count, last };
    }

    function placement(r: Resolved): ReturnType<typeof chartPlacement> {
      return chartPlacement(r.settings.kind, r.settings.granularity, r.timezone ?? 'UTC');
    }

    /** msg.period: the span a long range read covers, under the reading the client knows of the service. */
    function setPeriod(target: Record<string, unknown>, client: EnergyApiClient, r: Resolved, fromTs: number, toTs: number): void {
      const period = readPeriod(r.settings.kind, r.settings.granularity, fromTs, toTs, client.longWindow());
      if (period) target.period = period;
      else delete target.period;
    }

    function chartLabels(r: Resolved): (count: number) => string[] {
      const phase = RED._('energy-query.chart.phase');
      return (n) => seriesNames(r.device, n, Boolean(r.settings.options.groupByPhase), phase);
    }

    function sendChart(ctx: InputContext<QueryInMsg>, r: Resolved, chart: ChartSeries, follow: boolean, anyEntries: boolean): void {
      const { msg, send } = ctx;
      if (ctx.signal.aborted) return;
      // The live service's coarse buckets cover their periods 5 minutes early: the axis says so.
      const shifted = shiftOf(r.settings.kind, r.settings.granularity, ctx.client.longWindow());
      chartMessage(msg, chart, follow, shifted ? { xAxis: xAxisNote(RED._('energy-query.chart.shifted', { period: RED._(`energy-query.chart.periods.${r.settings.granularity}`) })) } : {});
      if (!follow || anyEntries) send(msg);
    }

    function describe(msg: QueryInMsg, r: Resolved, fromTs: number | undefined, toTs: number | undefined): void {
      msg.deviceId = r.deviceId;
      msg.kind = r.settings.kind;
      msg.fromTs = fromTs;
      msg.toTs = toTs;
      if (r.settings.kind === 'long' && r.settings.granularity) msg.granularity = r.settings.granularity;
      else delete msg.granularity;
      msg.timezone = r.timezone ?? 'UTC';
      // Set by a range read once the service has answered (setPeriod); never one that came in.
      delete msg.period;
    }

    async function emit(ctx: InputContext<QueryInMsg>, r: Resolved, entries: EnergyEntry[], single: boolean, follow: boolean): Promise<void> {
      const { msg, send } = ctx;
      const stopped = (): boolean => runtime.closed;
      if (output === 'split') {
        // Each entry's msg is a copy of the input without its payload (which may be large).
        const { payload: _payload, ...base } = msg;
        await inSlices(entries, (slice) => send([splitMessages(RED.util.cloneMessage, base, r.deviceId, slice)]), stopped, 50);
      } else if (output === 'chart') {
        const options = readChartOptions(def, msg, r.settings.options.convert);
        const chart = await chartSeries(entries, r.settings.options.convert, chartLabels(r), r.device, Boolean(r.settings.options.groupByPhase), options, placement(r));
        sendChart(ctx, r, chart, follow, entries.length > 0);
      } else if (output === 'pages') {
        // Edges and follow reads are small: all of them on one page.
        const { payload: _payload, ...base } = msg;
        if (!follow || entries.length) send(pageMessage(RED.util.cloneMessage, base, r.deviceId, entries, { id: RED.util.generateId(), index: 0, count: 1 }));
      } else {
        msg.payload = single ? (entries[0] ?? null) : entries;
        if (!follow || entries.length) send(msg);
      }
      showResult(r, entries.length, entries[entries.length - 1], follow);
    }

    function showResult(r: Resolved, count: number, last: EnergyEntry | undefined, follow: boolean): void {
      if (!last) {
        runtime.status({ fill: 'yellow', shape: 'ring', text: RED._(follow ? 'energy-query.status.noNew' : commonKey('status.noData')) });
        return;
      }
      const at = formatTime(last.timestamp, r.timezone ?? 'UTC').slice(0, 16).replace('T', ' ');
      runtime.status({ fill: 'green', shape: 'dot', text: RED._('energy-query.status.entries', { count, at }) });
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
      const clipped = kind === 'short' ? shortRetentionClip(fromTs, toTs, Math.floor(nodeClock(RED)() / 1000)) : undefined;
      const describeRead = (): void => {
        describe(msg, r, fromTs, toTs);
        if (clipped) msg.clipped = clipped;
        else delete msg.clipped;
      };
      let count: number;
      if (output === 'entries') {
        // The raw entries output is one msg holding the whole array, by its contract.
        const entries = await fetchRange(client, r, fromTs, toTs);
        describeRead();
        setPeriod(msg, client, r, fromTs, toTs);
        await emit(ctx, r, entries, false, false);
        count = entries.length;
      } else {
        describeRead();
        const streamed = await streamRange(ctx, r, fromTs, toTs);
        showResult(r, streamed.count, streamed.last, false);
        count = streamed.count;
      }
      if (clipped) {
        const from = formatTime(clipped.returned.fromTs, r.timezone ?? 'UTC').slice(0, 10);
        runtime.status({ fill: 'yellow', shape: 'dot', text: RED._('energy-query.status.clipped', { count, from }) });
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
      if (kind === 'long' && granularity) {
        const shiftS = shiftOf(kind, granularity, ctx.client.longWindow());
        entries = entries.filter((e) => isCompleteBucket(e, granularity, zone, shiftS));
      }
      const { fresh, next } = selectNew(entries, state, window, catchUpS);
      await store.save(key, next);
      // Follow emits what is new, possibly with gaps, and no msg.period: each entry says what it covers.
      describe(ctx.msg, r, fromTs, toTs);
      await emit(ctx, r, fresh, false, true);
    }

    runtime.onInput<QueryInMsg>(async (ctx) => {
      const r = await resolve(ctx.msg, ctx.client, ctx.config);
      if (!(def.follow && r.settings.query === 'range')) return runOnce(ctx, r);
      return follows.run(followKey(r.deviceId, r.settings.kind, r.settings.granularity), () => runFollow(ctx, r));
    });
  }

  RED.nodes.registerType('energy-query', EnergyQueryNode);
};
