import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import { DateTime } from 'luxon';
import { OutsideServiceError } from '../../api/outside-errors.js';
import type { OutsideLimiter } from '../../api/outside-limits.js';
import type { Lease } from '../../api/shared-resources.js';
import { ForecastSession, type ForecastOutput } from '../../domain/forecast/session.js';
import { acquireForecastLimiter, fetchForecast, SOURCE_NAMES } from '../../domain/forecast/sources.js';
import { shortReason, toError, errorDetails } from '../shared/errors.js';
import { FlowNodeRuntime, isAborted, type FlowNodeDef } from '../shared/flow-node.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { attachDailyCost } from '../shared/request-cost.js';
import { nodeClock } from '../shared/clock.js';
import { forecastMessage, type ForecastFreshness } from './messages.js';
import { migrations } from './migrations.js';
import { parseSettings, type EnergyForecastDef, type ForecastSettings } from './settings.js';
import { KeptWriter, keptFile, readKept, userDirOf } from './store.js';
import './request-cost.js';

type ForecastNode = Node & { credentials?: { apiKey?: string } };

export = function (RED: NodeAPI): void {
  function EnergyForecastNode(this: ForecastNode, def: EnergyForecastDef & FlowNodeDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    attachDailyCost(RED, this, def, () => ({ nowMs: nodeClock(RED)() }));
    const node = this;
    const words = (key: string, values?: Record<string, string>): string => RED._(`energy-forecast.status.${key}`, values);
    let session: ForecastSession | undefined;
    let lastFailure: string | undefined;
    const lastGoodStatus = (reason: string): NodeStatus => {
      const at = session?.lastIssuedAt;
      const text = at === undefined ? reason : `${reason} · ${words('lastGood', { at: DateTime.fromSeconds(at, { zone: settings?.timezone ?? 'UTC' }).toFormat('dd LLL HH:mm') })}`;
      return { fill: 'red', shape: 'ring', text };
    };
    let settings: ForecastSettings | undefined;
    const rt = new FlowNodeRuntime(RED, node, def, { api: def.calibrate === true, errorStatus: (err) => lastGoodStatus(shortReason(err)) });
    try {
      settings = parseSettings(def, node.credentials?.apiKey);
    } catch (err) {
      rt.error(err);
      node.error(toError(err).message);
      rt.onMessage(async () => { throw err; });
      return;
    }
    const s: ForecastSettings = settings;
    const writer = new KeptWriter(keptFile(userDirOf(RED.settings as unknown as { userDir?: unknown }), node.id), (err) => node.warn(`the forecast could not be kept on disk: ${toError(err).message}`));
    const ready = readKept(keptFile(userDirOf(RED.settings as unknown as { userDir?: unknown }), node.id)).then((kept) => {
      session = new ForecastSession({ source: s.source.source, timezone: s.timezone, calibrationDays: s.calibration?.days }, kept);
    });
    let lastFetchMs: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let limiter: Lease<OutsideLimiter> | undefined;
    rt.onClose(async () => {
      await limiter?.release();
      await writer.settled();
    });
    node.on('close', (removed: boolean, done: () => void) => {
      if (removed) void writer.remove().finally(done);
      else done();
    });

    const nowS = (): number => Math.floor(rt.now() / 1000);

    function show(out: ForecastOutput, freshness: ForecastFreshness, problem?: unknown): void {
      if (freshness === 'last good') return rt.status(lastGoodStatus(problem === undefined ? words('kept') : shortReason(problem)));
      const parts = [words('energy', { today: out.todayKwh.toFixed(1), tomorrow: out.tomorrowKwh.toFixed(1) })];
      const c = out.calibration;
      const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
      if (c?.after) {
        parts.push(words(c.applied ? 'calibrated' : 'notApplied', {
          before: c.before.maeKwh.toFixed(1), after: c.after.maeKwh.toFixed(1), biasBefore: signed(c.before.biasKwh), biasAfter: signed(c.after.biasKwh), days: String(c.days),
        }));
      }
      else if (c) parts.push(words('calibrating', { days: String(c.days) }));
      if (out.gaps > 0) parts.push(words('gaps', { gaps: String(out.gaps) }));
      rt.status({ fill: 'green', shape: 'dot', text: parts.join(' · ') });
    }

    /** The forecast msg, if there is a forecast to send. */
    function message(freshness: ForecastFreshness, base?: Record<string, unknown>, problem?: unknown): Record<string, unknown> | undefined {
      const out = session?.output(nowS());
      if (!out) return undefined;
      show(out, freshness, problem);
      return forecastMessage(out, s.source.source, freshness, base, problem === undefined ? undefined : toError(problem).message);
    }

    /** Reads the solar channel's last whole days (one request) when due; a failure is warned, never stops the forecast. */
    async function calibrate(): Promise<void> {
      const c = s.calibration;
      const range = c ? session?.actualsDue(nowS()) : undefined;
      if (!c || !range || !session) return;
      try {
        const entries = await rt.client().getLongEnergy(c.deviceId, { ...range, granularity: '5m' }, rt.call);
        session.acceptActuals(entries, c.channel, range);
      } catch (err) {
        if (rt.closed || isAborted(err)) return;
        node.warn(`calibration could not read the solar channel: ${toError(err).message}`);
      }
    }

    /** Asks the source (unless it was asked moments ago) and calibrates when due. Throws what the source did. */
    async function refresh(force: boolean): Promise<void> {
      await ready;
      const nowMs = rt.now();
      const recent = lastFetchMs !== undefined && nowMs - lastFetchMs < s.refreshGapMin * 60_000 && lastFailure === undefined;
      if (!force && recent && session?.hasForecast) return;
      lastFetchMs = nowMs;
      try {
        limiter ??= acquireForecastLimiter(s.source, rt.now);
        const read = await fetchForecast(s.source, { limiter: limiter.value, signal: rt.signal });
        session?.accept(read, Math.floor(nowMs / 1000));
        lastFailure = undefined;
      } catch (err) {
        lastFailure = toError(err).message;
        throw err;
      } finally {
        if (!rt.closed) {
          await calibrate();
          if (session) void writer.write(session.kept());
        }
      }
    }

    async function poll(): Promise<void> {
      if (rt.closed) return;
      try {
        await refresh(true);
        const msg = message('live');
        if (msg) node.send(msg);
      } catch (err) {
        if (rt.closed || isAborted(err)) return;
        const msg = message('last good', undefined, err);
        if (msg) node.send(msg);
        else rt.status(lastGoodStatus(shortReason(err)));
        // A Catch node sees it with the details (never the key).
        node.error(toError(err).message, { topic: 'forecast', forecastSource: msg ? 'last good' : 'none', apiError: errorDetails(err) } as unknown as NodeMessageInFlow);
      }
    }

    function schedule(): void {
      rt.clearTimer(timer);
      const nowMs = rt.now();
      const at = Math.max(nowMs + 1000, (lastFetchMs ?? nowMs) + s.intervalMin * 60_000);
      timer = rt.setTimer(() => {
        // On a clock that is not the wall clock (tests, accelerated runs) the timer may fire early: wait on.
        if (rt.now() + 500 < at) return schedule();
        void poll().finally(() => { if (!rt.closed) schedule(); });
      }, at - nowMs);
    }

    rt.onMessage(async ({ msg, send }) => {
      try {
        await refresh(false);
      } catch (err) {
        if (rt.closed) throw err;
        // The last good forecast goes on (marked), and the msg's error reaches a Catch node.
        const kept = message('last good', undefined, err);
        if (kept) send(kept as NodeMessageInFlow);
        throw err;
      } finally {
        if (!rt.closed) schedule();
      }
      const out = message('live', msg as unknown as Record<string, unknown>);
      if (!out) throw new OutsideServiceError({ provider: SOURCE_NAMES[s.source.source], code: 'BAD_RESPONSE', message: `${SOURCE_NAMES[s.source.source]} has given no forecast yet` });
      send(out as NodeMessageInFlow);
    });

    // At deploy: the kept forecast at once. Fetched within the polling interval, it is the current one and the next
    // poll waits for its turn (a redeploy costs no request: Solcast allows 10 a day); older, it is sent marked last good
    // and the source is asked now.
    void ready.then(() => {
      if (rt.closed) return;
      const issuedAt = session?.lastIssuedAt;
      const current = issuedAt !== undefined && rt.now() - issuedAt * 1000 < s.intervalMin * 60_000;
      const kept = message(current ? 'live' : 'last good', undefined, undefined);
      if (kept) node.send(kept);
      else rt.status({ fill: 'grey', shape: 'ring', text: words('waiting') });
      if (current) {
        lastFetchMs = (issuedAt as number) * 1000;
        return schedule();
      }
      timer = rt.setTimer(() => void poll().finally(() => { if (!rt.closed) schedule(); }), 200);
    });
  }

  RED.nodes.registerType('energy-forecast', EnergyForecastNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { apiKey: { type: 'password' } },
  } as unknown as Parameters<NodeAPI['nodes']['registerType']>[2]);
};
