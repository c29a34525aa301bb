'use strict';
// 300 devices on one key (issue 16 §3), in real time: the simulator with 300 extra sites (307 devices on the demo
// key, which the simulator gives 102 requests/s and 1,326,240 a day, as the live service sizes a key by its fleet),
// a gateway process in front of it stamping arrivals, and one real Node-RED process running the flow of
// bench/fleet-flow.js (what a user of that size deploys: short energy of every device every 30 s, long energy and
// status every 5 minutes, a switch command every 3 minutes). Its event loop, heap and CPU are measured inside it
// (bench/fleet-probe.js, loaded by its settings); the request counts come from the simulator's log of arrivals.
//
// Phases:
//  1. warm-up (the first reads of the last hour), then FLEET_STEADY_S seconds of steady following (default 600);
//  2. a 2-hour outage: the service answers every request with a 5xx (500, 502 or 503, as a failing service's
//     gateway does) and the simulator's and the nodes' clocks move on 2 hours together; the next 30-s trigger fails
//     whole (its msgs end in errors to the Catch node, a red status, the follow positions kept; once twenty
//     different requests have failed in a row, failed requests are not retried), and the outage ends when it has;
//  3. the catch-up: the service is back as both triggers fire (the bench fires the two inject nodes through
//     Node-RED's admin API, as their timers would), and every device back-fills its 2 hours of short and long
//     energy at the key's full rate. It ends with the last device's first output since the service was back.
// Gated (exit code): 0 × 429; never more than the key's limit in any sliding second of arrivals at the gateway;
// the steady phase's requests within the daily budget's share; the newest short-energy entry at most 35 s old at
// the 95th percentile when a trigger delivers it (steady; the 30-s trigger fires 29 s after the devices' reports,
// the phase where the newest entry is oldest, so about 6 s are left for delivering a trigger's 306 reads); the
// catch-up within 1.05 × its floor ((its requests − 1) ÷ the key's rate, plus one response latency, since the last
// answer cannot come sooner); the back-fill exact (per device, the entries emitted after the outage are the
// simulator's, none twice, none missing up to the catch-up's start); event-loop p99 < 20 ms and no stall of the
// loop's own over 100 ms (steady and catch-up; time the host gave other processes is printed, not counted); heap flat over the steady phase (the Theil-Sen slope of the heap after a full
// collection, sampled 13 s and 25 s after each 30-s trigger, ≤ HEAP_MB_PER_MIN); a switch command on the wire
// within 1 s in both phases; no error outside the outage; every msg of the outage ended in an error. Reported: CPU
// per request of the Node-RED process beside a bare JSON.parse of the same bodies.
// FLEET_STEADY_S sets the steady phase (CI: 180); FLEET_CPU_PROF=<dir> writes a CPU profile of the Node-RED process;
// FLEET_LOG_FILE=<file> keeps the request log and the probe's figures for a closer look.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { control, loadAverage, maxPerSecond, pinThread, startSim } = require('./service-processes');
const { fleetFlow, FLOW_IDS, FIRST_SHORT_S } = require('./fleet-flow');
const { SIM_KEYS } = require('../dist/simulator');
const { startBusyHost } = require('../scripts/busy-host');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;
const NODE_RED_DIR = path.join(ROOT, 'node_modules', 'node-red');
const EXTRA_DEVICES = 300;
const STEADY_S = Number(process.env.FLEET_STEADY_S || 600);
const SIM_LATENCY_MS = 250;
const LATENCY_JITTER_MS = 100;
const ARRIVAL_JITTER_MS = 20;
/**
 * A fixed instant (a UTC multiple of 30 s): the same data and day boundaries on every run. Early in the simulator's
 * data, which starts on 1 January 2024: each site's hot-water tank and car are stepped from that day on the first
 * read of a device, a few ms for five weeks (75 ms at two years).
 */
const SIM_START_S = Date.UTC(2024, 1, 5, 3, 0, 0) / 1000;
/** The 30-s trigger fires this long after the devices' 30-s reports. */
const TRIGGER_PHASE_S = 29;
const OUTAGE_S = 2 * 3600;
const WARM_UP_S = 45;
/**
 * On a machine with two CPUs or more, Node-RED's event-loop thread runs on the first and the service (simulator and
 * gateway, at raised priority) on the second, as on machines of their own: otherwise every request Node-RED writes
 * wakes the gateway, which at its higher priority takes the CPU from the event loop being measured. Node-RED's other
 * threads (the collector's) stay free: pinned beside the loop, they took turns with it (docs/benchmarks.md).
 */
