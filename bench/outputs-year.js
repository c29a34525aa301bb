'use strict';
// Event loop and heap of the energy-query node in a real Node-RED runtime (issue 11):
//  - a year of 5-minute long energy of a 6-channel device as chart output, as one msg per entry (split) and as one
//    msg per request (pages): event-loop p99 < 20 ms and no stall over 100 ms, all gated;
//  - thirty follow-mode nodes for a simulated week: heap slope in MB per simulated day (flat).
// The simulator runs in its own process (bench/sim-process.js), so only Node-RED, the nodes and the client are measured.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const helper = require('node-red-node-test-helper');
const { SIM_DEVICES, SIM_KEYS } = require('../dist/simulator');

helper.init(require.resolve('node-red'));
const nodeFile = (name) => require(`../dist/nodes/${name}/${name}.js`);
const NODES = [nodeFile('energy-api'), nodeFile('energy-query')];
const DAY = 86400;
const TARGETS = { p99Ms: 20, maxMs: 100, mbPerDay: 1 };
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS || 30);
const STEP_S = 2 * 3600;
const failures = [];
const READABLE = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.forbidden && id !== SIM_DEVICES.uninitialised);

function startSim(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'sim-process.js'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (d) => resolve({ url: String(d).trim(), stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) }));
    child.once('error', reject);
  });
}
const post = (sim, route, body) => fetch(`${sim.url}/__sim/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
const load = (flow, creds) => new Promise((resolve, reject) => { try { helper.load(NODES, flow, creds, resolve); } catch (e) { reject(e); } });
const apiNode = (sim) => ({ id: 'api', type: 'energy-api', name: 'sim', baseUrl: `${sim.url}/v3`, tps: 1000, tpd: 10_000_000, timezone: '' });
const creds = { api: { apiKey: SIM_KEYS.full } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function check(ok, text) {
  console.log(`${ok ? '  ok  ' : '  MISS'} ${text}`);
  if (!ok) failures.push(text);
}

async function yearOutput(sim, output) {
  const nowS = Math.floor(Date.now() / 1000);
  const toTs = Math.floor(nowS / 300) * 300 - DAY;
  await load([
    apiNode(sim),
    { id: 'q', type: 'energy-query', api: 'api', deviceId: SIM_DEVICES.switch6M3SW, kind: 'long', query: 'range', granularity: '5m', fromTs: String(toTs - 365 * DAY), toTs: String(toTs), timezone: 'UTC', output, follow: false, wires: [['out']] },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ], creds);
  let msgs = 0;
  let points = 0;
  let entries = 0;
  let failed;
  helper.getNode('out').on('input', (m) => {
    msgs += 1;
    if (output === 'chart') points += m.payload.length;
    else if (output === 'pages') entries += m.payload.length;
  });
  helper.getNode('caught').on('input', (m) => { failed = m.error && m.error.message; });
  const done = new Promise((resolve) => helper.getNode('q').on('call:status', (c) => { if (c.args[0].fill !== 'blue') resolve(); }));
  // The test helper's spies keep every call's arguments (105,120 msgs, or pages of 2 MB): forget them as the run
  // goes, often enough that what a spy holds does not outlive a young-generation GC (a flow keeps no such copies).
  const forget = setInterval(() => helper._sandbox.resetHistory(), 20);
  // 1 ms resolution: the histogram records each interval whole, so at 10 ms every sample would include 10 ms of
  // the timer's own period and p99 would read 10 ms worse than the delay.
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const started = Date.now();
  helper.getNode('q').receive({});
  await done;
  await sleep(50);
  h.disable();
  clearInterval(forget);
  const seconds = (Date.now() - started) / 1000;
  await helper.unload();
  helper._sandbox.resetHistory();
  const p99 = h.percentile(99) / 1e6;
  const max = h.max / 1e6;
  const what = output === 'chart' ? `${msgs} msg with ${points} points` : output === 'pages' ? `${msgs} msgs with ${entries} entries` : `${msgs} msgs`;
  console.log(`year of 5m, 6 channels, ${output} output: ${what} in ${seconds.toFixed(1)} s${failed ? ` (error: ${failed})` : ''}`);
  check(!failed && msgs > 0, `${output}: delivered`);
  check(p99 < TARGETS.p99Ms, `${output}: event-loop p99 ${p99.toFixed(1)} ms (< ${TARGETS.p99Ms})`);
  check(max <= TARGETS.maxMs, `${output}: longest stall ${max.toFixed(0)} ms (≤ ${TARGETS.maxMs})`);
}

async function followWeek(sim) {
  const realNow = Math.floor(Date.now() / 1000);
  const start = Math.floor((realNow - 8 * DAY) / 300) * 300;
  let simNow = start;
  await post(sim, 'clock', { now: simNow });
  helper.settings({ energyApi: { now: () => simNow * 1000 } });
  const flow = [apiNode(sim)];
  for (let i = 0; i < FOLLOWERS; i++) {
    flow.push({ id: `f${i}`, type: 'energy-query', api: 'api', deviceId: READABLE[i % READABLE.length], kind: 'long', query: 'range', granularity: '5m', fromTs: String(start - 3600), toTs: String(realNow), timezone: 'UTC', output: 'entries', follow: true, catchUp: 6, wires: [['out']] });
  }
  flow.push({ id: 'out', type: 'helper' }, { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' });
  await load(flow, creds);
  let outputs = 0;
  let errors = 0;
  helper.getNode('out').on('input', () => { outputs += 1; });
  helper.getNode('caught').on('input', () => { errors += 1; });
  const heap = [];
  const steps = (7 * DAY) / STEP_S;
  for (let s = 1; s <= steps; s++) {
    simNow += STEP_S;
    await post(sim, 'clock', { now: simNow });
    const before = outputs + errors;
    for (let i = 0; i < FOLLOWERS; i++) helper.getNode(`f${i}`).receive({});
    while (outputs + errors < before + FOLLOWERS) await sleep(5);
    helper._sandbox.resetHistory();
    if (s % (DAY / STEP_S) === 0) {
      global.gc?.();
      heap.push(process.memoryUsage().heapUsed / 2 ** 20);
    }
  }
  await helper.unload();
  // Slope from day 2 on (day 1 holds the warm-up: module loads, caches).
  const days = heap.slice(1);
  const slope = (days[days.length - 1] - days[0]) / (days.length - 1);
  console.log(`${FOLLOWERS} follow nodes, simulated week in ${STEP_S / 3600}-hour triggers: ${outputs} outputs, ${errors} errors; heap per day ${heap.map((h) => h.toFixed(1)).join(', ')} MB`);
  check(errors === 0, `follow week: errors ${errors}`);
  check(slope <= TARGETS.mbPerDay, `follow week: heap ${slope.toFixed(2)} MB per simulated day (flat: ≤ ${TARGETS.mbPerDay})`);
}

async function main() {
  const only = process.env.BENCH_ONLY;
  const sim = await startSim({ tps: 1000, tpd: 10_000_000 });
  await new Promise((resolve) => helper.startServer(resolve));
  try {
    if (!only || only === 'chart') await yearOutput(sim, 'chart');
    if (!only || only === 'split') await yearOutput(sim, 'split');
    if (!only || only === 'pages') await yearOutput(sim, 'pages');
    if (!only || only === 'follow') await followWeek(sim);
  } finally {
    await helper.unload();
    await new Promise((resolve) => helper.stopServer(resolve));
    await sim.stop();
  }
  console.log(failures.length ? `outputs bench: ${failures.length} TARGET(S) MISSED` : 'outputs bench: all targets met');
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
