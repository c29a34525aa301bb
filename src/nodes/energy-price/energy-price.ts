import { MsgError } from '../../api/index.js';
import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import { DateTime } from 'luxon';
import { readPrices, type PriceList } from '../../domain/pricing/normalise.js';
import type { Lease } from '../../api/index.js';
import type { AmberClient } from '../../prices/amber-client.js';
import { acquireAmberClient } from '../../prices/amber-registry.js';
import { toError } from '../shared/errors.js';
import { FlowNodeRuntime, type FlowNodeDef } from '../shared/flow-node.js';
import { upgradeSavedConfig } from '../shared/migrations.js';
import { pricesInMessage, priceMessage } from './messages.js';
import { migrations } from './migrations.js';
import { MIN_POLL_GAP_MS, nextPollAt } from './schedule.js';
import { parseSettings, type EnergyPriceDef, type PriceSettings } from './settings.js';

type PriceNode = Node & { credentials?: { apiKey?: string } };

export = function (RED: NodeAPI): void {
  function EnergyPriceNode(this: PriceNode, def: EnergyPriceDef & FlowNodeDef): void {
    RED.nodes.createNode(this, def);
    def = upgradeSavedConfig(this, def, migrations);
    const node = this;
    const rt = new FlowNodeRuntime(RED, node, def, { api: false });
    const words = (key: string, values?: Record<string, string>): string => RED._(`energy-price.status.${key}`, values);
    let settings: PriceSettings;
    try {
      settings = parseSettings(def);
    } catch (err) {
      rt.error(err);
      node.error(toError(err).message);
      rt.onMessage(async () => { throw err; });
      return;
    }
    let lease: Lease<AmberClient> | undefined;
    let last: { at: number; list: PriceList } | undefined;
    let sentText: string | undefined;
    let timer: NodeJS.Timeout | undefined;

    const amber = (): AmberClient => {
      lease ??= acquireAmberClient({ baseUrl: settings.baseUrl, apiKey: node.credentials?.apiKey ?? '', now: rt.now });
      return lease.value;
    };
    rt.onClose(() => lease?.release());

    function show(list: PriceList, nowS: number): void {
      const msg = priceMessage({ list, nowS }) as { payload: number | null; estimate: boolean; spike: boolean };
      const price = msg.payload === null ? '–' : String(msg.payload);
      const flags = [msg.estimate ? words('estimate') : '', msg.spike ? words('spike') : ''].filter(Boolean).join(' ');
      rt.status({ fill: msg.spike ? 'yellow' : 'green', shape: 'dot', text: `${words('now', { price, slots: String(list.periods.length) })} ${flags}`.trim() });
    }

    /** Asks Amber for today so far and `ahead` hours of forecasts: one request, at most once a minute. */
    async function poll(): Promise<PriceList> {
      const nowMs = rt.now();
      if (last && nowMs - last.at < MIN_POLL_GAP_MS) return last.list;
      const step = settings.resolution * 60;
      const nowS = Math.floor(nowMs / 1000);
      const midnight = DateTime.fromSeconds(nowS, { zone: settings.timezone }).startOf('day').toSeconds();
      const previous = Math.max(0, Math.floor(nowS / step) - Math.floor(midnight / step));
      const next = (settings.aheadH * 3600) / step;
      last = { at: nowMs, list: last?.list ?? { shape: 'amber', periods: [] } };
      const intervals = await amber().currentPrices(settings.siteId, { next, previous, resolution: settings.resolution }, rt.signal);
      const list = readPrices(intervals, { source: 'Amber\'s answer' });
      last = { at: nowMs, list };
      return list;
    }

    function send(list: PriceList, always: boolean, base?: NodeMessageInFlow): void {
      const nowS = Math.floor(rt.now() / 1000);
      const msg = priceMessage({ list, nowS, siteId: settings.source === 'amber' && !base ? settings.siteId : undefined, resolution: settings.resolution, currency: list.shape === 'amber' ? 'AUD' : undefined }, base as Record<string, unknown> | undefined);
      const text = JSON.stringify((msg as { prices: unknown }).prices);
      if (always || text !== sentText) node.send(msg);
      sentText = text;
      show(list, nowS);
    }

    function schedule(): void {
      rt.clearTimer(timer);
      if (!settings.poll || settings.source !== 'amber') return;
      const nowMs = rt.now();
      const current = last?.list.periods.find((p) => p.start * 1000 <= nowMs && p.end * 1000 > nowMs);
      const at = nextPollAt(nowMs, last?.at, settings.resolution, current, lease?.value.blockedUntil ?? 0);
      timer = rt.setTimer(() => {
        // On a clock that is not the wall clock (tests, accelerated runs) the timer may fire early: wait on.
        if (rt.now() + 500 < at) return schedule();
        void rt.runJob(async () => { send(await poll(), false); }).finally(() => { if (!rt.closed) schedule(); });
      }, Math.max(1000, at - nowMs));
    }

    rt.onMessage(async ({ msg }) => {
      const list = pricesInMessage(msg as unknown as Record<string, unknown>, settings.timezone);
      if (list) return send(list, true, msg);
      if (settings.source !== 'amber') throw new MsgError('msg carries no price list: send msg.prices, or another price node\'s msg.payload (power-saver, Tibber, Nord Pool)');
      try {
        send(await poll(), true);
      } finally {
        schedule();
      }
    });

    if (settings.source === 'amber' && settings.poll) {
      // The first poll at deploy, then on Amber's intervals.
      timer = rt.setTimer(() => void rt.runJob(async () => { send(await poll(), true); }).finally(() => { if (!rt.closed) schedule(); }), 200);
    } else {
      rt.status({ fill: 'grey', shape: 'ring', text: words(settings.source === 'amber' ? 'onRequest' : 'waiting') });
    }
  }

  RED.nodes.registerType('energy-price', EnergyPriceNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: { apiKey: { type: 'password' } },
  } as unknown as Parameters<NodeAPI['nodes']['registerType']>[2]);
};
