'use strict';
// energy-query's chart output: points where a person expects them, units named, colours by
// category, and long ranges thinned to maxPoints without stalling Node-RED.
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, TEST_NOW_S,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { CATEGORY_COLOURS } = require('../../dist/domain/entries/chart-colours.js');

const DAY = 86400;
const T0 = Math.floor(TEST_NOW_S / 300) * 300 - 300;

describe('energy-query chart output', function () {
  let sim;
  let device;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-query')];

  before(async function () {
    sim = await startClockedSimulator();
    const res = await fetch(`${sim.baseUrl}/devices/${SIM_DEVICES.meter3M}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    device = await res.json();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  afterEach(async function () { await helper.unload(); });

  async function chart(props, msg = {}) {
    await helper.unload();
    const api = apiConfig(sim);
    const flow = [
      api.node,
      { id: 'q', type: 'energy-query', api: 'api', deviceId: device.id, kind: 'long', query: 'range', timezone: '', convert: '', output: 'chart', wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(nodes, flow, api.credentials);
    const out = nextMessage(helper.getNode('out'), 50000);
    const failed = nextMessage(helper.getNode('caught'), 50000).then((m) => { throw new Error(`refused: ${m.error.message}`); }, () => new Promise(() => {}));
    helper.getNode('q').receive(msg);
    return Promise.race([out, failed]);
  }

  async function raw(query) {
    const res = await fetch(`${sim.baseUrl}/long-energy/${device.id}?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    return res.json();
  }

  it('puts a day bar on the day it covers, in the device timezone, in kWh with the unit named', async () => {
    const zone = device.timezone;
    const to = DateTime.fromSeconds(T0, { zone }).startOf('day');
    const from = to.minus({ days: 7 });
    const msg = await chart({ granularity: 'day', convert: 'kWh', fromTs: String(from.toSeconds()), toTs: String(to.toSeconds()) });
    const entries = await raw({ fromTs: from.toSeconds(), toTs: to.toSeconds(), granularity: 'day', timezone: zone, 'convert[energy]': 'kWh' });
    const label = device.channels[0].label;
    const series = msg.payload.filter((p) => p.series === `${label} (kWh)`);
    assert.equal(series.length, 7);
    series.forEach((p, i) => {
      const day = DateTime.fromMillis(p.x, { zone });
      assert.equal(day.toISODate(), from.plus({ days: i }).toISODate(), 'the bar sits on the day it covers');
      assert.equal(day.toFormat('HH:mm'), '00:00');
      // The live service labels the day with its first 5-minute record, stamped at its midnight (covering 23:55 the day before).
      assert.equal(entries[i].timestamp, from.plus({ days: i }).toSeconds());
      assert.equal(p.y, Math.round(entries[i].eRealKwh[0] * 1000) / 1000);
    });
    assert.equal(msg.unit, 'kWh');
    assert.equal(msg.ui_update.chartOptions.yAxis.name, 'kWh');
    assert.equal(msg.ui_update.chartOptions.xAxis.name, 'energy-query.chart.shifted', 'the axis says each day starts 5 minutes early');
    assert.deepEqual(msg.period, { fromTs: from.toSeconds() - 300, toTs: to.toSeconds() - 300, shiftS: -300 });
    const colours = msg.ui_update.chartOptions.color;
    assert.equal(colours.length, device.channels.length);
    assert.equal(new Set(colours).size, colours.length, 'no two series share a colour');
    device.channels.forEach((c, i) => {
      if (CATEGORY_COLOURS[c.categoryId] && device.channels.findIndex((d) => d.categoryId === c.categoryId) === i) assert.equal(colours[i], CATEGORY_COLOURS[c.categoryId]);
    });
  });

  it('converts Joules to the chosen unit and thins a month of hours to maxPoints per series', async () => {
    const fromTs = T0 - 30 * DAY;
    const msg = await chart({ granularity: 'hour', chartUnit: 'kW', maxPoints: 200, fromTs: String(fromTs), toTs: String(T0) });
    const names = [...new Set(msg.payload.map((p) => p.series))];
    assert.deepEqual(names, device.channels.map((c) => `${c.label} (kW)`));
    for (const name of names) {
      const n = msg.payload.filter((p) => p.series === name).length;
      assert.ok(n <= 200 && n >= 190, `${name}: ${n} points`);
    }
    const kwh = await chart({ granularity: 'hour', chartUnit: 'kWh', maxPoints: 0, fromTs: String(T0 - DAY), toTs: String(T0) });
    const entries = await raw({ fromTs: T0 - DAY, toTs: T0, granularity: 'hour', timezone: device.timezone });
    const first = kwh.payload.filter((p) => p.series === `${device.channels[0].label} (kWh)`);
    assert.deepEqual(first.map((p) => p.y), entries.map((e) => Math.round(e.eReal[0] / 3600) / 1000));
    // Each hour labelled with its first record covers 5 minutes before it: its point sits on the clock hour of its middle.
    const hourOf = (e) => DateTime.fromSeconds(e.timestamp - 300 + e.duration / 2, { zone: device.timezone }).startOf('hour').toMillis();
    assert.deepEqual(first.map((p) => p.x), entries.map(hourOf));
    assert.equal(new Date(first[1].x).getUTCMinutes(), 0);
  });

  it('refuses a bad unit or maxPoints before any request', async () => {
    const api = apiConfig(sim);
    await load(nodes, [api.node, { id: 'q', type: 'energy-query', api: 'api', deviceId: device.id, kind: 'long', query: 'range', output: 'chart', wires: [[]] },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' }], api.credentials);
    sim.control.reset();
    for (const [msg, pattern] of [[{ chartUnit: 'MW' }, /msg.chartUnit must be one of W, kW, Wh, kWh/], [{ maxPoints: 1 }, /msg.maxPoints/], [{ reduce: 'median' }, /msg.reduce/]]) {
      const caught = nextMessage(helper.getNode('caught'), 5000);
      helper.getNode('q').receive(msg);
      assert.match((await caught).error.message, pattern);
    }
    assert.equal(sim.control.log().filter((r) => r.path.includes('energy')).length, 0);
  });
});
