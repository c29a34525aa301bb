'use strict';
// energy-store on InfluxDB: the v1 API against a real InfluxDB 1.6 (Debian's influxd on a free loopback port, with
// authentication on), and the v2 and v3 write paths against a strict recording server built from InfluxData's
// documentation (test/support/influx-recorder.js: neither Debian nor npm has InfluxDB 2 or 3).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S,
} = require('../support/env');
const { startInflux, INFLUXD } = require('../support/influx-server');
const { startInfluxRecorder } = require('../support/influx-recorder');
const {
  requireServer, tempDir, queryIntoStore, sumByChannel, serviceClient, assertReadsAsQuery, docsGrafanaQuery, grafanaFlow, writeThreeHours, assertHourly,
} = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');

const DEVICE = SIM_DEVICES.switch6M3SW;

describe('energy-store (InfluxDB)', function () {
  this.timeout(60000);
  let sim;
  let client;
  let userDir;

  before(async function () {
    sim = await startClockedSimulator();
    client = serviceClient(sim);
  });
  after(async function () {
    await client?.close();
    await sim?.close();
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

  const queueFiles = () => {
    const dir = path.join(userDir, 'energy-store', 'store', 'queue');
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  };

  describe('InfluxDB 1 (real influxd, v1 /write and /query)', function () {
    let influx;
    before(async function () {
      requireServer(this, INFLUXD, 'InfluxDB (influxdb)');
      influx = await startInflux({ auth: true });
    });
    after(async function () { await influx?.destroy(); });
    beforeEach(async function () {
      await influx.start();
      await influx.query('DROP DATABASE energy');
    });

    const v1 = (extra = {}) => ({ backend: 'influxdb', influxApi: 'v1', url: influx.url, database: 'energy', ...extra });
    const creds = (password = influx.admin.password) => ({ api: { apiKey: sim.keys.full }, store: { user: influx.admin.user, password } });

    it('writes one point per entry and channel, a repeat is the same points, and reads back what the service has', async function () {
      const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-6h', toTs: 'now' }, v1()), { credentials: creds() });
      const written = messagesOf(nodes.written);
      const read = messagesOf(nodes.read);
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => written.length === 1);
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => written.length === 2);
      const count = await influx.query('SELECT count(e_real) FROM energy GROUP BY channel', 'energy');
      const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 6 * 3600, toTs: TEST_NOW_S, granularity: '5m' });
      assert.deepEqual(count.results[0].series.map((s) => s.values[0][1]), Array(6).fill(direct.length));
      nodes.store.receive({ topic: 'read', deviceId: DEVICE, fromTs: '-6h', toTs: 'now', granularity: 'hour' });
      await until(() => read.length === 1);
      const hours = read[0].payload;
      assert.ok(hours.length >= 6 && hours.length <= 7);
      const stored = sumByChannel(hours);
      sumByChannel(direct).forEach((j, c) => assert.ok(Math.abs(j - stored[c]) < 1, `channel ${c + 1}`));
      assert.equal(nodes.caught.received, undefined);
    });

    it('reads back at the stored granularity exactly what energy-query answers for the same range, entry for entry', async function () {
      const flow = queryIntoStore({}, v1());
      flow[0].wires = [['store', 'queried']];
      const nodes = await flowWith(sim, flow, { credentials: creds() });
      const from = Date.UTC(2026, 6, 14, 10, 0, 0) / 1000;
      const { answer } = await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: '5m', fromTs: from, toTs: from + 3 * 3600, margin: 3600 });
      assert.deepEqual([answer.length, answer[0].timestamp, answer.at(-1).timestamp], [36, from + 300, from + 3 * 3600]);
      await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'long', granularity: 'hour', fromTs: from, toTs: from + 6 * 3600, margin: 2 * 3600 });
      const recent = Date.UTC(2026, 6, 14, 23, 0, 0) / 1000;
      await assertReadsAsQuery(nodes, { deviceId: DEVICE, kind: 'short', fromTs: recent, toTs: recent + 1800, margin: 600 });
      assert.equal(nodes.caught.received, undefined);
    });

    it('the Grafana hourly query of docs/energy-store.md puts each hour\'s energy in that hour, not the next', async function () {
      const nodes = await flowWith(sim, grafanaFlow(v1()), { credentials: creds() });
      const { from, to, hours, expected } = await writeThreeHours(nodes, DEVICE);
      const answer = await influx.query(docsGrafanaQuery('influxql', from, to), 'energy');
      // Each hour is labelled one second after it starts (time(1h, 1s)); the panel's first second adds the row stamped
      // at its start, which belongs to the hour before.
      const rows = answer.results[0].series.flatMap((s) => s.values.map(([time, kwh]) => ({ hour: time - 1, channel: Number(s.tags.channel), kwh })));
      assert.deepEqual([...new Set(rows.map((r) => r.hour))].sort(), [from - 3600, ...hours]);
      assertHourly(rows, expected, hours);
    });

    it('wrong credentials: 401 to Catch with the reason, red status, the batch kept in the queue, no password shown', async function () {
      const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, v1()), { credentials: creds('wrong-password-x') });
      const caught = messagesOf(nodes.caught);
      const statuses = statusesOf(nodes.store);
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => caught.length === 1);
      assert.match(caught[0].error.message, /InfluxDB answered \/query with 401: authorization failed \(check the credentials\)/);
      assert.ok(statuses.some((s) => s.fill === 'red'));
      assert.equal(queueFiles().length, 1);
      const text = JSON.stringify([caught, statuses, helper.log().args]);
      assert.ok(!text.includes('wrong-password-x') && !text.includes(influx.admin.password));
    });

    it('a measurement whose fields are of another type is refused (field type conflict) and the batch stays queued', async function () {
      await influx.query('CREATE DATABASE energy');
      const seed = await fetch(`${influx.url}/write?db=energy&precision=s`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`${influx.admin.user}:${influx.admin.password}`).toString('base64')}` },
        body: `energy,channel=1,device=${DEVICE},granularity=5m,kind=long e_real="text" ${TEST_NOW_S - 1800}`, // field types are kept per shard: the same week
      });
      assert.equal(seed.status, 204);
      const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, v1()), { credentials: creds() });
      const caught = messagesOf(nodes.caught);
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => caught.length === 1);
      assert.match(caught[0].error.message, /InfluxDB answered \/write with 400: .*field type conflict/);
      assert.equal(caught[0].apiError.code, 'STORE_REFUSED');
      assert.equal(queueFiles().length, 1);
    });

    it('InfluxDB down: entries queue on disk and are written in order when it is back', async function () {
      const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, v1()), { credentials: creds() });
      const written = messagesOf(nodes.written);
      const statuses = statusesOf(nodes.store);
      await until(() => statuses.some((s) => s.fill === 'green'));
      await influx.stop();
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => written.length === 1);
      assert.equal(written[0].payload.state, 'queued');
      assert.ok(statuses.some((s) => s.fill === 'yellow' && /energy-store.status.unreachable/.test(s.text)), JSON.stringify(statuses));
      await influx.start();
      nodes.query.receive({ deviceId: DEVICE });
      await until(() => written.length === 2);
      await until(() => queueFiles().length === 0);
      const count = await influx.query('SELECT count(e_real) FROM energy', 'energy');
      assert.equal(count.results[0].series[0].values[0][1], written[0].payload.rows);
    });
  });

  describe('InfluxDB 2 and 3 (a strict recording server built from their documentation)', function () {
    let rec;
    beforeEach(async function () { rec = await startInfluxRecorder(); });
    afterEach(async function () { await rec.close(); });

    for (const api of ['v2', 'v3']) {
      const props = () => (api === 'v2'
        ? { backend: 'influxdb', influxApi: 'v2', url: rec.url, org: rec.org, bucket: rec.bucket }
        : { backend: 'influxdb', influxApi: 'v3', url: rec.url, database: rec.database });

      it(`${api}: line protocol at second precision with the token, one point per entry and channel`, async function () {
        const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-2h', toTs: 'now', convert: 'kWh' }, props()), { credentials: { api: { apiKey: sim.keys.full }, store: { token: rec.token } } });
        const written = messagesOf(nodes.written);
        nodes.query.receive({ deviceId: DEVICE });
        await until(() => written.length === 1);
        nodes.query.receive({ deviceId: DEVICE });
        await until(() => written.length === 2);
        const direct = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 7200, toTs: TEST_NOW_S, granularity: '5m' });
        assert.equal(rec.points.size, direct.length * 6, 'a repeat overwrote its points');
        const req = rec.requests.at(-1);
        if (api === 'v2') {
          assert.deepEqual([req.path, req.query, req.authorization], ['/api/v2/write', { org: rec.org, bucket: rec.bucket, precision: 's' }, `Token ${rec.token}`]);
        } else {
          assert.deepEqual([req.path, req.query, req.authorization], ['/api/v3/write_lp', { db: rec.database, precision: 'second', accept_partial: 'false' }, `Bearer ${rec.token}`]);
        }
        assert.match(req.contentType, /^text\/plain/);
        const point = rec.points.get(`energy,channel=2,device=${DEVICE},granularity=5m,kind=long ${direct[0].timestamp * 1e9}`);
        assert.equal(point.fields.e_real.value, direct[0].eReal[1], 'Joules, from the kWh the query gave');
        assert.equal(point.fields.duration.type, 'float');
      });

      it(`${api}: a wrong token is refused (401) to Catch, the batch kept`, async function () {
        const nodes = await flowWith(sim, queryIntoStore({ fromTs: '-1h', toTs: 'now' }, props()), { credentials: { api: { apiKey: sim.keys.full }, store: { token: 'wrong-token' } } });
        const caught = messagesOf(nodes.caught);
        nodes.query.receive({ deviceId: DEVICE });
        await until(() => caught.length === 1);
        assert.match(caught[0].error.message, /with 401: unauthorized access \(check the credentials\)/);
        assert.equal(queueFiles().length, 1);
        assert.equal(rec.points.size, 0);
      });
    }
  });
});

describe('energy-store (InfluxDB): line protocol bodies', function () {
  const { lineBodies } = require('../../dist/nodes/energy-store/backends/line-protocol');
  const batch = (device, from, count) => ({
    device, kind: 'long', granularity: '5m', entries: count, newest: from + count * 300,
    rows: Array.from({ length: count }, (_, i) => [1, from + (i + 1) * 300, 300, null, 1000 + i, null, null, null, null, null, null, null, null, null, null, null]),
  });

  it('cuts the batches into bodies of at most the size, every row once and in order, built one body at a time', function () {
    const batches = [batch('D000000000001', 0, 3000), batch('D000000000002', 0, 4000), batch('D000000000003', 0, 10)];
    const bodies = lineBodies(batches, 5000);
    const first = bodies.next().value;
    assert.equal(first.lines, 5000);
    const rest = [...bodies];
    assert.deepEqual(rest.map((b) => b.lines), [2010]);
    const lines = [first, ...rest].flatMap((b) => b.body.split('\n'));
    assert.equal(lines.length, 7010);
    assert.match(lines[0], /^energy,channel=1,device=D000000000001,granularity=5m,kind=long duration=300,e_real=1000 300$/);
    assert.match(lines[3000], /device=D000000000002.* 300$/);
    assert.match(lines[7009], /device=D000000000003.*e_real=1009 3000$/);
    assert.deepEqual([...lineBodies([], 5000)], []);
  });
});
