'use strict';
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, until, useSimClock, TEST_NOW_S,
} = require('../support/env');
const path = require('node:path');

/** The core split/join module of the Node-RED the tests run on. */
const coreJoin = () => nodeRedModule('@node-red/nodes/core/sequence/17-split.js');
const { SIM_DEVICES } = require('../../dist/simulator');
const { nodeRedModule } = require('../support/node-red');

const METER = SIM_DEVICES.meter3M; // 3M, Australia/Sydney, channels Grid / Solar / House, phases count 1
const SIX = SIM_DEVICES.switch6M3SW; // 6M+3SW, Europe/Berlin, phases count 3 → groups [1,2,3], [4,5,6]
const HOUR = 3600;
const DAY = 86400;
// The simulator and the nodes share one frozen clock at TEST_NOW_S, 12 s after T0 (a 5-minute
// boundary, the last entry the devices have reported), so every range below is deterministic.
const T0 = Math.floor(TEST_NOW_S / 300) * 300;
const F0 = T0 - 3 * HOUR;

describe('energy-query', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-query')];
  const sent = [];

  // No lost short entries (shortLoss 0): these tests count entries exactly.
  before(async function () { sim = await startClockedSimulator({ shortLoss: 0 }); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () {
    assertNoKey(sim.keys.full, sent, loggedText());
    sent.length = 0;
    await helper.unload();
  });

  async function setup(props = {}, key = sim.keys.full) {
    const api = apiConfig(sim, key);
    const flow = [
      api.node,
      { id: 'q', type: 'energy-query', api: 'api', deviceId: METER, kind: 'short', query: 'range', fromTs: '', toTs: '', granularity: '5m', timezone: '', convert: '', powerFactor: false, groupByPhase: false, output: 'entries', follow: false, catchUp: 6, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(nodes, flow, api.credentials);
    return wire();
  }

  /** Handles on the running nodes (again after a restart). */
  function wire() {
    const node = helper.getNode('q');
    const out = helper.getNode('out');
    const statuses = [];
    node.on('call:status', (call) => { statuses.push(call.args[0]); sent.push(call.args[0]); });
    const caught = helper.getNode('caught');
    out.on('input', (msg) => sent.push(msg));
    caught.on('input', (msg) => sent.push(msg));
    return { node, out, caught, statuses };
  }

  async function query(ctx, msg = {}) {
    ctx.node.receive(msg);
    return nextMessage(ctx.out);
  }

  /** Every message the node sends for one trigger (it is done when the status leaves blue). */
  async function collect(ctx, msg = {}) {
    const got = [];
    const listener = (m) => got.push(m);
    ctx.out.on('input', listener);
    const before = ctx.statuses.length;
    ctx.node.receive(msg);
    // Blue (requesting), yellow "retrying" and "rate limited: waiting" (after a 429 on a busy host) are on the way;
    // any other status ends the trigger.
    const onTheWay = (s) => s.text.endsWith('common.status.retrying') || s.text.endsWith('common.status.rateLimited');
    await until(() => ctx.statuses.slice(before).some((s) => s.fill !== 'blue' && !onTheWay(s)));
    await pause(30);
    ctx.out.off('input', listener);
    return got;
  }

  async function expectError(ctx, msg) {
    let sentOut = false;
    ctx.out.on('input', () => { sentOut = true; });
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await pause(50);
    assert.equal(sentOut, false, 'nothing may be sent for a refused msg');
    assert.equal(ctx.statuses.at(-1).fill, 'red');
    return caught;
  }

  const energyRequests = (kind = 'short') => sim.control.log().filter((r) => r.path.includes(`/${kind}-energy/`));
  const lastStatus = (ctx) => ctx.statuses.at(-1);

  /** The raw entries straight from the simulator, to compute expected values independently. */
  async function raw(path, query) {
    // Another key, so that these reads never take the per-second budget of the node's key.
    const res = await fetch(`${sim.baseUrl}${path}?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${sim.keys.readOnly}` } });
    assert.equal(res.status, 200);
    return res.json();
  }

  const assertAscendingUnique = (entries) => {
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i].timestamp > entries[i - 1].timestamp, `entry ${i} out of order or duplicated`);
  };

  describe('ranges', function () {
    it('reads the last hour of short energy by default, in the device timezone', async function () {
      const ctx = await setup();
      const msg = await query(ctx);
      assert.equal(msg.toTs, TEST_NOW_S, '"now" on the nodes\' clock');
      assert.equal(msg.fromTs, TEST_NOW_S - HOUR);
      assert.equal(msg.kind, 'short');
      assert.equal(msg.deviceId, METER);
      assert.equal(msg.timezone, 'Australia/Sydney');
      assert.equal(msg.granularity, undefined);
      const first = Math.ceil(msg.fromTs / 30) * 30;
      assert.equal(msg.payload.length, (T0 - first) / 30 + 1);
      assert.equal(msg.payload[0].timestamp, first);
      assert.equal(msg.payload.at(-1).timestamp, T0);
      assert.ok(Array.isArray(msg.payload[0].eReal) && msg.payload[0].eReal.length === 3);
      assert.equal(lastStatus(ctx).fill, 'green');
      assert.equal(lastStatus(ctx).text, 'energy-query.status.entries');
    });

    it('splits 3 days of short energy into 6 requests and merges them oldest first without duplicates', async function () {
      const ctx = await setup({ fromTs: String(T0 - 3 * DAY), toTs: String(T0) });
      const msg = await query(ctx);
      const requests = energyRequests();
      assert.equal(requests.length, 6);
      const spans = requests.map((r) => [Number(r.query.fromTs), Number(r.query.toTs)]).sort((a, b) => a[0] - b[0]);
      spans.forEach(([from, to], i) => {
        assert.equal(from, T0 - 3 * DAY + i * 12 * HOUR);
        assert.equal(to - from, 12 * HOUR);
      });
      assert.equal(msg.payload.length, (3 * DAY) / 30);
      assert.equal(msg.payload[0].timestamp, T0 - 3 * DAY);
      assert.equal(msg.payload.at(-1).timestamp, T0 - 30);
      assertAscendingUnique(msg.payload);
      assert.equal(msg.fromTs, T0 - 3 * DAY);
      assert.equal(msg.toTs, T0);
      assert.ok(ctx.statuses.some((s) => s.fill === 'blue' && s.text === 'energy-query.status.requestingMany'));
    });

    it('reads long hour energy for yesterday in the device timezone (the default)', async function () {
      const ctx = await setup({ kind: 'long', granularity: 'hour', fromTs: 'yesterday', toTs: 'today' });
      const msg = await query(ctx);
      const today = DateTime.fromSeconds(TEST_NOW_S, { zone: 'Australia/Sydney' }).startOf('day');
      const yesterday = today.minus({ days: 1 });
      assert.equal(msg.fromTs, yesterday.toSeconds());
      assert.equal(msg.toTs, today.toSeconds());
      assert.equal(msg.timezone, 'Australia/Sydney');
      assert.equal(msg.granularity, 'hour');
      const hours = (today.toSeconds() - yesterday.toSeconds()) / HOUR;
      assert.equal(msg.payload.length, hours);
      // The live service's hours are labelled with their first 5-minute record: each covers 23:55-00:55 and so on.
      msg.payload.forEach((e, i) => {
        assert.equal(e.timestamp, yesterday.toSeconds() + (i + 1) * HOUR - 300);
        assert.equal(e.duration, HOUR);
      });
      assert.deepEqual(msg.period, { fromTs: yesterday.toSeconds() - 300, toTs: today.toSeconds() - 300, shiftS: -300 });
      const [request] = energyRequests('long');
      assert.equal(request.query.granularity, 'hour');
      assert.equal(request.query.timezone, 'Australia/Sydney');
    });

    it('reads long day energy with the node timezone, which wins over the device', async function () {
      const ctx = await setup({ kind: 'long', granularity: 'day', fromTs: '-7d', toTs: 'today', timezone: 'America/New_York' });
      const msg = await query(ctx);
      const today = DateTime.fromSeconds(TEST_NOW_S, { zone: 'America/New_York' }).startOf('day');
      assert.equal(msg.timezone, 'America/New_York');
      assert.equal(msg.toTs, today.toSeconds());
      assert.equal(msg.payload.at(-1).timestamp, today.toSeconds() - 300, 'yesterday as the service counts it: to 23:55');
      for (const e of msg.payload.slice(1)) {
        assert.equal(DateTime.fromSeconds(e.timestamp, { zone: 'America/New_York' }).toFormat('HH:mm:ss'), '23:55:00');
      }
      assert.deepEqual(msg.period, { fromTs: Math.ceil(msg.fromTs / 300) * 300 - 300, toTs: today.toSeconds() - 300, shiftS: -300 });
      assert.equal(energyRequests('long')[0].query.timezone, 'America/New_York');
      // No device read is needed when the timezone is given and the output is not a chart.
      assert.equal(sim.control.log().filter((r) => r.path.endsWith(`/devices/${METER}`)).length, 0);
    });
  });

  describe('first and latest', function () {
    it('returns single entries for short latest and long first', async function () {
      const ctx = await setup({ query: 'latest' });
      const latest = await query(ctx);
      assert.ok(!Array.isArray(latest.payload));
      assert.equal(latest.payload.timestamp, T0);
      assert.equal(latest.fromTs, undefined);
      assert.equal(energyRequests()[0].path, `/v3/short-energy/${METER}/latest`);
      const first = await query(ctx, { kind: 'long', query: 'first' });
      assert.equal(first.kind, 'long');
      assert.equal(first.payload.timestamp, Date.UTC(2024, 0, 1) / 1000 + 300);
      assert.equal(energyRequests('long')[0].path, `/v3/long-energy/${METER}/first`);
    });

    it('gives [] and null, not an error, for an uninitialised device (204)', async function () {
      const ctx = await setup({ deviceId: SIM_DEVICES.uninitialised, fromTs: String(T0 - HOUR), toTs: String(T0) });
      const range = await query(ctx);
      assert.deepEqual(range.payload, []);
      assert.equal(lastStatus(ctx).fill, 'yellow');
      assert.match(lastStatus(ctx).text, /status\.noData$/);
      const latest = await query(ctx, { query: 'latest' });
      assert.equal(latest.payload, null);
      assert.equal(lastStatus(ctx).fill, 'yellow');
      assert.ok(energyRequests().every((r) => r.status === 204));
    });
  });

  describe('msg overrides', function () {
    it('takes deviceId, times (Date, ms, ISO), kind, granularity, timezone and convert from msg', async function () {
      const ctx = await setup();
      const from = T0 - 2 * HOUR;
      const msg = await query(ctx, {
        deviceId: SIX, kind: 'long', granularity: '15m', timezone: 'Asia/Tokyo', convert: 'kWh',
        fromTs: new Date(from * 1000), toTs: DateTime.fromSeconds(T0, { zone: 'Asia/Tokyo' }).toISO(),
      });
      assert.equal(msg.deviceId, SIX);
      assert.equal(msg.granularity, '15m');
      assert.equal(msg.timezone, 'Asia/Tokyo');
      assert.equal(msg.fromTs, from);
      assert.equal(msg.toTs, T0);
      const [request] = energyRequests('long');
      assert.equal(request.path, `/v3/long-energy/${SIX}`);
      assert.equal(request.query['convert[energy]'], 'kWh');
      assert.equal(request.query.granularity, '15m');
      const labelled = await raw(`/long-energy/${SIX}`, { fromTs: from, toTs: T0, granularity: '15m', 'convert[energy]': 'kWh' });
      // Each labelled with its first 5-minute record: the client stamps it at the end of what it covers.
      assert.deepEqual(msg.payload, labelled.map((e) => ({ ...e, timestamp: e.timestamp - 300 + e.duration })));
      assert.ok(msg.payload[0].eRealKwh && !msg.payload[0].eReal);

      const ms = await query(ctx, { fromTs: (T0 - 600) * 1000, toTs: T0 * 1000, powerFactor: true, convert: 'kW' });
      assert.equal(ms.payload.length, 20);
      assert.ok(Array.isArray(ms.payload[0].powerFactor) && ms.payload[0].pRealKw);
      const grouped = await query(ctx, { deviceId: SIX, fromTs: String(T0 - 300), toTs: String(T0), groupByPhase: true });
      assert.equal(grouped.payload[0].groupedBy, 'phases');
      assert.equal(grouped.payload[0].eReal.length, 2);
      const today = await query(ctx, { kind: 'long', granularity: 'hour', fromTs: 'today', toTs: 'now', timezone: 'Europe/Berlin' });
      assert.equal(today.fromTs, DateTime.fromSeconds(TEST_NOW_S, { zone: 'Europe/Berlin' }).startOf('day').toSeconds());
      assert.equal(today.toTs, TEST_NOW_S);
    });

    it('takes the node options powerFactor and groupByPhase as properties too', async function () {
      const ctx = await setup({ deviceId: SIX, fromTs: String(T0 - 300), toTs: String(T0), groupByPhase: true, convert: 'kWh' });
      const msg = await query(ctx);
      assert.equal(msg.payload[0].groupedBy, 'phases');
      assert.ok(msg.payload[0].eRealKwh);
      const [request] = energyRequests();
      assert.equal(request.query['filter[group]'], 'phases');
    });
  });

  describe('chart and split output', function () {
    it('emits ui-chart points per channel, named by channel labels, y = eReal / duration in W', async function () {
      const ctx = await setup({ output: 'chart', fromTs: String(T0 - 600), toTs: String(T0) });
      const msg = await query(ctx);
      const entries = await raw(`/short-energy/${METER}`, { fromTs: T0 - 600, toTs: T0 });
      assert.equal(msg.action, 'replace');
      assert.equal(msg.payload.length, entries.length * 3);
      const labels = ['Grid', 'Solar', 'House'];
      for (const [i, label] of labels.entries()) {
        // Named with the unit; placed at the period's start; W to 0.1 (energy-query-chart.test.js has the rest).
        const series = msg.payload.filter((p) => p.series === `${label} (W)`);
        assert.deepEqual(series.map((p) => p.x), entries.map((e) => (e.timestamp - e.duration) * 1000));
        assert.deepEqual(series.map((p) => p.y), entries.map((e) => Math.round((e.eReal[i] / e.duration) * 10) / 10));
      }
      assert.ok(msg.payload.some((p) => p.series === 'House (W)' && p.y !== 0), 'the house always draws (solar is 0 at night)');
    });

    it('plots eRealKwh with kWh, names phase groups, and clears the chart when there is no data', async function () {
      const ctx = await setup({ output: 'chart', deviceId: SIX, convert: 'kWh', groupByPhase: true, fromTs: String(T0 - 300), toTs: String(T0) });
      const msg = await query(ctx);
      const entries = await raw(`/short-energy/${SIX}`, { fromTs: T0 - 300, toTs: T0, 'convert[energy]': 'kWh', 'filter[group]': 'phases' });
      const names = [...new Set(msg.payload.map((p) => p.series))];
      assert.deepEqual(names, ['energy-query.chart.phase 1 (kWh)', 'energy-query.chart.phase 2 (kWh)']);
      assert.deepEqual(msg.payload.filter((p) => p.series.endsWith(' 2 (kWh)')).map((p) => p.y), entries.map((e) => Math.round(e.eRealKwh[1] * 1000) / 1000));
      const empty = await query(ctx, { deviceId: SIM_DEVICES.uninitialised, groupByPhase: false });
      assert.deepEqual(empty.payload, []);
      assert.equal(empty.action, 'replace');
    });

    it('sends one message per entry with timestamp in ms and the device as topic; nothing when there is no data', async function () {
      const ctx = await setup({ output: 'split', fromTs: String(T0 - 900), toTs: String(T0) });
      const got = await collect(ctx);
      assert.equal(got.length, 30);
      got.forEach((m, i) => {
        assert.equal(m.payload.timestamp, T0 - 900 + i * 30);
        assert.equal(m.timestamp, m.payload.timestamp * 1000);
        assert.equal(m.topic, METER);
        assert.equal(m.fromTs, T0 - 900);
      });
      const none = await collect(ctx, { deviceId: SIM_DEVICES.uninitialised });
      assert.equal(none.length, 0);
      assert.equal(lastStatus(ctx).fill, 'yellow');
      // Each msg owns its copy of the input's other properties: a flow that changes one changes no other.
      const meta = { site: 'home', tags: ['a'] };
      const owned = await collect(ctx, { meta });
      assert.equal(owned.length, 30);
      assert.equal(new Set(owned.map((m) => m.meta)).size, 30);
      assert.equal(new Set(owned.map((m) => m.meta.tags)).size, 30);
      assert.ok(owned.every((m) => m.meta !== meta && m.meta.tags !== meta.tags));
      assert.ok(owned.every((m) => m.meta.site === 'home'));
    });
  });

  describe('one message per request (pages)', function () {
    it('sends each request\'s entries as they arrive with msg.parts, and a core join in automatic mode rebuilds the array', async function () {
      const api = apiConfig(sim);
      const fromTs = T0 - 20 * DAY;
      await load([...nodes, coreJoin()], [
        api.node,
        { id: 'q', type: 'energy-query', api: 'api', deviceId: METER, kind: 'long', query: 'range', fromTs: String(fromTs), toTs: String(T0), granularity: '5m', timezone: '', output: 'pages', follow: false, wires: [['out', 'rebuild']] },
        { id: 'out', type: 'helper' },
        { id: 'rebuild', type: 'join', mode: 'auto', build: 'array', property: 'payload', propertyType: 'msg', timeout: '', count: '', joiner: '', accumulate: false, wires: [['joined']] },
        { id: 'joined', type: 'helper' },
        { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper' },
      ], api.credentials);
      const ctx = wire();
      const joined = nextMessage(helper.getNode('joined'));
      const pages = await collect(ctx, { topic: 'year', parts: { id: 'outer', index: 2, count: 5 } });
      const requests = energyRequests('long').length;
      assert.equal(requests, 3, '20 days of 5-minute data: three 7-day requests');
      assert.equal(pages.length, requests, 'one msg per request');
      const id = pages[0].parts.id;
      pages.forEach((m, i) => {
        assert.deepEqual({ ...m.parts, len: undefined }, { id, type: 'array', index: i, count: requests, len: undefined, parts: { id: 'outer', index: 2, count: 5 } });
        assert.ok(m.parts.len > 1, 'len > 1: join concatenates the pages');
        assert.equal(m.topic, METER);
        assert.equal(m.fromTs, fromTs);
        assert.ok(m.payload.length > 0);
      });
      const all = pages.flatMap((m) => m.payload);
      assertAscendingUnique(all);
      assert.equal(all.length, 20 * 288);
      assert.equal(all[0].timestamp, fromTs + 300);
      assert.equal(all.at(-1).timestamp, T0);
      const whole = await joined;
      assert.deepEqual(whole.payload, all);
      assert.deepEqual(whole.parts, { id: 'outer', index: 2, count: 5 }, 'the outer sequence is restored');
      assert.match(lastStatus(ctx).text, /energy-query\.status\.entries/);
    });
  });

  describe('refusals', function () {
    const cases = [
      ['a bad time', { fromTs: 'soon' }, /msg\.fromTs/],
      ['an empty range', { fromTs: String(T0), toTs: String(T0 - 60) }, /msg\.toTs .* must be after msg\.fromTs/],
      ['an unknown granularity', { kind: 'long', granularity: '10m' }, /msg\.granularity must be one of/],
      ['an unknown conversion', { convert: 'MWh' }, /msg\.convert must be one of kWh, kW/],
      ['power factor with phase grouping', { powerFactor: true, groupByPhase: true }, /spec 4\.12/],
      ['a range for a latest query', { query: 'latest', fromTs: '-2h' }, /msg\.fromTs does not apply to a "latest" query/],
      ['an unknown timezone', { timezone: 'Mars/Olympus' }, /msg\.timezone/],
      ['an unknown kind', { kind: 'medium' }, /msg\.kind must be one of short, long/],
      ['a bad device id', { deviceId: 'nope' }, /not a device id/],
    ];
    for (const [what, msg, message] of cases) {
      it(`refuses ${what} before any request, to the Catch node`, async function () {
        const ctx = await setup();
        const caught = await expectError(ctx, msg);
        assert.match(caught.error.message, message);
        assert.equal(caught.apiError.code, 'INVALID_REQUEST');
        assert.equal(sim.control.log().length, 0);
      });
    }

    it('refuses short energy older than 31 days and says to use long energy', async function () {
      const ctx = await setup({ timezone: 'UTC' });
      const caught = await expectError(ctx, { fromTs: String(T0 - 40 * DAY), toTs: String(T0 - 35 * DAY) });
      assert.match(caught.error.message, /long energy/);
      assert.equal(energyRequests().length, 0);
    });

    it('passes a refused request (403) with its status to the Catch node', async function () {
      const ctx = await setup({ timezone: 'UTC' });
      const caught = await expectError(ctx, { deviceId: SIM_DEVICES.forbidden, fromTs: String(T0 - 600), toTs: String(T0) });
      assert.equal(caught.apiError.status, 403);
    });
  });

  describe('follow mode', function () {
    // Follow reads up to "now" on the shared clock, which each test moves on; the clock stands LAG
    // seconds after the instant named, as real arrivals do, so the entry at that instant is complete.
    const T0 = F0;
    const LAG = TEST_NOW_S - Math.floor(TEST_NOW_S / 300) * 300;
    const setNow = (s) => sim.control.setClock({ now: s + LAG });
    beforeEach(function () { setNow(F0); });

    it('emits disjoint sets per trigger and back-fills an outage exactly once', async function () {
      const start = T0 - 600;
      const ctx = await setup({ follow: true, fromTs: String(start), catchUp: 6 });
      const seen = [];
      const take = async () => {
        const msgs = await collect(ctx);
        assert.ok(msgs.length <= 1);
        const entries = msgs[0]?.payload ?? [];
        seen.push(...entries.map((e) => e.timestamp));
        return entries;
      };
      const first = await take();
      assert.equal(first.length, 21);
      assert.equal(first[0].timestamp, start);
      sim.control.setClock({ advance: 300 });
      const second = await take();
      assert.deepEqual(second.map((e) => e.timestamp), Array.from({ length: 10 }, (_, i) => T0 + 30 * (i + 1)));
      // The device goes silent at T0+600 for 20 minutes; meanwhile only entries before the outage exist.
      sim.control.setOutage(METER, { from: T0 + 600, to: T0 + 1800 });
      setNow(T0 + 1200);
      const third = await take();
      assert.equal(third.at(-1).timestamp, T0 + 600);
      assert.equal(lastStatus(ctx).fill, 'green');
      setNow(T0 + 2400);
      const fourth = await take();
      assert.equal(fourth[0].timestamp, T0 + 630);
      assert.equal(fourth.at(-1).timestamp, T0 + 2400);
      // Nothing new: nothing sent, status says so.
      assert.deepEqual(await take(), []);
      assert.equal(lastStatus(ctx).text, 'energy-query.status.noNew');
      assert.equal(new Set(seen).size, seen.length, 'no entry emitted twice');
      assert.deepEqual(seen, Array.from({ length: (T0 + 2400 - start) / 30 + 1 }, (_, i) => start + 30 * i));
      // Each trigger re-read the catch-up window (6 h back from the cursor, not before the start).
      const reads = energyRequests().map((r) => Number(r.query.fromTs));
      assert.deepEqual(reads, [start, start, start, start, start]);
    });

    it('emits only complete long buckets, and the growing one once it is complete', async function () {
      const ctx = await setup({ follow: true, kind: 'long', granularity: '5m', fromTs: String(T0 - 1800), output: 'split' });
      setNow(T0 + 150);
      const first = await collect(ctx);
      assert.deepEqual(first.map((m) => m.payload.timestamp), Array.from({ length: 6 }, (_, i) => T0 - 1500 + 300 * i));
      assert.ok(first.every((m) => m.payload.duration === 300));
      setNow(T0 + 320);
      const second = await collect(ctx);
      assert.deepEqual(second.map((m) => m.payload.timestamp), [T0 + 300]);
      assert.equal(second[0].payload.duration, 300);
    });

    it('follows many devices through msg.deviceId side by side, and one device\'s overlapping triggers one after another', async function () {
      const ctx = await setup({ follow: true, fromTs: String(T0 - 300), timezone: 'UTC' });
      const got = [];
      ctx.out.on('input', (m) => got.push({ deviceId: m.deviceId, timestamps: m.payload.map((e) => e.timestamp) }));
      // Answers take 3 s: a node that ran every follow read after the one before could not have sent the
      // second device's request before the first device's entries were out.
      sim.control.setFaults({ latencyMs: 3000 });
      ctx.node.receive({ deviceId: METER });
      ctx.node.receive({ deviceId: SIX });
      ctx.node.receive({ deviceId: METER });
      await until(() => energyRequests().some((r) => r.path.endsWith(`/${SIX}`)), 2500, 'the second device\'s read is sent');
      assert.deepEqual(got, [], 'sent while the first device\'s read was still waiting for its answer');
      assert.equal(energyRequests().filter((r) => r.path.endsWith(`/${METER}`)).length, 1, 'the same device\'s second trigger waits for its first');
      await until(() => got.length === 2 && energyRequests().filter((r) => r.path.endsWith(`/${METER}`)).length === 2, 20000, 'both devices emitted');
      await until(() => ctx.statuses.at(-1).fill !== 'blue', 10000, 'the last trigger ended');
      await pause(50);
      assert.deepEqual(got.map((m) => m.deviceId).sort(), [METER, SIX].sort(), 'the repeated trigger of the first device found nothing new');
      for (const m of got) assert.equal(m.timestamps.length, 11);
    });

    it('appends chart points in follow mode', async function () {
      const ctx = await setup({ follow: true, output: 'chart', fromTs: String(T0 - 60) });
      const [msg] = await collect(ctx);
      assert.equal(msg.action, 'append');
      assert.equal(msg.payload.length, 3 * 3);
    });

    it('continues after a restart from the cursor kept in a persistent (localfilesystem) context store', async function () {
      const fs = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-query-ctx-'));
      const contexts = helper._context;
      // helper.load() re-initialises the context module from the runtime settings but never loads the
      // configured stores (Node-RED's own start does): load them before the first trigger, as a real start would.
      useSimClock(sim, { contextStorage: { default: { module: 'localfilesystem', config: { dir, flushInterval: 0 } } } });
      try {
        let ctx = await setup({ follow: true, fromTs: String(T0 - 300) });
        await contexts.load();
        assert.equal(contexts.listStores().default, 'default');
        const [first] = await collect(ctx);
        assert.equal(first.payload.length, 11);
        // Stop the flows, close the store (flushes to disk), then reopen it from the files and start again.
        await helper._redNodes.stopFlows();
        await contexts.close();
        const files = fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.json'));
        assert.ok(files.some((f) => fs.readFileSync(path.join(dir, String(f)), 'utf8').includes(`follow:${METER}:short`)));
        contexts.init(helper._settings);
        await contexts.load();
        sim.control.setClock({ advance: 120 });
        await helper._redNodes.startFlows();
        ctx = wire();
        const [after] = await collect(ctx);
        assert.deepEqual(after.payload.map((e) => e.timestamp), [T0 + 30, T0 + 60, T0 + 90, T0 + 120]);
      } finally {
        await helper.unload();
        await contexts.close();
        useSimClock(sim);
        contexts.init(helper._settings);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('starts afresh when the device changes (the key holds device, kind and granularity)', async function () {
      const ctx = await setup({ follow: true, fromTs: String(T0 - 60) });
      const [a] = await collect(ctx);
      const [b] = await collect(ctx, { deviceId: SIX });
      assert.equal(a.payload.length, 3);
      assert.equal(b.payload.length, 3);
      assert.equal(b.deviceId, SIX);
    });
  });
});

describe('energy-query follow state (pure)', function () {
  const { selectNew, followWindow, isCompleteBucket } = require('../../dist/nodes/energy-query/follow.js');
  const at = (...ts) => ts.map((timestamp) => ({ timestamp, duration: 30 }));

  it('emits an entry back-filled before the cursor once, and forgets timestamps older than the window', function () {
    const catchUp = 6 * HOUR;
    let state = { startTs: 0, emitted: [] };
    let step = selectNew(at(100, 130, 190), state, followWindow(state, catchUp), catchUp);
    assert.deepEqual(step.fresh.map((e) => e.timestamp), [100, 130, 190]);
    state = step.next;
    assert.equal(state.cursor, 190);
    // 160 arrives late (a gap the device filled): it is older than the cursor but was never emitted.
    step = selectNew(at(100, 130, 160, 190, 220), state, followWindow(state, catchUp), catchUp);
    assert.deepEqual(step.fresh.map((e) => e.timestamp), [160, 220]);
    state = step.next;
    assert.deepEqual(state.emitted, [100, 130, 160, 190, 220]);
    // Far ahead: the window starts at cursor - catchUp, older timestamps are dropped from the state.
    step = selectNew(at(220 + catchUp + 30), state, followWindow(state, catchUp), catchUp);
    assert.deepEqual(step.next.emitted, [220 + catchUp + 30]);
    assert.equal(followWindow(step.next, catchUp).fromTs, 250);
  });

  it('knows a complete bucket in a timezone with a DST change (a 23-hour day)', function () {
    const zone = 'Europe/Berlin';
    const end = DateTime.fromISO('2025-03-31T00:00', { zone }).toSeconds();
    assert.equal(isCompleteBucket({ timestamp: end, duration: 23 * HOUR }, 'day', zone), true);
    assert.equal(isCompleteBucket({ timestamp: end, duration: 24 * HOUR }, 'day', zone), false);
    assert.equal(isCompleteBucket({ timestamp: end - 600, duration: 300 }, '5m', zone), true);
    assert.equal(isCompleteBucket({ timestamp: end - 600, duration: 150 }, '5m', zone), false);
    assert.equal(isCompleteBucket({ timestamp: end - 450, duration: 300 }, '5m', zone), false);
    // The live service's day covers 23:55 to 23:55: whole when it covers its day moved 5 minutes earlier.
    assert.equal(isCompleteBucket({ timestamp: end - 300, duration: 23 * HOUR }, 'day', zone, -300), true);
    assert.equal(isCompleteBucket({ timestamp: end, duration: 23 * HOUR }, 'day', zone, -300), false);
    assert.equal(isCompleteBucket({ timestamp: end - 300, duration: 23 * HOUR - 300 }, 'day', zone, -300), false, 'the day in progress');
  });
});

function pause(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
