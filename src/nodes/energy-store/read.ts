import type { NodeMessage } from 'node-red';
import { MsgError, RECORD_S, checkDeviceId, floorToBucket, type Device, type EnergyEntry, type Granularity } from '../../api/index.js';
import { describeValue } from '../shared/msg-guard.js';
import { readSettings, resolveRange, OUTPUT_FORMATS, type EnergyQueryDef, type OutputFormat, type QueryMsg, type QuerySettings } from '../shared/query-settings.js';
import { readChartOptions } from '../../domain/entries/chart-settings.js';
import { ChartBuilder, seriesNames } from '../../domain/entries/outputs.js';
import { chartMessage, pageMessage, splitMessages, type BaseMessage } from '../shared/query-messages.js';
import { inSlices, nextTurn } from '../../domain/entries/chunks.js';
import { entriesFromRows, type EntryShape } from './assemble.js';
import { bucketsOf, nextBoundary } from './buckets.js';
import type { StoreBackend, StreamKey } from './backends/types.js';
import { stampedAt } from './backends/stamps.js';

/** What a read needs from the node. */
export interface ReadContext {
  msg: NodeMessage & Record<string, unknown>;
  backend: StoreBackend;
  /** The timezone energy-query named for the device when it wrote (msg.timezone overrides). */
  storedTimezone?: string;
  nowMs: number;
  clone: <T extends NodeMessage>(msg: T) => T;
  generateId: () => string;
  /** Sends on the read output: one msg or several. */
  send: (out: NodeMessage | NodeMessage[]) => void;
  stopped: () => boolean;
  phaseWord: string;
}

/** A read msg without overrides: long energy, 5-minute, the last 24 hours, as entries. */
const READ_DEFAULTS = { id: 'read', type: 'energy-store', z: '', name: '', api: '', kind: 'long', query: 'range', granularity: '5m', fromTs: '-24h', toTs: 'now' } as EnergyQueryDef;

/** Raw rows read per request, by stream: about a day or two of entries each. */
const WINDOW_S: Record<string, number> = { short: 6 * 3600, '5m': 86400, '15m': 7 * 86400, '30m': 14 * 86400, hour: 60 * 86400, day: 1100 * 86400, week: 3650 * 86400, month: 3650 * 86400 };
/** Periods summed per request when a coarser granularity is built from 5-minute rows. */
const BUCKETS_PER_READ = 200;

export interface ReadResult {
  count: number;
  last?: EnergyEntry;
  timezone: string;
}

/** Answers a read as energy-query answers the same query, from the store alone. */
export async function answerRead(ctx: ReadContext): Promise<ReadResult> {
  const { msg } = ctx;
  const settings = readSettings(READ_DEFAULTS, msg as QueryMsg);
  if (settings.options.groupByPhase) throw new MsgError('the store keeps channels, not phase groups: read without groupByPhase (or set msg.channels)');
  const output = outputOf(msg.output);
  const convert = settings.options.convert;
  if (output === 'chart') readChartOptions({}, msg, convert);
  const deviceId = deviceOf(msg);
  const channels = channelsOf(msg.channels);
  const timezone = settings.timezone ?? ctx.storedTimezone ?? 'UTC';
  const shape: EntryShape = { convert, powerFactor: settings.options.powerFactor, channels };
  const key: StreamKey = { device: deviceId, kind: settings.kind, granularity: settings.kind === 'short' ? '' : settings.granularity ?? '5m' };

  if (settings.query !== 'range') {
    const edgeKey = { ...key, granularity: settings.kind === 'short' ? '' : '5m' };
    const ts = await ctx.backend.edge(edgeKey, settings.query === 'first' ? 'first' : 'latest');
    const entries = ts === undefined ? [] : entriesFromRows(await ctx.backend.readRows({ ...edgeKey, ...stampedAt(edgeKey.kind, ts) }), shape);
    describe(msg, deviceId, settings, timezone, undefined, undefined);
    msg.payload = entries[0] ?? null;
    ctx.send(msg);
    return { count: entries.length, last: entries[0], timezone };
  }

  const { fromTs, toTs } = resolveRange(settings, timezone, ctx.nowMs);
  const { pages, source } = await planPages(ctx.backend, key, fromTs, toTs, timezone, shape);
  describe(msg, deviceId, settings, timezone, fromTs, toTs);
  // What the store holds of the stream it answered from: a flow can tell whether it covers the range (else ask the service).
  msg.stored = { fromTs: await ctx.backend.edge(source, 'first'), toTs: await ctx.backend.edge(source, 'latest') };
  const { payload: _payload, ...base } = msg as BaseMessage;
  const device = labelledDevice(msg.device, channels);
  const chart = output === 'chart' ? new ChartBuilder(convert, readChartOptions({}, msg, convert)) : undefined;
  const all: EnergyEntry[] = [];
  const id = ctx.generateId();
  let count = 0;
  let last: EnergyEntry | undefined;
  for (let index = 0; index < pages.length && !ctx.stopped(); index += 1) {
    const page = await pages[index]();
    await nextTurn();
    if (output === 'split') await inSlices(page, (slice) => ctx.send(splitMessages(ctx.clone, base, deviceId, slice)), ctx.stopped, 50);
    else if (output === 'pages') ctx.send(pageMessage(ctx.clone, base, deviceId, page, { id, index, count: pages.length }));
    else if (chart) chart.add(page);
    else for (const e of page) all.push(e);
    count += page.length;
    if (page.length) last = page[page.length - 1];
  }
  if (ctx.stopped()) return { count, last, timezone };
  if (chart) {
    const labels = (n: number): string[] => seriesNames(device, n, false, ctx.phaseWord);
    chartMessage(msg, await chart.finish(labels, device, false), false);
    ctx.send(msg);
  } else if (output === 'entries') {
    msg.payload = all;
    ctx.send(msg);
  }
  return { count, last, timezone };
}

