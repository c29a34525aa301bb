'use strict';
// bench:store (issue 19), in a real Node-RED 5 runtime on Node.js 22.13+ (node:sqlite; from Node.js 20 this script
// starts itself again on the cached Node.js 24 or 22 of scripts/runtimes.js):
//  - a year of 5-minute data (6 channels) per device written through energy-store, a week per msg as energy-query's
//    "pages" output gives it, into SQLite, PostgreSQL and InfluxDB 1 (started here on free loopback ports): rows/s;
//  - a year chart read back from SQLite (5-minute entries, maxPoints 500): ms, event-loop p99 < 20 ms and no stall
//    over 100 ms while reading, heap < 200 MB: gated in the exit code. A year by month (summed in SQLite) is printed.
// Size: BENCH_STORE_DEVICES (default 1; issue 19's full run: 10) devices of BENCH_STORE_DAYS (default 365) days.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const { sqliteProblem } = require('../dist/nodes/energy-store/backends/sqlite.js');

if (sqliteProblem()) {
  const { findNode } = require('../scripts/runtimes');
  const runtime = findNode(24) || findNode(22);
  if (!runtime) {
    console.error(`bench:store needs Node.js 22.13+ for SQLite; this is ${process.version} and no Node.js 22/24 is cached: node scripts/runtimes.js install`);
    process.exit(1);
  }
  console.log(`(Node.js ${process.version} has no node:sqlite: running on ${runtime.version})`);
  const out = spawnSync(runtime.bin, ['--expose-gc', __filename], { stdio: 'inherit', env: process.env });
  process.exit(out.status ?? 1);
}

const helper = require('node-red-node-test-helper');
const { startPostgres, POSTGRES_BIN_DIR } = require('../test/support/postgres-server');
const { startInflux, INFLUXD } = require('../test/support/influx-server');

const { ensureNodeRed, nodeRedDir } = require('../scripts/runtimes');
const nodeRed5 = ensureNodeRed('5');
if (nodeRed5.error) throw new Error(`bench:store runs Node-RED 5 from the runtime cache: ${nodeRed5.error}`);
helper.init(require.resolve(nodeRedDir('5')));
const NODES = [require('../dist/nodes/energy-store/energy-store.js')];
const DEVICES = Number(process.env.BENCH_STORE_DEVICES || 1);
const DAYS = Number(process.env.BENCH_STORE_DAYS || 365);
const WEEK = 7 * 86400;
const TARGETS = { p99Ms: 20, maxMs: 100, heapMb: 200 };
const END_TS = Date.UTC(2026, 6, 1) / 1000;
const START_TS = END_TS - DAYS * 86400;
const failures = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes) => Math.round(bytes / 1048576);

function check(ok, text) {
  console.log(`${ok ? '  ok  ' : '  MISS'} ${text}`);
  if (!ok) failures.push(text);
}

/** Device ids in the service's form; values of a believable 6-channel site, the same for the same device and time. */
const deviceId = (d) => `D63${String(d).padStart(10, '0')}`;
function week(d, fromTs) {
  const entries = [];
  for (let ts = fromTs + 300; ts <= Math.min(fromTs + WEEK, END_TS); ts += 300) {
    const day = Math.sin(((ts % 86400) / 86400) * 2 * Math.PI);
    const base = [400, 1500, 300, 800, 0, 600].map((w, c) => Math.round(w * (1 + 0.3 * day) * 300 + ((ts * (c + 7) * (d + 3)) % 997)));
    base[0] = base.slice(1).reduce((n, v) => n + v, 0) - Math.max(0, Math.round(3000 * 300 * day));
    entries.push({
      timestamp: ts, duration: 300,
      eReal: base, eRealPositive: base.map((v) => Math.max(0, v)), eRealNegative: base.map((v) => Math.max(0, -v)),
      eReactive: base.map((v) => Math.round(v / 5)), eReactivePositive: base.map((v) => Math.round(Math.max(0, v) / 5)), eReactiveNegative: base.map(() => 0),
      vRMSMin: base.map(() => 228.4), vRMSMax: base.map(() => 241.7), iRMSMin: base.map((v) => Math.abs(v) / 300 / 235), iRMSMax: base.map((v) => Math.abs(v) / 300 / 228),
    });
  }
  return entries;
}

const load = (flow, creds) => new Promise((resolve, reject) => { try { helper.load(NODES, flow, creds, resolve); } catch (e) { reject(e); } });