const MULTI_CPU = os.cpus().length >= 2;
const NODE_RED_CPUS = MULTI_CPU && process.env.FLEET_PIN_NODE_RED !== '0' ? '0' : undefined;
const SERVICE_CPUS = MULTI_CPU ? String(os.cpus().length - 1) : undefined;
/** Flat: at most 0.1 MB a minute, about 140 bytes per request at the steady phase's pace. */
const HEAP_MB_PER_MIN = 0.1;
const TARGETS = { ageP95S: 35, catchUpRatio: 1.05, loopP99Ms: 20, loopMaxMs: 100, switchMs: 1000 };
const failures = [];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * LOAD=2 runs the bench beside busy-loop processes (scripts/busy-host.js): there the rate targets (`rate`: no 429,
 * the limit in every second) stay gated and the others (event-loop, freshness, CPU and pace figures of a quiet host)
 * are reported.
 */
const BUSY = startBusyHost();

function check(ok, text, rate = false) {
  const gated = rate || BUSY.count === 0;
  console.log(`${ok ? '  ok  ' : gated ? '  MISS' : '  (busy host, reported)'} ${text}`);
  if (!ok && gated) failures.push(text);
}

/** A Node-RED with this package, its probe loaded by the settings, spoken to over IPC. */
async function startNodeRed(base) {
  const userDir = path.join(base, 'user');
  const link = path.join(userDir, 'node_modules', ...PACKAGE_NAME.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(ROOT, link, 'dir');
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'fleet-bench', private: true, dependencies: { [PACKAGE_NAME]: `file:${ROOT}` } }));
  // Only the core nodes beside this package (the repository's node_modules also holds Dashboard 2).
  const coreNodes = path.join(base, 'core-nodes');
  fs.symlinkSync(path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] })), coreNodes, 'dir');
  const settingsFile = path.join(base, 'settings.js');
  fs.writeFileSync(settingsFile, `const probe = require(${JSON.stringify(path.join(__dirname, 'fleet-probe.js'))}).createProbe();
module.exports = { ...require(${JSON.stringify(path.join(ROOT, 'scripts/start-settings.js'))}), coreNodesDir: ${JSON.stringify(coreNodes)},
  energyApi: { now: probe.now }, functionGlobalContext: { fleetProbe: probe }, logging: { console: { level: 'warn' } } };\n`);
  const port = await new Promise((resolve) => {
    const server = require('node:net').createServer().listen(0, '127.0.0.1', () => { const p = server.address().port; server.close(() => resolve(p)); });
  });
  const profile = process.env.FLEET_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.FLEET_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, ['--expose-gc', ...profile, path.join(NODE_RED_DIR, 'red.js'), '-u', userDir, '-p', String(port), '-s', settingsFile], { cwd: userDir, env: { ...process.env, NODE_RED_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const logs = [];
  const collect = (chunk) => { for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(line); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const pending = new Map();
  let next = 0;
  child.on('message', (m) => {
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (waiter) (m.error ? waiter.reject(new Error(m.error)) : waiter.resolve(m.result));
  });
  const ask = (cmd, args) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    child.send({ id, cmd, args });
  });
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      if ((await fetch(new URL('settings', url))).ok) break;
    } catch { /* not listening yet */ }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Node-RED did not start:\n${logs.slice(-20).join('\n')}`);
    await sleep(200);
  }
  if (NODE_RED_CPUS !== undefined) pinThread(child.pid, NODE_RED_CPUS);
  const admin = async (method, route, body) => {
    const res = await fetch(new URL(route, url), {
      method, headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' }, body: body && JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  };
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    child.kill('SIGINT');
  });
  return { url, ask, admin, logs, stop };
}

/** Puts the simulator's and the nodes' clocks on `simS` (unix s) now, running in real time. */
async function setClocks(sim, nr, simS) {
  await control(sim, 'POST', 'clock', { now: simS, real: true });
  const { now } = await control(sim, 'GET', 'clock');
  await nr.ask('clock', { ms: now * 1000 });
}

async function advanceClocks(sim, nr, seconds) {
  await control(sim, 'POST', 'clock', { advance: seconds });
  await nr.ask('clock', { advanceMs: seconds * 1000 });
}

/** Requests of the flow's key (the bench's own checks use another key). */
const flowLog = (log) => log.filter((r) => r.key5 === SIM_KEYS.full.slice(-5) && r.path.startsWith('/v3'));
const between = (log, from, to) => log.filter((r) => r.at >= from && r.at <= to);

/**
 * Slope of (minutes, MB) as the median of the slopes between every two samples (Theil-Sen): one sample taken while
 * a cache filled or a read was in flight does not tilt it, a heap that grows with time does.
 */
function slopePerMinute(samples) {
  const slopes = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) slopes.push((samples[j].mb - samples[i].mb) / (samples[j].min - samples[i].min));
  }
  slopes.sort((a, b) => a - b);
  return slopes.length ? slopes[Math.floor((slopes.length - 1) / 2)] : 0;
}

function loopText(f) {
  const own = f.ownStallMs < f.loop.maxMs - 15 ? ` (${f.ownStallMs.toFixed(0)} ms of it the loop's own, the rest waiting for a CPU other processes held)` : '';
  return `event-loop p99 ${f.loop.p99Ms.toFixed(1)} ms, longest stall ${f.loop.maxMs.toFixed(0)} ms${own}`;
}

