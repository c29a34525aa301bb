'use strict';
// energy-store against a real PostgreSQL (Debian's, initdb in a temporary folder, a free loopback port, password
// authentication), behind a real energy-query against the simulator, on a clock the test controls. The database
// is stopped and started for real; Node-RED is stopped by unloading the flow and started by loading it again.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S,
} = require('../support/env');
const { startPostgres, POSTGRES_BIN_DIR } = require('../support/postgres-server');
const { requireServer, tempDir, queryIntoStore, serviceClient, assertReadsAsQuery, docsGrafanaQuery, grafanaFlow, writeThreeHours, assertHourly } = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');

const DEVICE = SIM_DEVICES.switch6M3SW;

describe('energy-store (PostgreSQL)', function () {
  this.timeout(120000);
  let sim;
  let pg;
  let client;
  let userDir;

  before(async function () {
    requireServer(this, POSTGRES_BIN_DIR, 'PostgreSQL (postgresql)');
    pg = await startPostgres();
    sim = await startClockedSimulator();
    client = serviceClient(sim);
  });
  after(async function () {
    await client?.close();
    await sim?.close();
    await pg?.destroy();
  });
  beforeEach(async function () {
    sim.control.setClock({ now: TEST_NOW_S });
    userDir = tempDir();
    await pg.query('DROP TABLE IF EXISTS energy, energy_streams');
    useSimClock(sim, { userDir });
    await new Promise((resolve) => startServer(resolve));
  });
  afterEach(async function () {
    await stopServer();
    fs.rmSync(userDir, { recursive: true, force: true });
    if (pg) await pg.start().catch(() => undefined); // a test that stopped it leaves it running for the next
  });


  /** Rows in the energy table; 0 while the store has not created it. */
  async function countRows(what = 'count(*)') {
    const [{ t }] = await pg.query("SELECT to_regclass('energy') AS t");
    return t ? (await pg.query(`SELECT ${what}::int AS n FROM energy`))[0].n : 0;
  }
  const entriesIn = async (fromTs, toTs) => (await client.getLongEnergy(DEVICE, { fromTs, toTs, granularity: '5m' })).length;

  const storeProps = (extra = {}) => ({ backend: 'postgres', connection: pg.connection, ...extra });
  const credentials = (password = pg.password) => ({ api: { apiKey: sim.keys.full }, store: { password } });
  const queueFiles = () => {
    const dir = path.join(userDir, 'energy-store', 'store', 'queue');
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  };

  it('the same range written twice gives the same rows', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1d', toTs: 'now', output: 'pages' }, storeProps()), { credentials: credentials() });
    const written = messagesOf(nodes.written);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 1 && written[0].payload.state === 'written');
    const first = await pg.query('SELECT * FROM energy ORDER BY ts, channel');
    const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 86400, toTs: TEST_NOW_S, granularity: '5m' });
    assert.equal(first.length, direct.length * 6);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 2);
    assert.equal(written[1].payload.changed, 0);
    assert.deepEqual(await pg.query('SELECT * FROM energy ORDER BY ts, channel'), first);
    assert.equal(nodes.caught.received, undefined);
  });

  it('reads back at the stored granularity exactly what energy-query answers for the same range, entry for entry', async function () {
    const flow = queryIntoStore({}, storeProps());
    flow[0].wires = [['store', 'queried']];
    const nodes = await flowWith(sim, flow, { credentials: credentials() });
    const from = Date.UTC(2026, 6, 14, 10, 0, 0) / 1000;
    const { answer } = await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: '5m', fromTs: from, toTs: from + 3 * 3600, margin: 3600 });
    assert.deepEqual([answer.length, answer[0].timestamp, answer.at(-1).timestamp], [36, from + 300, from + 3 * 3600]);
    await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: 'hour', fromTs: from, toTs: from + 6 * 3600, margin: 2 * 3600 });
    const recent = Date.UTC(2026, 6, 14, 23, 0, 0) / 1000;
    await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'short', fromTs: recent, toTs: recent + 1800, margin: 600 });
    assert.equal(nodes.caught.received, undefined);
  });

  it('the Grafana hourly query of docs/energy-store.md puts each hour\'s energy in that hour, not the next', async function () {
    const nodes = await flowWith(sim, grafanaFlow(storeProps()), { credentials: credentials() });
    const { from, to, hours, expected } = await writeThreeHours(nodes, DEVICE);
    const rows = await pg.query(docsGrafanaQuery('postgresql', from, to));
    assert.equal(rows.length, 3 * 6, 'three hours of six channels');
    assertHourly(rows.map((r) => ({ hour: Number(r.time), channel: Number(r.metric.slice(1)), kwh: r.kwh })), expected, hours);
  });

  it('a read of a range reaching far past what the store holds answers at once (found by the fuzz: toTs in the year 275760 ran out of memory)', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-2h', toTs: 'now' }, storeProps()), { credentials: credentials() });
    const written = messagesOf(nodes.written);
    const read = messagesOf(nodes.read);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 1 && written[0].payload.state === 'written');
    const held = await entriesIn(TEST_NOW_S - 7200, TEST_NOW_S);
    const started = Date.now();
    // 8.64e15 ms is the last instant a JavaScript Date holds: as 6-hour or 1-day windows from 1970, billions of reads.
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, kind: 'long', fromTs: 0, toTs: 8.64e15 });
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, kind: 'long', granularity: 'hour', fromTs: 0, toTs: 8.64e15, timezone: 'UTC' });
    nodes.store.receive({ topic: 'read', deviceId: DEVICE, kind: 'short', fromTs: '-10y', toTs: 8.64e15 });
    await until(() => read.length === 3, 10000, 'three answers');
    assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`);
    const answer = (kind, granularity) => read.find((m) => m.kind === kind && m.granularity === granularity).payload;
    assert.equal(answer('long', '5m').length, held, 'every 5-minute entry held');
    // The hours the 2 hours of rows fall in (the first and last cut to them), summed from the same rows.
    const sum = (entries) => entries.reduce((a, e) => a + e.eReal.reduce((x, y) => x + y, 0), 0);
    assert.ok([2, 3].includes(answer('long', 'hour').length), `${answer('long', 'hour').length} hours`);
    assert.equal(sum(answer('long', 'hour')), sum(answer('long', '5m')));
    assert.deepEqual(answer('short', undefined), [], 'no short energy held');
    assert.equal(nodes.caught.received, undefined);
  });

  it('wrong credentials: a clear error to Catch, a red status, nothing written, the entries kept in the queue', async function () {
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, storeProps()), { credentials: credentials('not-the-password') });
    const caught = messagesOf(nodes.caught);
    const statuses = statusesOf(nodes.store);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => caught.length === 1, 20000, 'an error at Catch');
    assert.match(caught[0].error.message, /PostgreSQL refused: password authentication failed for user "postgres" \(28P01\)/);
    assert.equal(caught[0].apiError.code, 'STORE_REFUSED');
    assert.ok(statuses.some((s) => s.fill === 'red' && /password authentication/.test(s.text)), JSON.stringify(statuses));
    assert.equal(queueFiles().length, 1, 'the batch waits on disk');
    assert.equal((await pg.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'energy'"))[0].n, 0, 'nothing written');
    const text = JSON.stringify([caught, statuses, helper.log().args]);
    assert.ok(!text.includes('not-the-password') && !text.includes(pg.password), 'no password in errors, status or log');

    // Redeployed with the right password, the kept batch is written.
    await helper.unload();
    const fixed = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, storeProps()), { credentials: credentials() });
    const fixedStatus = statusesOf(fixed.store);
    await until(async () => (await countRows()) > 0, 20000, 'the queued batch written');
    await until(() => queueFiles().length === 0);
    assert.equal(await countRows('count(DISTINCT ts)'), await entriesIn(TEST_NOW_S - 3600, TEST_NOW_S));
    await until(() => fixedStatus.some((s) => s.fill === 'green'));
  });

  it('a table of another shape is refused with the columns it lacks, and the queue is kept', async function () {
    await pg.query('CREATE TABLE energy (device text, ts bigint, value double precision)');
    const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, storeProps()), { credentials: credentials() });
    const caught = messagesOf(nodes.caught);
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => caught.length === 1, 20000, 'an error at Catch');
    assert.match(caught[0].error.message, /the table "energy" has other columns than the store's \(missing kind, granularity, channel/);
    assert.equal(queueFiles().length, 1);
    assert.deepEqual(await pg.query('SELECT * FROM energy'), [], 'nothing half written');
  });

  it('the queue survives a restart: entries queued while the database is down are written once after Node-RED and the database are back', async function () {
    const flow = queryIntoStore({ fromTs: '-1h', toTs: 'now' }, storeProps());
    let nodes = await flowWith(sim, flow, { credentials: credentials() });
    let written = messagesOf(nodes.written);
    await pg.stop();
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 1);
    assert.equal(written[0].payload.state, 'queued');
    sim.control.setClock({ advance: 3600 });
    nodes.query.receive({ deviceId: DEVICE });
    await until(() => written.length === 2);
    const queued = written[0].payload.entries + written[1].payload.entries;
    assert.equal(written[1].payload.queue.entries, queued);
    assert.equal(queued, (await entriesIn(TEST_NOW_S - 3600, TEST_NOW_S)) + (await entriesIn(TEST_NOW_S, TEST_NOW_S + 3600)));
    assert.equal(queueFiles().length, 2);

    await helper.unload(); // Node-RED stops with the database still down
    assert.equal(queueFiles().length, 2, 'the queue is on disk');
    await pg.start();
    nodes = await flowWith(sim, flow, { credentials: credentials() });
    written = messagesOf(nodes.written);
    await until(() => queueFiles().length === 0, 20000, 'the queue written');
    const rows = await pg.query('SELECT ts, channel, count(*)::int AS n FROM energy GROUP BY ts, channel');
    assert.equal(rows.length, queued * 6);
    assert.ok(rows.every((r) => r.n === 1));
    assert.equal(nodes.caught.received, undefined);
  });

  it('a bounded queue: size and age in the status, a warning past 80 %, and a full queue refuses new entries to Catch', async function () {
    const flow = queryIntoStore({ fromTs: '-1d', toTs: 'now' }, storeProps({ queueLimit: 1 }));
    const nodes = await flowWith(sim, flow, { credentials: credentials() });
    const written = messagesOf(nodes.written);
    const caught = messagesOf(nodes.caught);
    const statuses = statusesOf(nodes.store);
    await until(() => statuses.some((s) => s.fill === 'green'));
    await pg.stop();
    // A day of 5-minute entries is about 170 kB queued: the sixth passes 80 % of 1 MB, the seventh does not fit.
    for (let day = 0; caught.length === 0 && day < 10; day += 1) {
      const before = written.length;
      sim.control.setClock({ advance: 86400 });
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => written.length > before || caught.length > 0);
    }
    assert.equal(caught.length, 1);
    assert.match(caught[0].error.message, /the disk queue is full \(\d\.\d MB of 1\.0 MB\): these \d+ entries were not stored/);
    assert.equal(caught[0].apiError.code, 'QUEUE_FULL');
    const warnings = helper.log().args.map((a) => a[0]).filter((e) => e.level === helper.log().WARN && e.id === 'store').map((e) => String(e.msg));
    assert.ok(warnings.some((w) => /energy-store\.warn\.queueFull/.test(w)), `a warning past 80 %: ${warnings}`);
    assert.ok(statuses.some((s) => s.fill === 'yellow' && /energy-store\.status\.queued/.test(s.text) && /energy-store\.status\.full/.test(s.text)), JSON.stringify(statuses.slice(-3)));
    const queued = written.filter((m) => m.payload.state === 'queued');
    assert.ok(queued.length >= 5);
    assert.ok(queued.at(-1).payload.queue.full > 0.8);
    assert.ok(queued.at(-1).payload.queue.ageS >= 86400 * (queued.length - 1), 'the age on the store\'s clock');
    // The database back: everything that was queued is written, once; the refused day is not there.
    await pg.start();
    nodes.query.receive({ deviceId: DEVICE, fromTs: '-1h' });
    await until(() => queueFiles().length === 0, 20000, 'the queue written');
    const stored = await countRows('count(DISTINCT ts)');
    assert.equal(written.at(-1).payload.state, 'written');
    assert.equal(stored, queued.reduce((n, m) => n + m.payload.entries, 0) + written.at(-1).payload.entries);
  });
});