async function storeFlow(props, creds = {}) {
  await load([
    { id: 'store', type: 'energy-store', retention: 0, queueLimit: 1000, ...props, wires: [['written'], ['read'], []] },
    { id: 'written', type: 'helper' },
    { id: 'read', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ], { store: creds });
  let failed;
  helper.getNode('caught').on('input', (m) => { failed = m.error && m.error.message; });
  return { store: helper.getNode('store'), failed: () => failed };
}

/** One msg per device-week, each waited for (as a flow of pages is): rows/s of the node's whole write path. */
async function writeYear(name, props, creds) {
  const { store, failed } = await storeFlow(props, creds);
  const written = helper.getNode('written');
  let rows = 0;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const started = performance.now();
  for (let d = 0; d < DEVICES; d += 1) {
    for (let from = START_TS; from < END_TS; from += WEEK) {
      const answered = new Promise((resolve) => written.once('input', resolve));
      store.receive({ payload: week(d, from), deviceId: deviceId(d), kind: 'long', granularity: '5m', timezone: 'Australia/Sydney' });
      const msg = await Promise.race([answered, (async () => { while (!failed()) await sleep(20); })()]);
      if (!msg) throw new Error(`${name}: ${failed()}`);
      if (msg.payload.state !== 'written') throw new Error(`${name}: ${msg.payload.state}`);
      rows += msg.payload.rows;
    }
    helper._sandbox.resetHistory();
  }
  const seconds = (performance.now() - started) / 1000;
  h.disable();
  await helper.unload();
  console.log(`  ${name.padEnd(10)} ${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s: ${Math.round(rows / seconds).toLocaleString('en')} rows/s (event loop while writing: p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(0)} ms)`);
  return rows;
}

async function readYearChart(file) {
  const { store, failed } = await storeFlow({ backend: 'sqlite', file });
  const read = helper.getNode('read');
  const run = async (query) => {
    global.gc?.();
    const heapBase = process.memoryUsage().heapUsed;
    let heapPeak = heapBase;
    const sampler = setInterval(() => { heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed); }, 5);
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const started = performance.now();
    const answered = new Promise((resolve) => read.once('input', resolve));
    store.receive({ topic: 'read', deviceId: deviceId(0), fromTs: START_TS, toTs: END_TS, output: 'chart', maxPoints: 500, chartUnit: 'kWh', timezone: 'Australia/Sydney', ...query });
    const msg = await Promise.race([answered, (async () => { while (!failed()) await sleep(20); })()]);
    const ms = performance.now() - started;
    await sleep(20);
    h.disable();
    clearInterval(sampler);
    helper._sandbox.resetHistory();
    if (!msg) throw new Error(`read: ${failed()}`);
    return { ms, points: msg.payload.length, p99: h.percentile(99) / 1e6, max: h.max / 1e6, heapPeak, heapBase };
  };
  const year = await run({ granularity: '5m' });
  console.log(`  a year chart (5-minute entries, ${DAYS} days, 6 channels): ${year.ms.toFixed(0)} ms, ${year.points} points; event loop p99 ${year.p99.toFixed(1)} ms, max ${year.max.toFixed(0)} ms; heap peak ${mb(year.heapPeak)} MB (${mb(year.heapBase)} MB before)`);
  check(year.p99 < TARGETS.p99Ms, `event-loop p99 while reading a year chart ${year.p99.toFixed(1)} ms < ${TARGETS.p99Ms} ms`);
  check(year.max <= TARGETS.maxMs, `longest stall while reading ${year.max.toFixed(0)} ms ≤ ${TARGETS.maxMs} ms`);
  check(year.heapPeak < TARGETS.heapMb * 1048576, `heap while reading ${mb(year.heapPeak)} MB < ${TARGETS.heapMb} MB`);
  check(year.points > 0 && year.points <= 500 * 6, `${year.points} points, at most maxPoints (500) per channel`);
  const months = await run({ granularity: 'month' });
  console.log(`  a year by month (summed from 5-minute rows in SQLite): ${months.ms.toFixed(0)} ms, ${months.points} points; event loop p99 ${months.p99.toFixed(1)} ms, max ${months.max.toFixed(0)} ms`);
  check(months.max <= TARGETS.maxMs, `longest stall while reading by month ${months.max.toFixed(0)} ms ≤ ${TARGETS.maxMs} ms`);
  await helper.unload();
}

function serverMissing(what) {
  if (process.env.CI) {
    failures.push(`${what} is not installed (CI installs it)`);
    console.log(`  MISS ${what} is not installed`);
  } else {
    console.log(`  (${what} is not installed here: skipped)`);
  }
}

async function main() {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
  helper.settings({ userDir });
  await new Promise((resolve) => helper.startServer(resolve));
  console.log(`bench:store on Node.js ${process.version}, Node-RED 5; ${DEVICES} device(s) × ${DAYS} days of 5-minute entries, 6 channels (load ${os.loadavg()[0].toFixed(2)})`);
  console.log('writes through energy-store (a week per msg, disk queue, one transaction per msg):');
  const file = path.join(userDir, 'bench.sqlite');
  try {
    await writeYear('SQLite', { backend: 'sqlite', file });
    if (!POSTGRES_BIN_DIR) serverMissing('PostgreSQL');
    else {
      const pg = await startPostgres({ fsync: true });
      try {
        await writeYear('PostgreSQL', { backend: 'postgres', connection: pg.connection }, { password: pg.password });
      } finally {
        await pg.destroy();
      }
    }
    if (!INFLUXD) serverMissing('InfluxDB');
    else {
      const influx = await startInflux();
      try {
        await writeYear('InfluxDB 1', { backend: 'influxdb', influxApi: 'v1', url: influx.url, database: 'energy' });
      } finally {
        await influx.destroy();
      }
    }
    console.log(`reading back from SQLite (${mb(fs.statSync(file).size)} MB file):`);
    await readYearChart(file);
  } finally {
    await new Promise((resolve) => helper.stopServer(resolve));
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  if (failures.length) {
    console.log(`bench:store: ${failures.length} target(s) missed`);
    process.exitCode = 1;
  } else {
    console.log('bench:store: every target met');
  }
}

// The test helper's Node-RED runtime keeps timers of its own after stopServer: exit once the figures are printed
// (test/nodes/energy-store-lifecycle.test.js checks that the store itself leaves nothing running).
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
}).finally(() => process.exit());