/**
 * The longest stall of a phase the event loop caused itself: its thread running, or waiting for a CPU its own
 * process's threads held (bench/fleet-probe.js). Time the host gave other processes is not the flow's stall; it is
 * printed beside it. Without the probe's stall record, the loop histogram's longest delay.
 */
function ownStall(f, stalls, phase) {
  const mine = stalls.filter((s) => s.phase === phase);
  if (f.loop.maxMs <= 60) return f.loop.maxMs;
  return mine.length ? Math.max(...mine.map((s) => s.ownMs)) : f.loop.maxMs;
}

/** Switch commands issued in a phase, each matched to its PATCH's arrival at the gateway. */
function switchDelays(issued, log) {
  const patches = log.filter((r) => r.method === 'PATCH');
  return issued.map((s) => {
    const patch = patches.find((r) => r.path.endsWith(`/devices/${s.deviceId}`) && r.at >= s.at);
    return { ...s, ms: patch ? patch.at - s.at : undefined };
  });
}

/** Bare JSON.parse of the bodies of (a sample of) these requests, fetched again from the simulator with another key. */
async function bareParseMs(sim, requests) {
  const step = Math.max(1, Math.floor(requests.length / 1500));
  let total = 0;
  let bytes = 0;
  let count = 0;
  for (let i = 0; i < requests.length; i += step) {
    const r = requests[i];
    const res = await fetch(`${sim.url}${r.path}?${new URLSearchParams(r.query)}`, { headers: { Authorization: `Bearer ${SIM_KEYS.readOnly}` } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) continue;
    const text = body.toString('utf8');
    const t = process.hrtime.bigint();
    JSON.parse(text);
    total += Number(process.hrtime.bigint() - t) / 1e6;
    bytes += body.length;
    count += 1;
  }
  return { ms: total / count, bytes: bytes / count };
}

/**
 * Per device and kind, against the simulator: the entries emitted since the outage began are exactly its entries
 * after the last one emitted before it, up to the newest emitted, and nothing it had by the catch-up's start
 * (`untilS`) is missing after that newest one.
 */
async function backFillCheck(sim, emitted, untilS) {
  let expected = 0;
  let got = 0;
  let wrong = 0;
  let disorder = 0;
  const examples = [];
  const headers = { Authorization: `Bearer ${SIM_KEYS.readOnly}` };
  const note = (text) => { wrong += 1; if (examples.length < 5) examples.push(text); };
  for (const [key, e] of Object.entries(emitted)) {
    const [kind, deviceId] = key.split(':');
    disorder += e.disorder;
    if (!(e.since > 0)) { note(`${key}: nothing emitted after the outage`); continue; }
    const upTo = Math.max(e.newest, Math.floor(untilS));
    // A window wider than the entries counted, filtered by timestamp: the counts do not depend on how the service
    // selects a range's edges. Long energy counts whole 5-minute entries, as follow mode emits them.
    const query = kind === 'short' ? { fromTs: e.before + 1, toTs: upTo + 1 } : { fromTs: e.before, toTs: upTo + 600, granularity: '5m' };
    const res = await fetch(`${sim.url}/v3/${kind}-energy/${deviceId}?${new URLSearchParams(query)}`, { headers });
    const entries = (res.status === 200 ? await res.json() : []).filter((x) => x.timestamp > e.before && (kind === 'short' || x.duration === 300));
    const count = entries.filter((x) => x.timestamp <= e.newest).length;
    const missed = entries.filter((x) => x.timestamp > e.newest && x.timestamp <= untilS).length;
    expected += count + missed;
    got += e.since;
    if (count !== e.since) note(`${key}: ${e.since} emitted, ${count} in the simulator`);
    if (missed) note(`${key}: ${missed} entries before the catch-up never emitted`);
  }
  return { keys: Object.keys(emitted).length, expected, got, wrong, disorder, examples };
}

async function main() {
  const benchStarted = Date.now();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-fleet-bench-'));
  // No tps or tpd: the simulator sizes the key's limits by its 307 devices, as the service does. Its clock starts
  // before the bench's instant, so the switch states it keeps hold over every read.
  const sim = await startSim({
    now: SIM_START_S - 7200, latencyMs: SIM_LATENCY_MS, latencyJitterMs: LATENCY_JITTER_MS, arrivalJitterMs: ARRIVAL_JITTER_MS, extraDevices: EXTRA_DEVICES,
  }, { cpus: SERVICE_CPUS });
  let nr;
  try {
    nr = await startNodeRed(base);
    console.log(`fleet bench: ${EXTRA_DEVICES} extra sites on one key, response latency ${SIM_LATENCY_MS} ± ${LATENCY_JITTER_MS} ms, arrival jitter 0–${ARRIVAL_JITTER_MS} ms ` +
      `(simulator and gateway ${sim.prioritised ? 'at raised priority' : 'at normal priority'}${SERVICE_CPUS ? ` on CPU ${SERVICE_CPUS}, Node-RED on CPU ${NODE_RED_CPUS}` : ''}); steady phase ${STEADY_S} s; ${BUSY.describe()}; load average ${loadAverage()} on ${os.cpus().length} CPUs`);

    // What the Node-RED process spends with no flow (its own timers and the probe's 1 ms loop sampling): the CPU
    // per request below is net of it.
    await nr.ask('phase', { name: 'idle' });
    await sleep(5000);
    const idle = await nr.ask('phase', { name: 'start' });
    const idleCpuMsPerS = idle.cpuMs / 5;
    // The clocks stand so that the 30-s trigger fires TRIGGER_PHASE_S after the devices' reports.
    await setClocks(sim, nr, SIM_START_S + TRIGGER_PHASE_S - FIRST_SHORT_S - 0.1);
    await nr.admin('POST', 'flows', { flows: fleetFlow({ baseUrl: `${sim.apiUrl}/v3`, apiKey: SIM_KEYS.full }) });
    const deployedAt = Date.now();
    let first;
    for (;;) {
      first = await nr.ask('figures');
      if (first.counts.shortMsgs > 0) break;
      if (Date.now() - deployedAt > 60000) throw new Error(`no 30-s trigger with devices within a minute of the deploy: ${JSON.stringify(first)}\n${nr.logs.slice(-10).join('\n')}`);
      await sleep(500);
    }
    const firstShortAt = first.lastTrigger.short;
    const phaseS = (((firstShortAt + (await nr.ask('clock', {})).now - Date.now()) / 1000) % 30 + 30) % 30;
    console.log(`deployed; the 30-s trigger fires ${phaseS.toFixed(1)} s after the devices' reports, for ${first.counts.shortMsgs} devices`);

    // 1. Steady following, from WARM_UP_S after the first trigger; the heap sampled 13 s and 25 s after each 30-s
    // trigger, between its reads (a trigger's reads take about 3 s, the 5-minute one's about 10 s).
    const steadyFrom = firstShortAt + WARM_UP_S * 1000;
    await sleep(steadyFrom - Date.now());
    await nr.ask('phase', { name: 'steady' });
    const heap = [];
    const steadyTo = steadyFrom + STEADY_S * 1000;
    for (let tick = firstShortAt; tick < steadyTo; tick += 30000) {
      for (const after of [13000, 25000]) {
        const at = tick + after;
        if (at < steadyFrom || at >= steadyTo) continue;
        await sleep(at - Date.now());
        const sample = await nr.ask('heap');
        if (process.env.FLEET_HEAP_SNAPSHOTS && (heap.length === 1 || at + 30000 >= steadyTo)) await nr.ask('snapshot', { dir: process.env.FLEET_HEAP_SNAPSHOTS });
        heap.push({ min: (Date.now() - steadyFrom) / 60000, mb: sample.mb, dataMb: sample.dataMb });
      }
    }
    await sleep(steadyTo - Date.now());

    // 2. The outage: every request answered 5xx and both clocks 2 hours on, until every msg of the next 30-s
    // trigger has failed (the device reads it starts with, the clocks having moved past the client's 10-minute
    // device cache): each error to the Catch node, nothing retried once the service is seen failing every request.
    const steady = await nr.ask('phase', { name: 'outage' });
    const outageFrom = Date.now();
    await nr.ask('epoch');
    await control(sim, 'POST', 'faults', { errorRate: 1 });
    await advanceClocks(sim, nr, OUTAGE_S);
    for (;;) {
      await sleep(250);
      const c = (await nr.ask('figures')).counts;
      const sent = ['shortMsgs', 'longMsgs', 'longTriggers', 'switchIssued'].reduce((n, k) => n + (c[k] ?? 0), 0);
      if ((c.shortTriggers ?? 0) >= 1 && (c.errors ?? 0) >= sent) break;
      if (Date.now() - outageFrom > 120000) throw new Error(`the outage's msgs did not all fail within 2 minutes: ${JSON.stringify(c)}`);
    }
    await sleep(1000);

    // 3. The catch-up: the service back as both triggers fire (the bench fires the two inject nodes, as their
    // timers would). It runs from the moment the service is back to the last device's first output since: its
    // back-fill of short and long energy.
    const outage = await nr.ask('phase', { name: 'catchup' });
    await control(sim, 'POST', 'faults', { errorRate: 0 });
    const catchUpFrom = Date.now();
    await nr.admin('POST', `inject/${FLOW_IDS.every30s}`);
    await nr.admin('POST', `inject/${FLOW_IDS.every5min}`);
    const catchUpSimS = (await control(sim, 'GET', 'clock')).now - (Date.now() - catchUpFrom) / 1000;
    setTimeout(() => void nr.admin('POST', `inject/${FLOW_IDS.every3min}`).catch(() => undefined), 1000);
    const expectedKeys = 2 * first.counts.shortMsgs;
    let progress;
    for (;;) {
      await sleep(250);
      progress = await nr.ask('figures');
      if (progress.outputs.keys >= expectedKeys) break;
      if (Date.now() - catchUpFrom > 120000) {
        const quiet = Object.entries(await nr.ask('emitted')).filter(([, e]) => !(e.since > 0)).map(([key]) => key);
        check(false, `the back-fill was not complete within 2 minutes: ${progress.outputs.keys} of ${expectedKeys} device×kind; nothing since the outage from ${quiet.slice(0, 10).join(', ')}; errors ${JSON.stringify(progress.errors.slice(0, 3))}`);
        break;
      }
    }
    const catchUpTo = progress.outputs.lastFirstAt;
    await sleep(1000);
    const catchUp = await nr.ask('phase', { name: 'after' });
    const catchUpPhaseS = (Date.now() - catchUpFrom) / 1000;
    const emitted = await nr.ask('emitted');
    const issued = await nr.ask('switches');
    const stalls = await nr.ask('stalls');
    const pauses = await nr.ask('pauses');
    const log = flowLog(await control(sim, 'GET', 'log'));
    for (const [f, phase] of [[steady, 'steady'], [outage, 'outage'], [catchUp, 'catchup']]) f.ownStallMs = ownStall(f, stalls, phase);
    const near = (s) => pauses.filter((g) => g.at <= s.at + 15 && g.at >= s.at - s.ms - 25);
    for (const s of stalls.filter((x) => (x.phase === 'steady' || x.phase === 'catchup') && x.ms > TARGETS.loopMaxMs)) {
      console.log(`REPORTED: a ${s.phase === 'steady' ? 'steady-phase' : 'catch-up'} stall of ${s.ms} ms: the loop's thread ran ${s.ranMs} ms and waited ${s.waitedMs} ms for a CPU, ` +
        `while the process's other threads ran ${s.othersMs} ms: ${s.ownMs} ms its own${near(s).length ? `; collections beside it: ${near(s).map((g) => `${g.ms} ms`).join(', ')}` : ''}`);
    }
    if (process.env.FLEET_LOG_FILE) {
      fs.writeFileSync(process.env.FLEET_LOG_FILE, JSON.stringify({ deployedAt, firstShortAt, steadyFrom, steadyTo, outageFrom, catchUpFrom, catchUpTo, log, issued, heap, stalls, pauses }));
    }

    // The key's limits as the service states them (asked with another key of the same fleet size).
    const limits = await fetch(`${sim.apiUrl}/v3/devices/models`, { headers: { Authorization: `Bearer ${SIM_KEYS.writeNoSwitch}` } });
    const keyTps = Number(limits.headers.get('x-ratelimit-tpslimit'));
    const keyTpd = Number(limits.headers.get('x-ratelimit-tpdlimit'));
    // Measured: the flow stops; the checks below read the simulator directly, without latency or limits.
    await nr.stop();
    nr = undefined;
    await control(sim, 'POST', 'faults', { latencyMs: 0, latencyJitterMs: 0, arrivalJitterMs: 0 });
    await control(sim, 'POST', 'limits', { tps: 1_000_000, tpd: 100_000_000 });
    const steadyLog = between(log, steadyFrom, steadyTo);
    const catchUpLog = between(log, catchUpFrom, catchUpTo);
    const tooMany = log.filter((r) => r.status === 429).length;
    const busiest = maxPerSecond(log);
    const perDay = (steadyLog.length / STEADY_S) * 86400;
    console.log(`key limits (from the service's headers): ${keyTps}/s, ${keyTpd}/day; requests: ${log.length} in all, ${steadyLog.length} in the steady phase (${(steadyLog.length / STEADY_S).toFixed(1)}/s), ` +
      `${between(log, outageFrom, catchUpFrom).length} during the outage (all failed), ${catchUpLog.length} in the catch-up`);
    check(tooMany === 0, `429 responses: ${tooMany} (0)`, true);
    check(busiest <= keyTps, `most requests in any sliding second at the gateway: ${busiest} (≤ ${keyTps})`, true);
    check(perDay <= keyTpd, `steady phase: ${Math.round(perDay)} requests a day at its pace (≤ the daily limit ${keyTpd}: ${((perDay / keyTpd) * 100).toFixed(0)} %)`);
    check(steady.ages.p95 !== undefined && steady.ages.p95 <= TARGETS.ageP95S,
      `steady phase: newest short-energy entry ${steady.ages.p95?.toFixed(1)} s old at the 95th percentile when delivered (≤ ${TARGETS.ageP95S}; median ${steady.ages.p50?.toFixed(1)}, max ${steady.ages.max?.toFixed(1)}, ${steady.ages.count} deliveries)`);
    check((steady.counts.errors ?? 0) === 0, `steady phase: errors ${steady.counts.errors ?? 0} (0)${steady.errors.length ? `: ${JSON.stringify(steady.errors.slice(0, 3))}` : ''}`);
    for (const [name, f] of [['steady phase', steady], ['catch-up', catchUp]]) {
      check(f.loop.p99Ms < TARGETS.loopP99Ms && f.ownStallMs <= TARGETS.loopMaxMs, `${name}: ${loopText(f)} (< ${TARGETS.loopP99Ms}; its own ≤ ${TARGETS.loopMaxMs})`);
    }
    const outageSent = ['shortMsgs', 'longMsgs', 'longTriggers', 'switchIssued'].reduce((n, k) => n + (outage.counts[k] ?? 0), 0);
    check((outage.counts.shortTriggers ?? 0) >= 1 && outage.counts.errors === outageSent,
      `outage (${((catchUpFrom - outageFrom) / 1000).toFixed(0)} s): ${outage.counts.shortTriggers ?? 0} 30-s and ${outage.counts.longTriggers ?? 0} 5-min trigger(s), ` +
      `${between(log, outageFrom, catchUpFrom).length} requests answered 5xx, every one of the ${outageSent} msgs to the API nodes ended in an error to the Catch node (${outage.counts.errors ?? 0}) before the service was back; ${loopText(outage)}`);

    const dataSlope = slopePerMinute(heap.map((h) => ({ min: h.min, mb: h.dataMb })));
    const slope = slopePerMinute(heap);
    check(heap.length >= 4 && dataSlope <= HEAP_MB_PER_MIN,
      `steady phase: heap after a full collection, compiled code aside, ${heap.map((h) => h.dataMb.toFixed(2)).join(', ')} MB: slope ${dataSlope.toFixed(3)} MB/min (flat: ≤ ${HEAP_MB_PER_MIN}); ` +
      `with compiled code ${heap[0].mb.toFixed(1)} → ${heap[heap.length - 1].mb.toFixed(1)} MB, ${slope.toFixed(3)} MB/min while V8 optimises the flow's paths (it settles after about 5 minutes)`);

    const catchUpS = (catchUpTo - catchUpFrom) / 1000;
    const floorS = (catchUpLog.length - 1) / keyTps + SIM_LATENCY_MS / 1000;
    console.log(`catch-up: Node-RED process CPU ${catchUp.cpuMs.toFixed(0)} ms (${((catchUp.cpuMs / catchUpPhaseS) / 10).toFixed(0)} % of a core) over the ${catchUpPhaseS.toFixed(1)} s from the service's return to 1 s after the last back-fill; ${catchUp.counts.shortEntries ?? 0} short and ${catchUp.counts.longEntries ?? 0} long entries emitted`);
    check(catchUpS <= TARGETS.catchUpRatio * floorS, `catch-up: ${catchUpLog.length} requests in ${catchUpS.toFixed(2)} s, floor ${floorS.toFixed(2)} s ((requests - 1) ÷ ${keyTps}/s + ${SIM_LATENCY_MS} ms): ${(catchUpS / floorS).toFixed(3)} × floor (≤ ${TARGETS.catchUpRatio})`);
    check((catchUp.counts.errors ?? 0) === 0, `catch-up: errors ${catchUp.counts.errors ?? 0} (0)${catchUp.errors.length ? `: ${JSON.stringify(catchUp.errors.slice(0, 3))}` : ''}`);
    const fill = await backFillCheck(sim, emitted, catchUpSimS);
    check(fill.wrong === 0 && fill.disorder === 0 && fill.keys === 2 * first.counts.shortMsgs,
      `back-fill: ${fill.got} entries emitted after the outage for ${fill.keys} device×kind, ${fill.expected} in the simulator; ${fill.wrong} differ, ${fill.disorder} emitted twice${fill.examples.length ? `: ${fill.examples.join('; ')}` : ''}`);

    const delays = switchDelays(issued, log);
    for (const name of ['steady', 'catchup']) {
      const mine = delays.filter((d) => d.phase === name);
      const worst = Math.max(...mine.map((d) => d.ms ?? Infinity));
      check(mine.length > 0 && worst <= TARGETS.switchMs, `${name === 'steady' ? 'steady phase' : 'catch-up'}: ${mine.length} switch command(s) to the wire in ${mine.map((d) => d.ms ?? 'never').join(', ')} ms (≤ ${TARGETS.switchMs})`);
    }

    const parse = await bareParseMs(sim, steadyLog);
    const cpuPerRequest = (steady.cpuMs - idleCpuMsPerS * STEADY_S) / steadyLog.length;
    const catchUpCpuPerRequest = (catchUp.cpuMs - idleCpuMsPerS * catchUpPhaseS) / between(log, catchUpFrom, catchUpFrom + catchUpPhaseS * 1000).length;
    console.log(`REPORTED: CPU of the Node-RED process per request, net of its idle ${(idleCpuMsPerS / 10).toFixed(1)} % of a core: steady phase ${cpuPerRequest.toFixed(2)} ms ` +
      `(${(steady.cpuMs / STEADY_S / 10).toFixed(1)} % of a core in all), beside a bare JSON.parse of the same bodies (${(parse.bytes / 1024).toFixed(1)} KB on average) ` +
      `${parse.ms.toFixed(3)} ms: ${(cpuPerRequest / parse.ms).toFixed(0)} ×; catch-up ${catchUpCpuPerRequest.toFixed(2)} ms a request`);
  } finally {
    if (nr) await nr.stop();
    await sim.stop();
    await BUSY.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
  console.log(`fleet bench took ${((Date.now() - benchStarted) / 60000).toFixed(1)} min; load average at the end ${loadAverage()}`);
  console.log(failures.length ? `fleet bench: ${failures.length} TARGET(S) MISSED` : 'fleet bench: all targets met');
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
