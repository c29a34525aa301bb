'use strict';
// energy-query under both readings of a long range (the live service's by timestamp, the spec's by
// coverage): msg.period says exactly what a read covers, day bars sit on their day, and follow mode
// emits every whole bucket once, across many seams (midnights, request spans, irregular triggers).
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const {
  helper, startClockedSimulator, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S,
} = require('../support/env');
const { EnergyApiClient, parseTime } = require('../../dist/api');
const { SIM_DEVICES } = require('../../dist/simulator');

const METER = SIM_DEVICES.meter3M; // Australia/Sydney
const ZONE = 'Australia/Sydney';
const READINGS = ['timestamp', 'coverage'];
const FIXED = { '5m': 300, '15m': 900, '30m': 1800 };
const bucketStart = (t, g) => (FIXED[g] ? Math.floor(t / FIXED[g]) * FIXED[g] : DateTime.fromSeconds(t, { zone: ZONE }).startOf(g).toSeconds());

describe('energy-query periods under both readings of a long range', function () {
  this.timeout(60000);
  let sim;

  // A key fast enough that many triggers take little time.
  before(async function () { sim = await startClockedSimulator({ tps: 100 }); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  const query = (id, props) => ({
    id, type: 'energy-query', api: 'api', deviceId: METER, kind: 'long', query: 'range', timezone: '', convert: '', output: 'entries', follow: false, catchUp: 6, wires: [['out']], ...props,
  });

  /** Loads the query nodes (ids must not equal a property value: Node-RED takes those for config references). */
  async function load(queries) {
    const nodes = await flowWith(sim, queries, { config: { tps: 100 } });
    const out = messagesOf(nodes.out);
    const caught = messagesOf(nodes.caught);
    const statuses = Object.fromEntries(queries.map((q) => [q.id, statusesOf(nodes[q.id])]));
    /** Sends msg to a node and resolves with what it sends for it (or rejects with its error). */
    return async function run(id, msg = {}) {
      out.length = 0;
      const seen = statuses[id].length;
      nodes[id].receive(msg);
      // Blue (requesting), "retrying" and "rate limited: waiting" (a 429 on a busy host) are on the way.
      const onTheWay = (s) => s.fill === 'blue' || /common\.status\.(retrying|rateLimited)$/.test(s.text);
      await until(() => statuses[id].slice(seen).some((s) => !onTheWay(s)), 20000, `${id} done`);
      await new Promise((resolve) => setImmediate(resolve));
      if (caught.length) throw new Error(caught[0].error.message);
      return out.slice();
    };
  }

  it('"yesterday" says what it covers: 288 records midnight to midnight at 5 minutes, the service\'s day at day granularity', async function () {
    const nowMs = sim.control.now() * 1000;
    const F = parseTime('yesterday', { timezone: ZONE, nowMs });
    const T = parseTime('today', { timezone: ZONE, nowMs });
    for (const reading of READINGS) {
      sim.control.setLimits({ longWindow: reading });
      const run = await load([query('q5', { granularity: '5m', fromTs: 'yesterday', toTs: 'today' }), query('qd', { granularity: 'day', fromTs: 'yesterday', toTs: 'today' }), query('qh', { granularity: 'hour', fromTs: 'yesterday', toTs: 'today', output: 'pages' })]);
      const [five] = await run('q5');
      assert.equal(five.payload.length, 288, reading);
      assert.deepEqual(five.period, { fromTs: F, toTs: T, shiftS: 0 }, reading);
      assert.deepEqual([five.payload[0].timestamp - 300, five.payload.at(-1).timestamp], [F, T]);
      const [day] = await run('qd');
      const shift = reading === 'timestamp' ? -300 : 0;
      assert.deepEqual(day.period, { fromTs: F + shift, toTs: T + shift, shiftS: shift }, `${reading}: 23:55 to 23:55 where the service counts so`);
      assert.deepEqual(day.payload.map((e) => [e.timestamp - e.duration, e.timestamp]), [[day.period.fromTs, day.period.toTs]]);
      const hours = await run('qh');
      assert.ok(hours.length >= 1);
      for (const page of hours) assert.deepEqual(page.period, day.period, `${reading}: each page says what the read covers`);
      assert.equal(hours.reduce((n, m) => n + m.payload.length, 0), 24);
      await helper.unload();
    }
  });

  it('the daily budget counts the requests a 5-minute read really sends, 300 s beyond its periods included', async function () {
    const { requestsPerTrigger } = require('../support/request-costs');
    for (const [fromTs, toTs] of [['-7d', 'now'], ['-6d', 'now'], ['-20d', '-1d']]) {
      sim.control.clearLog();
      const props = { granularity: '5m', fromTs, toTs };
      const run = await load([query('qb', props)]);
      await run('qb');
      const sent = sim.control.log().filter((r) => r.path.includes('/long-energy/'));
      sent.forEach((r) => assert.ok(Number(r.query.toTs) - Number(r.query.fromTs) <= 7 * 86400, 'each request within the 7-day limit'));
      assert.equal(requestsPerTrigger({ type: 'energy-query', ...query('qb', props) }, { nowMs: sim.control.now() * 1000 }), sent.length, `${fromTs} to ${toTs}`);
      await helper.unload();
    }
  });

  it('a chart of days puts each bar on its own day under both readings; the axis names the shift only where there is one', async function () {
    const to = DateTime.fromSeconds(TEST_NOW_S, { zone: ZONE }).startOf('day');
    const from = to.minus({ days: 5 });
    for (const reading of READINGS) {
      sim.control.setLimits({ longWindow: reading });
      const run = await load([query('qc', { granularity: 'day', convert: 'kWh', output: 'chart', fromTs: String(from.toSeconds()), toTs: String(to.toSeconds()) })]);
      const [msg] = await run('qc');
      const grid = msg.payload.filter((p) => p.series === 'Grid (kWh)');
      assert.deepEqual(grid.map((p) => DateTime.fromMillis(p.x, { zone: ZONE }).toISO()), [0, 1, 2, 3, 4].map((i) => from.plus({ days: i }).toISO()), reading);
      assert.equal(msg.ui_update.chartOptions.xAxis?.name, reading === 'timestamp' ? 'energy-query.chart.shifted' : undefined);
      await helper.unload();
    }
  });

  it('the "Daily energy report" example writes yesterday\'s exact kWh per channel under both readings', async function () {
    const example = require('../../examples/Daily energy report.json');
    const queryNode = example.find((n) => n.type === 'energy-query');
    const toCsv = example.find((n) => n.type === 'function' && n.name === 'to CSV');
    const nowMs = sim.control.now() * 1000;
    const F = parseTime('yesterday', { timezone: ZONE, nowMs });
    const T = parseTime('today', { timezone: ZONE, nowMs });
    // The day's records straight from the simulator: the stamps F + 300 … T.
    const res = await fetch(`${sim.baseUrl}/long-energy/${METER}?fromTs=${F + 300}&toTs=${T + 300}&convert[energy]=kWh`, { headers: { Authorization: `Bearer ${sim.keys.readOnly}` } });
    const records = await res.json();
    assert.equal(records.length, 288);
    const expected = records[0].eRealKwh.map((_, c) => records.reduce((a, r) => a + r.eRealKwh[c], 0).toFixed(3));
    for (const reading of READINGS) {
      sim.control.setLimits({ longWindow: reading });
      const run = await load([query('qr', { ...queryNode, id: 'qr', api: 'api', deviceId: METER, wires: [['out']] })]);
      const [msg] = await run('qr');
      const status = [];
      const out = new Function('msg', 'node', toCsv.func)({ ...msg, deviceInfo: { channels: [] } }, { status: (s) => status.push(s) });
      const day = DateTime.fromSeconds(F, { zone: ZONE }).toISODate();
      assert.equal(out.filename, `/tmp/energy-report/${METER}-${day}.csv`);
      const rows = out.payload.trim().split('\n').slice(1).map((line) => line.split(','));
      assert.deepEqual(rows.map((r) => r[4]), expected, `${reading}: the sums of the day's 288 records`);
      assert.match(status[0].text, /288 records/);
      await helper.unload();
    }
  });

  /** Whole buckets of the reading, in the client's convention (stamped at the end of what they cover). */
  function whole(entries, g, reading) {
    const shift = reading === 'timestamp' && g !== '5m' ? 300 : 0;
    return entries.filter((e) => {
      const start = e.timestamp - e.duration + shift;
      const end = e.timestamp + shift;
      return bucketStart(start, g) === start && bucketStart(end - 1, g) === start && bucketStart(end, g) === end;
    });
  }

  // Irregular steps across local midnights, one longer than a 5-minute request's 7 days.
  const STEPS = [0, 170, 130, 301, 299, 1500, 3 * 3600 + 7, 6 * 3600, 9 * 3600 + 45, 86400 + 1234, 2 * 86400 + 777, 8 * 86400 + 300];
  for (const reading of READINGS) {
    for (const g of ['5m', '15m', 'hour', 'day']) {
      it(`follow mode, ${g}, ${reading} reading: every whole bucket once, none early, across ${STEPS.length} irregular triggers`, async function () {
        sim.control.setLimits({ longWindow: reading });
        const start = TEST_NOW_S - 2 * 3600;
        const run = await load([query('qf', { granularity: g, follow: true, fromTs: String(start), toTs: 'now', output: 'split' })]);
        const emitted = [];
        for (const step of STEPS) {
          sim.control.setClock({ advance: step });
          const got = await run('qf');
          emitted.push(...got.map((m) => m.payload));
          // Nothing emitted may still grow: each entry is whole when it is sent.
          assert.deepEqual(whole(got.map((m) => m.payload), g, reading).length, got.length, `${reading} ${g}: only whole buckets`);
        }
        const client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.readOnly, tps: 100, now: () => sim.control.now() * 1000, longWindow: reading });
        try {
          const all = await client.getLongEnergy(METER, { fromTs: bucketStart(start, g), toTs: Math.floor(sim.control.now()), granularity: g, timezone: ZONE }, { maxRequests: 1000 });
          const expected = whole(all, g, reading).filter((e) => e.timestamp >= start);
          assert.ok(expected.length >= (g === 'day' ? 10 : 40), `${expected.length} buckets to follow`);
          assert.deepEqual(emitted.map((e) => e.timestamp), expected.map((e) => e.timestamp), `${reading} ${g}: each once, in order`);
          assert.deepEqual(emitted, expected, 'the same entries');
        } finally {
          await client.close();
        }
      });
    }
  }
});
