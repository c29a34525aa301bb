'use strict';
// Issue 12, end to end: three Node-RED runtimes (separate processes) on one key and one Redis read
// history at full speed from the simulator (its own process). Judged only by the simulator's request
// log: no one-second window above the key's limit, no 429, throughput within 1.10 of the limit; Redis
// stopped mid-run loses no request and exceeds no limit; Redis restarted restores the shared rate.
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startRedis, REDIS_SERVER } = require('../support/redis-server');
const { startSim } = require('../../bench/service-processes');

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;
const { freePort, stopChild } = require('../support/processes');
const { NODE_RED_DIR } = require('../support/node-red');
const TPS = 5;
const KEY = require(path.join(ROOT, 'dist/simulator')).SIM_KEYS.full;
const { skipBecause } = require('../support/skip');
const INSTANCES = 3;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The simulator in its own process behind a gateway process that stamps arrivals at the highest priority allowed
 * (a simulator building data on a busy host stamps late, and would refuse requests that left in time).
 */
async function startSimulatorProcess() {
  const sim = await startSim({ tps: TPS, tpd: 1000000 }, { realtimeGateway: true });
  return { stop: sim.stop, baseUrl: `${sim.apiUrl}/v3`, root: sim.url };
}

/** A Node-RED with only this package (and its core nodes) in a fresh user directory. */
async function startNodeRed(base, name) {
  const userDir = path.join(base, name);
  const link = path.join(userDir, 'node_modules', ...PACKAGE_NAME.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(ROOT, link, 'dir');
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: `cluster-${name}`, private: true, dependencies: { [PACKAGE_NAME]: `file:${ROOT}` } }));
  const coreNodes = path.join(base, 'core-nodes');
  if (!fs.existsSync(coreNodes)) fs.symlinkSync(path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] })), coreNodes, 'dir');
  const settingsFile = path.join(userDir, 'settings.js');
  fs.writeFileSync(settingsFile, `module.exports = { ...require(${JSON.stringify(path.join(ROOT, 'scripts/start-settings.js'))}), coreNodesDir: ${JSON.stringify(coreNodes)}, contextStorage: undefined };\n`);
  const port = await freePort();
  const logs = [];
  const child = spawn(process.execPath, [path.join(NODE_RED_DIR, 'red.js'), '-u', userDir, '-p', String(port), '-s', settingsFile], {
    cwd: userDir, env: { ...process.env, NODE_RED_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk) => { for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(line); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 90000;
  for (;;) {
    try {
      if ((await fetch(new URL('settings', url))).ok) break;
    } catch { /* not listening yet */ }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Node-RED ${name} did not start:\n${logs.slice(-20).join('\n')}`);
    await sleep(250);
  }
  return { name, url, child, logs };
}

/** Two chains per instance, each starting the next 5-day read (10 requests) as soon as the last one ends. */
function flow(baseUrl, redisUrl) {
  const reads = ['cl-r1', 'cl-r2'];
  return [
    { id: 'cl-tab', type: 'tab', label: 'cluster' },
    { id: 'cl-key', type: 'energy-api', name: 'cluster key', configVersion: 1, baseUrl, tps: TPS, tpd: 1000000, timezone: '', redisUrl, credentials: { apiKey: KEY } },
    ...reads.map((id, i) => ({ id, type: 'inject', z: 'cl-tab', name: `start ${i + 1}`, props: [{ p: 'payload' }], payload: '', payloadType: 'date', repeat: '', once: true, onceDelay: 0.2 + i / 10, topic: '', wires: [['cl-query']] })),
    { id: 'cl-query', type: 'energy-query', z: 'cl-tab', name: '5 days', configVersion: 1, api: 'cl-key', deviceId: 'B300000000001', kind: 'short', query: 'range', fromTs: '-5d', toTs: 'now', granularity: '5m', timezone: '', convert: '', powerFactor: false, groupByPhase: false, output: 'entries', chartUnit: '', maxPoints: 500, reduce: 'average', follow: false, catchUp: 6, wires: [['cl-again']] },
    { id: 'cl-again', type: 'function', z: 'cl-tab', name: 'read again', func: "node.warn('CLUSTER-DONE ' + (Array.isArray(msg.payload) ? msg.payload.length : -1));\nreturn { payload: Date.now() };", outputs: 1, wires: [['cl-query']] },
    { id: 'cl-catch', type: 'catch', z: 'cl-tab', scope: null, uncaught: false, wires: [['cl-failed']] },
    { id: 'cl-failed', type: 'function', z: 'cl-tab', name: 'read failed', func: "node.warn('CLUSTER-ERROR ' + (msg.error && msg.error.message));\nreturn { payload: Date.now() };", outputs: 1, wires: [['cl-query']] },
  ];
}

async function deploy(instance, nodes) {
  const res = await fetch(new URL('flows', instance.url), {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' }, body: JSON.stringify(nodes),
  });
  assert.ok(res.ok, `deploy to ${instance.name}: ${res.status} ${await res.text()}`);
}

async function sharedMode(instance) {
  const res = await fetch(new URL('energy-api/cl-key/state', instance.url));
  if (!res.ok) return undefined;
  return (await res.json()).shared?.mode;
}

async function waitAll(instances, mode, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const modes = await Promise.all(instances.map(sharedMode));
    if (modes.every((m) => m === mode)) return;
    if (Date.now() > end) throw new Error(`not all ${mode}: ${modes.join(', ')}`);
    await sleep(200);
  }
}

/** The most requests in any one-second window (arrival times in ms, sorted). */
function busiestSecond(times) {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const rate = (log, from, to) => log.filter((r) => r.at >= from && r.at < to).length / ((to - from) / 1000);

describe('shared limiter: three Node-RED runtimes on one key and one Redis', function () {
  this.timeout(240000);
  let redis;
  let sim;
  let base;
  let instances = [];

  before(async function () {
    if (!REDIS_SERVER) {
      skipBecause(this, 'redis-server is not installed (apt-get install redis-server)');
    }
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-cluster-'));
    [redis, sim] = await Promise.all([startRedis(), startSimulatorProcess()]);
    instances = await Promise.all(Array.from({ length: INSTANCES }, (_, i) => startNodeRed(base, `node-red-${i + 1}`)));
  });

  after(async () => {
    await Promise.all(instances.map((i) => stopChild(i.child)));
    await sim?.stop();
    await redis?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it('share the per-second limit, fall back within it while Redis is down, and share again once it is back', async () => {
    await Promise.all(instances.map((i) => deploy(i, flow(sim.baseUrl, redis.url))));
    await waitAll(instances, 'shared');
    const t0 = Date.now();
    await sleep(Number(process.env.CLUSTER_PHASE_MS) || 20000);
    const t1 = Date.now();

    await redis.stop();
    await waitAll(instances, 'fallback');
    await sleep(Number(process.env.CLUSTER_PHASE_MS) || 12000);
    const t2 = Date.now();

    await redis.start();
    await waitAll(instances, 'shared');
    const t3 = Date.now();
    await sleep(Number(process.env.CLUSTER_PHASE_MS) || 20000);
    const t4 = Date.now();

    const log = (await (await fetch(`${sim.root}/__sim/log`)).json())
      .filter((r) => r.path.startsWith('/v3') && r.key5 === KEY.slice(-5)).sort((a, b) => a.at - b.at);
    const errors = instances.flatMap((i) => i.logs.filter((l) => l.includes('CLUSTER-ERROR')));
    const summary = `shared ${rate(log, t0 + 2000, t1).toFixed(2)}/s, Redis down ${rate(log, t1, t2).toFixed(2)}/s, rejoined ${rate(log, t3 + 2000, t4).toFixed(2)}/s, ${log.length} requests`;
    console.log(`      ${summary}`);
    if (process.env.CLUSTER_DEBUG) for (const i of instances) console.log(i.logs.slice(-40).join('\n'));

    assert.deepEqual(errors, [], 'no request lost');
    assert.equal(log.filter((r) => r.status === 429).length, 0, `no 429 (${summary}): ${JSON.stringify(log.filter((r) => r.status === 429).map((r) => [r.at, r.path]).slice(0, 5))} ${JSON.stringify([t0, t1, t2, t3, t4])}`);
    assert.equal(log.filter((r) => r.status === 0).length, 0, 'no request cut off');
    const most = busiestSecond(log.map((r) => r.at));
    assert.ok(most <= TPS, `a one-second window at the simulator held ${most} requests (limit ${TPS}; ${summary})`);
    assert.ok(rate(log, t0 + 2000, t1) * 1.10 >= TPS, `shared throughput within 1.10 of the limit (${summary})`);
    assert.ok(rate(log, t1, t2) > 0, `the instances kept reading while Redis was down (${summary})`);
    assert.ok(rate(log, t3 + 2000, t4) * 1.10 >= TPS, `sharing restored after Redis came back (${summary})`);
    for (const i of instances) {
      const done = i.logs.filter((l) => l.includes('CLUSTER-DONE')).length;
      assert.ok(done > 0, `${i.name} completed reads`);
    }
  });
});
