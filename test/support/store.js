'use strict';
// What the energy-store tests share: a user directory per test, the store's flow beside an energy-query, and
// reading the database a test wrote with the database's own client (not with the node under test).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { sqliteProblem } = require('../../dist/nodes/energy-store/backends/sqlite.js');
const { skipBecause } = require('./skip');

/** node:sqlite is there (Node.js 22.13+): the SQLite tests run; on Node.js 20 the clear-error test runs instead. */
const HAS_SQLITE = sqliteProblem() === undefined;

function tempDir(prefix = 'energy-store-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** An energy-query wired into an energy-store (id "store"), whose three outputs go to helpers written/read/resume. */
function queryIntoStore(query, store) {
  return [
    { id: 'query', type: 'energy-query', api: 'api', kind: 'long', query: 'range', granularity: '5m', output: 'entries', maxRequests: 200, wires: [['store']], ...query },
    { id: 'store', type: 'energy-store', backend: 'sqlite', file: 'energy.sqlite', retention: 0, queueLimit: 100, wires: [['written'], ['read'], ['resume']], ...store },
  ];
}

/** The rows a SQL statement answers on a SQLite file, read with node:sqlite directly. */
function sqliteQuery(file, sql) {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    // WAL readers wait only for a checkpoint or recovery of the store's connection: wait for it, do not fail.
    db.exec('PRAGMA busy_timeout = 10000');
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** Rows of the `energy` table of a SQLite file. */
function sqliteRows(file, where = '1 = 1') {
  return sqliteQuery(file, `SELECT * FROM energy WHERE ${where} ORDER BY device, kind, granularity, ts, channel`);
}

/** Sum of eReal per channel (Joules) of entries. */
function sumByChannel(entries, field = 'eReal') {
  const sums = [];
  for (const e of entries) (e[field] || []).forEach((v, i) => { sums[i] = (sums[i] || 0) + (v || 0); });
  return sums;
}

/**
 * In a mocha before(): skips the suite with one line when a database server is not installed here, but fails
 * in CI (CI=true), where .ci/run installs it: a missing server must never pass as a skip there.
 */
function requireServer(ctx, present, what) {
  if (present) return;
  if (process.env.CI) throw new Error(`${what} is not installed: .ci/run installs it (apt-get), so CI cannot skip these tests`);
  skipBecause(ctx, `${what} is not installed here (CI installs it)`);
}

/** Node-RED's core link nodes (link in, link out, link call) of the runtime under test, to load beside the package's. */
function linkNodes() {
  return require('./node-red').nodeRedModule('@node-red/nodes/core/common/60-link.js');
}

/** The test's own view of the service (to compare the store with), on the simulator's clock, not the node's limiter. */
function serviceClient(sim) {
  const { EnergyApiClient } = require('../../dist/api');
  return new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 100, now: () => sim.control.now() * 1000 });
}

/**
 * The store reads a range as energy-query reads it. `nodes` run queryIntoStore's flow with the query also wired to
 * a helper "queried". The store first gets a wider range than is read (rows beyond both ends, where a read that is
 * one period off shows it), then energy-query and the store are each asked for [fromTs, toTs): the store must
 * answer entry for entry what energy-query answered. Returns both answers.
 */
async function assertReadsAsQuery(nodes, { deviceId, kind, granularity, fromTs, toTs, margin }) {
  const { until, messagesOf } = require('./env');
  const assert = require('node:assert/strict');
  const written = nodes.written.__written ??= messagesOf(nodes.written);
  const queried = nodes.queried.__queried ??= messagesOf(nodes.queried);
  const read = nodes.read.__read ??= messagesOf(nodes.read);
  const ask = { deviceId, kind, granularity };
  const wrote = written.length;
  nodes.query.receive({ ...ask, fromTs: fromTs - margin, toTs: toTs + margin });
  await until(() => written.length === wrote + 1 || nodes.caught.received, 30000, 'the wider range written');
  assert.equal(written.at(-1).payload.state, 'written', JSON.stringify(nodes.caught.received?.error));
  const asked = queried.length;
  nodes.query.receive({ ...ask, fromTs, toTs });
  await until(() => queried.length === asked + 1 && written.length === wrote + 2, 30000, 'energy-query\'s answer');
  const expected = queried.at(-1).payload;
  assert.ok(expected.length > 1, `energy-query answered ${expected.length} entries`);
  const got = read.length;
  nodes.store.receive({ topic: 'read', ...ask, fromTs, toTs });
  await until(() => read.length === got + 1 || nodes.caught.received, 30000, 'the store\'s answer');
  const answer = read.at(-1).payload;
  const stamps = (entries) => entries.map((e) => `${e.timestamp - fromTs}/${e.duration}`).join(' ');
  assert.equal(stamps(answer), stamps(expected), 'the same entries (seconds after fromTs / duration)');
  for (let i = 0; i < expected.length; i += 1) {
    for (const field of Object.keys(expected[i])) assert.deepEqual(answer[i][field], expected[i][field], `entry ${i} (${expected[i].timestamp}) ${field}`);
  }
  return { answer, expected };
}

