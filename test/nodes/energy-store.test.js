'use strict';
// energy-store with its embedded default, SQLite (node:sqlite, Node.js 22.13+), in a real Node-RED runtime behind a
// real energy-query against the simulator over HTTP. On Node.js 20 (Node-RED 4) there is no node:sqlite: the node
// must say so clearly, and that is what runs there.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S,
} = require('../support/env');
const { HAS_SQLITE, tempDir, queryIntoStore, sqliteRows, sumByChannel } = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');
const { EnergyApiClient } = require('../../dist/api');

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
    client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 100, now: () => sim.control.now() * 1000 });
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
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 12 * 3600, toTs: TEST_NOW_S, granularity: '5m', convert: 'kWh' });
    assert.equal(apiRequests(), requests + 1, 'only the test\'s own read reached the service');
    const got = read[0].payload;
    assert.equal(got.length, direct.length);
    for (let i = 0; i < got.length; i += 1) {
      assert.equal(got[i].timestamp, direct[i].timestamp);
      assert.equal(got[i].duration, direct[i].duration);
      got[i].eRealKwh.forEach((v, c) => assert.ok(Math.abs(v - direct[i].eRealKwh[c]) < 1e-9, `entry ${i} channel ${c}`));
    }
    assert.deepEqual([read[0].deviceId, read[0].kind, read[0].granularity, read[0].timezone], [DEVICE, 'long', '5m', SYD]);
  });
});