type Page = () => Promise<EnergyEntry[]>;

/**
 * The reads that answer [fromTs, toTs): the stream's own rows when the store holds that granularity
 * (always for short and 5-minute energy), else its 5-minute rows summed per period in `timezone`.
 */
async function planPages(backend: StoreBackend, key: StreamKey, fromTs: number, toTs: number, timezone: string, shape: EntryShape): Promise<{ pages: Page[]; source: StreamKey }> {
  // Only the part of the range the stream holds rows in is read: windows wholly before its first row or after
  // its latest hold nothing (a range that ends in the year 275760 would otherwise be billions of windows).
  const ownFirst = await backend.edge(key, 'first');
  const own = key.kind === 'short' || key.granularity === '5m' || ownFirst !== undefined;
  if (own) {
    const latest = await backend.edge(key, 'latest');
    if (ownFirst === undefined || latest === undefined) return { pages: [], source: key };
    const step = WINDOW_S[key.kind === 'short' ? 'short' : key.granularity] ?? WINDOW_S['5m'];
    [fromTs, toTs] = wholeRecords(key, fromTs, toTs);
    const pages: Page[] = [];
    const end = Math.min(toTs, latest + 1);
    // Windows hold [lo, hi) of short energy and (lo, hi] of long energy (see stampBounds); the first holds ownFirst.
    for (let lo = fromTs + Math.max(0, Math.floor((ownFirst - 1 - fromTs) / step)) * step; lo < end; lo += step) {
      const hi = Math.min(lo + step, toTs);
      pages.push(async () => entriesFromRows(await backend.readRows({ ...key, fromTs: lo, toTs: hi }), shape));
    }
    return { pages, source: key };
  }
  const source = { ...key, granularity: '5m' };
  const [first, latest] = [await backend.edge(source, 'first'), await backend.edge(source, 'latest')];
  if (first === undefined || latest === undefined) return { pages: [], source };
  // From the period of the first 5-minute row to that of the latest (a row stamped t is in the period (lo, hi] holding t).
  const granularity = key.granularity as Granularity;
  const from = Math.max(fromTs, floorToBucket(first - 1, granularity, timezone));
  const to = Math.min(toTs, nextBoundary(floorToBucket(latest - 1, granularity, timezone), granularity, timezone));
  const buckets = from < to ? bucketsOf(from, to, granularity, timezone) : [];
  const pages: Page[] = [];
  for (let start = 0; start < buckets.length; start += BUCKETS_PER_READ) {
    const chunk = buckets.slice(start, start + BUCKETS_PER_READ);
    pages.push(async () => entriesFromRows(await backend.readBuckets(source, chunk), shape));
  }
  return { pages, source };
}

/**
 * The range a long read answers, in whole 5-minute records as energy-query reads them: only periods
 * that lie inside [fromTs, toTs). Short energy is read by stamp, as asked.
 */
function wholeRecords(key: StreamKey, fromTs: number, toTs: number): [number, number] {
  if (key.kind === 'short') return [fromTs, toTs];
  return [Math.ceil(fromTs / RECORD_S) * RECORD_S, Math.max(Math.ceil(fromTs / RECORD_S), Math.floor(toTs / RECORD_S)) * RECORD_S];
}

function describe(msg: Record<string, unknown>, deviceId: string, s: QuerySettings, timezone: string, fromTs: number | undefined, toTs: number | undefined): void {
  msg.deviceId = deviceId;
  msg.kind = s.kind;
  msg.fromTs = fromTs;
  msg.toTs = toTs;
  if (s.kind === 'long' && s.granularity) msg.granularity = s.granularity;
  else delete msg.granularity;
  msg.timezone = timezone;
}

function outputOf(value: unknown): OutputFormat {
  if (value === undefined || value === null || value === '') return 'entries';
  if (typeof value === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new MsgError(`msg.output must be one of ${OUTPUT_FORMATS.join(', ')}; got ${describeValue(value)}`);
}

function deviceOf(msg: Record<string, unknown>): string {
  if (typeof msg.deviceId !== 'string' || !msg.deviceId) throw new MsgError(`msg.deviceId must name the device to read; got ${describeValue(msg.deviceId)}`);
  return checkDeviceId(msg.deviceId);
}

/** msg.channels: [1, 3], "1,3", "C1, C3" or "D630000000002_C1": 1-based channel numbers. */
export function channelsOf(value: unknown): number[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || items.length > 64) throw new MsgError(`msg.channels must list channel numbers such as [1, 3] or "C1,C3"; got ${describeValue(value)}`);
  return items.map((item) => {
    const m = /^\s*(?:[BDEF][A-Za-z0-9]{12}_)?C?(\d{1,2})\s*$/i.exec(String(item));
    const n = m ? Number(m[1]) : NaN;
    if (!(n >= 1)) throw new MsgError(`msg.channels: "${String(item).slice(0, 30)}" is not a channel (1, 2, … or C1, C2, …)`);
    return n;
  });
}

/** msg.device (as energy-device-status sends it) names the chart's series; with msg.channels, only those. */
function labelledDevice(value: unknown, channels: number[] | undefined): Device | undefined {
  if (!value || typeof value !== 'object' || !Array.isArray((value as Device).channels)) return undefined;
  const device = value as Device;
  if (!channels) return device;
  return { ...device, channels: channels.map((c) => device.channels?.[c - 1] ?? { id: `C${c}` }) } as Device;
}