/**
 * A Grafana query of docs/energy-store.md (the fenced block ```sql <dialect>), its macros expanded as Grafana
 * expands them for a panel over [fromTs, toTs]: the test runs what a user copies.
 */
function docsGrafanaQuery(dialect, fromTs, toTs) {
  const text = fs.readFileSync(path.join(__dirname, '../../docs/energy-store.md'), 'utf8');
  const block = [...text.matchAll(/```sql (\w+)\n([\s\S]*?)```/g)].find((m) => m[1] === dialect);
  if (!block) throw new Error(`docs/energy-store.md has no \`\`\`sql ${dialect} block`);
  return block[2]
    .replaceAll('$__unixEpochFrom()', String(fromTs))
    .replaceAll('$__unixEpochTo()', String(toTs))
    .replaceAll('$timeFilter', `time >= ${fromTs}s AND time <= ${toTs}s`);
}

/** kWh per hour (keyed by the hour's start) and channel of END-stamped 5-minute entries: each in the hour it belongs to. */
function hourlyKwh(entries) {
  const hours = new Map();
  for (const e of entries) {
    const hour = Math.floor((e.timestamp - e.duration) / 3600) * 3600;
    const sums = hours.get(hour) ?? [];
    e.eReal.forEach((j, c) => { sums[c] = (sums[c] ?? 0) + j / 3.6e6; });
    hours.set(hour, sums);
  }
  return hours;
}

/** A flow for the Grafana checks: energy-query's answer goes to the store and to a `queried` helper. */
function grafanaFlow(storeProps) {
  const flow = queryIntoStore({}, storeProps);
  flow[0].wires = [['store', 'queried']];
  return flow;
}

/**
 * Three whole hours (10:00–13:00 UTC on a fixed day) and one either side written through the store of `nodes` (a
 * grafanaFlow); resolves the panel's range and energy-query's answer summed by hour and channel.
 */
async function writeThreeHours(nodes, DEVICE) {
  const assert = require('node:assert/strict');
  const { until, messagesOf } = require('./env');
  const from = Date.UTC(2026, 6, 14, 10, 0, 0) / 1000;
  const to = from + 3 * 3600;
  const written = messagesOf(nodes.written);
  const queried = messagesOf(nodes.queried);
  nodes.query.receive({ deviceId: DEVICE, fromTs: from - 3600, toTs: to + 3600 });
  await until(() => written.length === 1 && queried.length === 1);
  assert.equal(written[0].payload.state, 'written');
  return { from, to, hours: [from, from + 3600, from + 7200], expected: hourlyKwh(queried[0].payload) };
}

/** Checks a query's rows ({hour, channel, kwh}) hold the expected kWh of every whole hour, within float noise. */
function assertHourly(rows, expected, hours) {
  const assert = require('node:assert/strict');
  for (const hour of hours) {
    const want = expected.get(hour);
    assert.ok(want, `the entries cover the hour ${hour}`);
    want.forEach((kwh, c) => {
      const row = rows.find((r) => r.hour === hour && r.channel === c + 1);
      assert.ok(row, `a row for the hour ${new Date(hour * 1000).toISOString()} channel ${c + 1}`);
      assert.ok(Math.abs(row.kwh - kwh) < 1e-9, `hour ${new Date(hour * 1000).toISOString()} channel ${c + 1}: ${row.kwh} kWh, the entries of that hour ${kwh}`);
    });
  }
}

module.exports = { sqliteQuery, assertReadsAsQuery, docsGrafanaQuery, grafanaFlow, writeThreeHours, hourlyKwh, assertHourly, serviceClient, linkNodes, requireServer, HAS_SQLITE, tempDir, queryIntoStore, sqliteRows, sumByChannel };
