'use strict';
// energy-store with its embedded default, SQLite (node:sqlite, Node.js 22.13+), in a real Node-RED runtime behind a
// real energy-query against the simulator over HTTP. On Node.js 20 (Node-RED 4) there is no node:sqlite: the node
// must say so clearly, and that is what runs there.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S, allNodes,
} = require('../support/env');
const {
  HAS_SQLITE, tempDir, queryIntoStore, sqliteRows, sqliteQuery, sumByChannel, linkNodes, serviceClient, assertReadsAsQuery, docsGrafanaQuery, grafanaFlow, writeThreeHours, assertHourly,
} = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');

const DEVICE = SIM_DEVICES.switch6M3SW;
const SYD = 'Australia/Sydney';

describe('energy-store (SQLite)', function () {
  let sim;
  let userDir;

  let client;
  const apiRequests = () => sim.control.log().filter((r) => r.path.startsWith('/v3')).length;

  before(async function () {
    sim = await startClockedSimulator();
    // The test's own view of the service, to compare the store with.
    client = serviceClient(sim);
  });
  after(async function () {
    await client.close();
    await sim.close();
  });
  beforeEach(function (done) {
    userDir = tempDir();
    useSimClock(sim, { userDir });
    startServer(done);
  });
  afterEach(async function () {
    await stopServer();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  /** Sends `msg` to the query and waits for the store's written output. */
  async function writeThrough(nodes, written, msg = {}) {
    const before = written.length;
    nodes.query.receive({ deviceId: DEVICE, ...msg });
    await until(() => written.length > before || nodes.caught.received, 20000, 'the store wrote');
    return written[written.length - 1];
  }

  if (!HAS_SQLITE) {
    it(`says clearly that SQLite needs Node.js 22.13+ (this is Node.js ${process.versions.node}), via Catch and a red status`, async function () {
      const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h' }, {}));
      const statuses = statusesOf(nodes.store);
      const caught = messagesOf(nodes.caught);
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => caught.length === 1, 20000, 'an error at the Catch node');
      assert.match(caught[0].error.message, /needs Node\.js 22\.13 or later \(its built-in node:sqlite\); this Node-RED runs on Node\.js 20\./);
      assert.equal(caught[0].apiError.code, 'STORE_UNAVAILABLE');
      assert.ok(statuses.some((s) => s.fill === 'red' && /Node\.js 22\.13/.test(s.text)), `a red status naming the version: ${JSON.stringify(statuses)}`);
      assert.equal(fs.existsSync(path.join(userDir, 'energy.sqlite')), false, 'no file written');
    });
    return;
  }

  it('writes a range once: the same range again is the same rows, each counted as unchanged', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-6h', toTs: 'now' }, {}));
    const written = messagesOf(nodes.written);
    const first = await writeThrough(nodes, written);
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 6 * 3600, toTs: TEST_NOW_S, granularity: '5m' });
    assert.ok(direct.length > 60);
    assert.equal(first.payload.state, 'written');
    assert.equal(first.payload.entries, direct.length);
    assert.equal(first.payload.rows, direct.length * 6);
    assert.equal(first.payload.changed, direct.length * 6);
    const rows = sqliteRows(path.join(userDir, 'energy.sqlite'));
    assert.equal(rows.length, direct.length * 6);
    const second = await writeThrough(nodes, written);
    assert.equal(second.payload.changed, 0, 'a repeat changes no row');
    assert.deepEqual(sqliteRows(path.join(userDir, 'energy.sqlite')), rows, 'the same rows');
    assert.equal(second.payload.queue.entries, 0);
    assert.equal(nodes.caught.received, undefined);
  });

  it('a re-read in kWh corrects rows a first read left different, and stores Joules', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-2h', toTs: 'now', convert: 'kWh' }, {}));
    const written = messagesOf(nodes.written);
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 7200, toTs: TEST_NOW_S, granularity: '5m' });
    // A first write with the first entry's values off, as a stale read would give.
    const stale = direct.map((e, i) => (i === 0 ? { ...e, eReal: e.eReal.map((v) => v + 1000) } : e));
    nodes.store.receive({ payload: stale, deviceId: DEVICE, kind: 'long', granularity: '5m' });
    await until(() => written.length === 1);
    const reread = await writeThrough(nodes, written);
    assert.equal(reread.payload.changed, 6, 'the six rows of the stale entry corrected, nothing else');
    const rows = sqliteRows(path.join(userDir, 'energy.sqlite'), `ts = ${direct[0].timestamp}`);
    assert.deepEqual(rows.map((r) => Math.round(r.e_real)), direct[0].eReal);
  });

  it('reads back what energy-query would answer, as entries, in kWh, without a request to the service', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-12h', toTs: 'now' }, {}));
    const written = messagesOf(nodes.written);
    const read = messagesOf(nodes.read);
    await writeThrough(nodes, written);
    const requests = apiRequests();
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, kind: 'long', fromTs: '-12h', toTs: 'now', convert: 'kWh' });
    await until(() => read.length === 1);
    // Counted before the test's own read: on a loaded host that read may time out and be retried.
    assert.equal(apiRequests(), requests, 'the store\'s read made no request to the service');
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 12 * 3600, toTs: TEST_NOW_S, granularity: '5m', convert: 'kWh' });
    const got = read[0].payload;
    assert.equal(got.length, direct.length);
    for (let i = 0; i < got.length; i += 1) {
      assert.equal(got[i].timestamp, direct[i].timestamp);
      assert.equal(got[i].duration, direct[i].duration);
      got[i].eRealKwh.forEach((v, c) => assert.ok(Math.abs(v - direct[i].eRealKwh[c]) < 1e-9, `entry ${i} channel ${c}`));
    }
    assert.deepEqual([read[0].deviceId, read[0].kind, read[0].granularity, read[0].timezone], [DEVICE, 'long', '5m', SYD]);
  });

  it('reads back at the stored granularity exactly what energy-query answers for the same range, entry for entry', async function () {
    const flow = queryIntoStore({}, {});
    flow[0].wires = [['store', 'queried']];
    const nodes = await flowWith(sim, flow);
    // Rows are stamped at the END of their period: [10:00, 13:00) is the 5-minute entries stamped 10:05 … 13:00.
    const from = Date.UTC(2026, 6, 14, 10, 0, 0) / 1000;
    const fiveMinutes = await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: '5m', fromTs: from, toTs: from + 3 * 3600, margin: 3600 });
    assert.equal(fiveMinutes.answer.length, 36);
    assert.deepEqual([fiveMinutes.answer[0].timestamp, fiveMinutes.answer.at(-1).timestamp], [from + 300, from + 3 * 3600]);
    await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: 'hour', fromTs: from, toTs: from + 6 * 3600, margin: 2 * 3600 });
    await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: '15m', fromTs: from, toTs: from + 3 * 3600, margin: 3600 });
    // Short energy is selected by stamp, fromTs <= timestamp < toTs, as the service selects it.
    const recent = Date.UTC(2026, 6, 14, 23, 0, 0) / 1000;
    await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'short', fromTs: recent, toTs: recent + 1800, margin: 600 });
    assert.equal(nodes.caught.received, undefined);
  });

  it('the Grafana hourly query of docs/energy-store.md puts each hour\'s energy in that hour, not the next', async function () {
    const nodes = await flowWith(sim, grafanaFlow({}));
    const { from, to, hours, expected } = await writeThreeHours(nodes, DEVICE);
    const rows = sqliteQuery(path.join(userDir, 'energy.sqlite'), docsGrafanaQuery('sqlite', from, to));
    assert.equal(rows.length, 3 * 6, 'three hours of six channels');
    assertHourly(rows.map((r) => ({ hour: r.time, channel: Number(r.metric.slice(1)), kwh: r.kwh })), expected, hours);
  });

  it('reads back a chart: hours summed from 5-minute rows in the device\'s timezone, series named by msg.device, at most maxPoints', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-2d', toTs: 'now', output: 'pages' }, {}));
    const written = messagesOf(nodes.written);
    const read = messagesOf(nodes.read);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length >= 1 && written.reduce((n, m) => n + m.payload.entries, 0) > 500);
    const device = await client.getDevice(DEVICE);
    const requests = apiRequests();
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, fromTs: '-2d', toTs: 'now', granularity: 'hour', output: 'chart', chartUnit: 'kWh', maxPoints: 24, device, timezone: SYD });
    await until(() => read.length === 1);
    assert.equal(apiRequests(), requests, 'no request to the service');
    const msg = read[0];
    assert.equal(msg.unit, 'kWh');
    assert.equal(msg.action, 'replace');
    assert.deepEqual([...new Set(msg.payload.map((p) => p.series))], device.channels.map((c) => `${c.label || c.id} (kWh)`));
    const perSeries = (name) => msg.payload.filter((p) => p.series === name);
    assert.ok(perSeries(msg.payload[0].series).length <= 24, 'maxPoints per series');
    // Energy is summed when reduced: the chart's total per channel is the 5-minute entries' total.
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 2 * 86400, toTs: TEST_NOW_S, granularity: '5m' });
    const kwh = sumByChannel(direct).map((j) => j / 3.6e6);
    device.channels.forEach((c, i) => {
      const total = perSeries(`${c.label || c.id} (kWh)`).reduce((n, p) => n + p.y, 0);
      assert.ok(Math.abs(total - kwh[i]) < 0.03, `channel ${i + 1}: chart ${total} kWh, entries ${kwh[i]} kWh`);
    });
  });

  it('reads back by local day with DST-exact periods and msg.channels, each entry stamped at the end of its day', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-3d', toTs: 'now', output: 'pages' }, {}));
    const written = messagesOf(nodes.written);
    const read = messagesOf(nodes.read);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length >= 1 && written.reduce((n, m) => n + m.payload.entries, 0) > 800);
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, fromTs: '-3d', toTs: 'now', granularity: 'day', channels: 'C1,C2', convert: 'kWh' });
    await until(() => read.length === 1);
    const days = read[0].payload;
    assert.equal(read[0].timezone, SYD, 'the timezone energy-query named when it wrote');
    assert.ok(days.length === 3 || days.length === 4);
    const whole = days.slice(1, -1);
    assert.ok(whole.every((d) => d.duration === 86400 && new Date(d.timestamp * 1000).toLocaleTimeString('en-GB', { timeZone: SYD, hourCycle: 'h23' }) === '00:00:00'), JSON.stringify(whole.map((d) => [d.timestamp, d.duration])));
    assert.ok(days.every((d) => d.eRealKwh.length === 2));
  });

  it('bad input: not energy entries, or one bad entry among good ones, reaches Catch with the reason and writes nothing', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, {}));
    const caught = messagesOf(nodes.caught);
    const statuses = statusesOf(nodes.store);
    const good = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 3600, toTs: TEST_NOW_S, granularity: '5m' });
    const cases = [
      [{ payload: [{ series: 'Grid (kW)', x: 1, y: 2 }], deviceId: DEVICE, kind: 'long' }, /chart point \(energy-query's chart output\)/],
      [{ payload: 'hello', deviceId: DEVICE, kind: 'long' }, /msg\.payload must be energy entries/],
      [{ payload: [...good.slice(0, 5), { ...good[5], eReal: [1, 'x'] }], deviceId: DEVICE, kind: 'long', granularity: '5m' }, /msg\.payload\[5\]\.eReal\[1\] must be a number or null/],
      // Stored, it would be three channels with NULLs: one value per channel in every field, or nothing is written.
      [{ payload: [...good.slice(0, 5), { ...good[5], eReal: good[5].eReal.slice(0, 3) }], deviceId: DEVICE, kind: 'long', granularity: '5m' }, /msg\.payload\[5\]: its channel arrays differ in length \(eReal has 3 values, eRealPositive 6\)/],
      [{ payload: [{ ...good[0], vRMSMax: [230, 231] }], deviceId: DEVICE, kind: 'long', granularity: '5m' }, /msg\.payload\[0\]: its channel arrays differ in length \(eReal has 6 values, vRMSMax 2\)/],
      [{ payload: good, deviceId: DEVICE }, /msg\.kind must be "short" or "long"/],
      [{ payload: good, deviceId: 'nope', kind: 'long' }, /device/i],
    ];
    for (const [msg, reason] of cases) {
      const before = caught.length;
      nodes.store.receive(msg);
      await until(() => caught.length === before + 1);
      assert.match(caught.at(-1).error.message, reason);
      assert.ok(caught.at(-1).apiError);
      // A msg the store cannot use, not a request to the energy API (a device id is read by the client's own check).
      assert.equal(caught.at(-1).apiError.code, msg.deviceId === 'nope' ? 'INVALID_REQUEST' : 'BAD_MSG', String(reason));
    }
    assert.ok(statuses.some((s) => s.fill === 'red'));
    assert.equal(fs.existsSync(path.join(userDir, 'energy-store', 'store', 'queue')) ? fs.readdirSync(path.join(userDir, 'energy-store', 'store', 'queue')).length : 0, 0, 'nothing queued');
    // The store answers a read once it has opened its file (made it, switched it to WAL, made the tables): only
    // then may the test read the file itself. Before, on a busy host, it found no file, no table, or it locked.
    const read = messagesOf(nodes.read);
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, kind: 'long', fromTs: '-1h', toTs: 'now' });
    await until(() => read.length === 1);
    assert.deepEqual(read[0].payload, [], 'nothing written, read through the node');
    assert.deepEqual(sqliteRows(path.join(userDir, 'energy.sqlite')), [], 'nothing written');
  });

  it('resume: the first trigger of a follow query starts one second after the newest entry the store holds', async function () {
    const flow = queryIntoStore({ fromTs: '-1h', toTs: 'now', follow: true }, {});
    flow[1].wires[2] = ['query'];
    const nodes = await flowWith(sim, flow);
    const written = messagesOf(nodes.written);
    nodes.store.receive({ topic: 'resume' });
    await until(() => written.length === 0 && nodes.query.context().keys().length === 0);
    // An empty store passes the msg on unchanged: the query follows from its own fromTs (and needs its device).
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 1);
    const newest = written[0].payload.newest;
    // Six hours later, with the follow's state gone (a restart with memory context):
    sim.control.setClock({ advance: 6 * 3600 });
    await helper.unload();
    const again = await flowWith(sim, flow);
    const out = messagesOf(again.written);
    const firstReads = [];
    again.query.on('input', (m) => firstReads.push(m.fromTs));
    again.store.receive({ topic: 'resume' });
    await until(() => out.length === 1);
    assert.deepEqual(firstReads, [newest + 1]);
    assert.equal(out[0].payload.entries, (await client.getLongEnergy(DEVICE, { fromTs: newest, toTs: TEST_NOW_S + 6 * 3600, granularity: '5m' })).filter((e) => e.timestamp > newest).length);
    sim.control.setClock({ advance: -6 * 3600 });
  });

  it('answers a dynamic link call, as the Energy dashboard\'s history page calls it, with what the store holds', async function () {
    const flow = [
      ...queryIntoStore({ fromTs: '-1d', toTs: 'now' }, {}),
      { id: 'history-in', type: 'link in', name: 'energy history', links: [], wires: [['store']] },
      { id: 'call', type: 'link call', links: [], linkType: 'dynamic', timeout: '10', wires: [['answer']] },
    ];
    flow[1].wires[1] = ['back'];
    // Not id "return": the test helper starts every node as a config node, and one whose property equals its own id waits for itself.
    flow.push({ id: 'back', type: 'link out', mode: 'return', links: [], wires: [] });
    const nodes = await flowWith(sim, flow, { modules: [...allNodes(), linkNodes()] });
    const written = messagesOf(nodes.written);
    const answers = messagesOf(nodes.answer);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 1);
    const held = written[0].payload.held;
    assert.deepEqual(held, { fromTs: written[0].payload.newest - (written[0].payload.entries - 1) * 300, toTs: written[0].payload.newest });
    nodes.call.receive({ target: 'energy history', topic: 'read', deviceId: DEVICE, fromTs: '-12h', toTs: 'now', granularity: 'hour', convert: 'kWh', output: 'chart', chartUnit: 'kWh' });
    await until(() => answers.length === 1);
    assert.ok(answers[0].payload.length >= 12 * 6);
    assert.deepEqual(answers[0].stored, held);
    assert.equal(answers[0].granularity, 'hour');
  });
});

