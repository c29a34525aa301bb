'use strict';
// Rate and memory bench (issue 11), figures as ratios measured in this one run:
//  - a year of 5-minute long energy for 1, 10 and 30 devices on one key at 5 req/s, 250 ms ± 100 ms latency:
//    wall time ÷ floor (requests ÷ rate) ≤ 1.05, zero 429s, max requests in any one-second window AT THE
//    SIMULATOR ≤ the limit; beside it the naive read (one request after another);
//  - a switch command issued during the reads reaches the wire within 1 s;
//  - ten concurrent year reads streamed page by page (pages output): heap peak above idle ≤ 200 MB; the same reads
//    held whole (entries output) are reported beside it, not gated.
// The simulator runs in its own process; a loopback proxy adds the jitter. BENCH_DEVICES=1,10 picks the fleet sizes.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { EnergyApiClient, floorToBucket, planLongRanges } = require('../dist/api');
const { SIM_DEVICES, SIM_KEYS } = require('../dist/simulator');
const { startJitterProxy } = require('./jitter-proxy');

const TPS = 5;
const SIM_LATENCY_MS = 150; // + 0–200 ms at the proxy = 250 ms ± 100 ms
const DAY = 86400;
const SIZES = (process.env.BENCH_DEVICES || '1,10,30').split(',').map(Number);
const TARGETS = { ratio: 1.05, switchMs: 1000, heapMb: 200 };
const READABLE = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.forbidden && id !== SIM_DEVICES.uninitialised);
const failures = [];

function startSim(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'sim-process.js'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (d) => resolve({ url: String(d).trim(), child, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) }));
    child.once('error', reject);
  });
}

async function control(sim, method, route, body) {
  const res = await fetch(`${sim.url}/__sim/${route}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return res.json();
}

/** Most requests that arrived at the simulator inside any one second. */
function maxPerSecond(log) {
  const at = log.map((r) => r.at).sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i] - at[j] >= 1000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/** Device i reads the year that ends i÷(devices) years before the latest (the simulator has ~8 devices). */
function yearFor(i, nowS) {
  const end = floorToBucket(nowS, '5m', 'UTC') - DAY - Math.floor(i / READABLE.length) * 365 * DAY;
  return { deviceId: READABLE[i % READABLE.length], query: { fromTs: end - 365 * DAY, toTs: end, granularity: '5m' } };
}

async function fleetRun(sim, proxyUrl, devices, withSwitch) {
  await control(sim, 'DELETE', 'log');
  const client = new EnergyApiClient({ baseUrl: `${proxyUrl}/v3`, apiKey: SIM_KEYS.full, tps: TPS });
  const nowS = Math.floor(Date.now() / 1000);
  const reads = Array.from({ length: devices }, (_, i) => yearFor(i, nowS));
  const requests = reads.reduce((n, r) => n + planLongRanges(r.query.fromTs, r.query.toTs, '5m', undefined, nowS).length, 0);
  let switchMs;
  const started = Date.now();
  const switching = withSwitch
    ? new Promise((r) => setTimeout(r, 3000)).then(async () => {
      const issued = Date.now();
      await client.updateDevice(SIM_DEVICES.switch6M3SW, { switches: [{ id: `${SIM_DEVICES.switch6M3SW}_S3`, state: 'closed' }] }, { priority: 'interactive' });
      const log = await control(sim, 'GET', 'log');
      const patch = log.find((r) => r.method === 'PATCH');
      switchMs = patch ? patch.at - issued : undefined;
    })
    : Promise.resolve();
  const results = await Promise.all(reads.map((r) => client.getLongEnergy(r.deviceId, r.query)));
  const seconds = (Date.now() - started) / 1000;
  await switching;
  await client.close();
  const log = (await control(sim, 'GET', 'log')).filter((r) => r.path.startsWith('/v3') && r.path.includes('long-energy'));
  const entries = results.reduce((n, e) => n + e.length, 0);
  return { requests, sent: log.length, seconds, floor: requests / TPS, tooMany: log.filter((r) => r.status === 429).length, perSecond: maxPerSecond(log), entries, switchMs };
}

/** One request after another, each awaited: the same year of the first device, no limiter pipelining. */
async function naiveRun(proxyUrl) {
  const client = new EnergyApiClient({ baseUrl: `${proxyUrl}/v3`, apiKey: SIM_KEYS.full, tps: TPS });
  const nowS = Math.floor(Date.now() / 1000);
  const { deviceId, query } = yearFor(0, nowS);
  const spans = planLongRanges(query.fromTs, query.toTs, '5m', undefined, nowS);
  const started = Date.now();
  for (const span of spans) {
    const t = Date.now();
    await client.getLongEnergy(deviceId, { ...span, granularity: '5m' });
    // A naive loop that also keeps to 5 req/s: at least 200 ms from one start to the next.
    const left = 1000 / TPS - (Date.now() - t);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  }
  await client.close();
  return { requests: spans.length, seconds: (Date.now() - started) / 1000 };
}

/** Heap peak above idle while `run` runs (sampled every 20 ms and at its end). */
async function heapPeak(run) {
  global.gc?.();
  const idle = process.memoryUsage().heapUsed;
  let peak = idle;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 20);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { result, peakMb: (peak - idle) / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Ten concurrent year reads streamed as the energy-query node's pages output reads them (each page used,
 * then dropped): gated. Beside it, the same reads each held whole (the entries output): reported only.
 */
async function memoryRun(sim, proxyUrl) {
  await control(sim, 'POST', 'limits', { tps: 1000 });
  await control(sim, 'POST', 'faults', { latencyMs: 0 });
  const client = new EnergyApiClient({ baseUrl: `${sim.url}/v3`, apiKey: SIM_KEYS.full, tps: 1000 });
  const nowS = Math.floor(Date.now() / 1000);
  const reads = Array.from({ length: 10 }, (_, i) => ({ deviceId: READABLE[i % READABLE.length], query: yearFor(i % READABLE.length, nowS).query }));
  const streamOne = async (r) => {
    let entries = 0;
    for await (const page of client.readPages('long', r.deviceId, r.query)) entries += page.length;
    return entries;
  };
  const streamed = await heapPeak(() => Promise.all(reads.map(streamOne)));
  const held = await heapPeak(async () => (await Promise.all(reads.map((r) => client.getLongEnergy(r.deviceId, r.query)))).reduce((n, e) => n + e.length, 0));
  console.log(`ten concurrent year reads held whole (entries output, ${held.result} entries): heap peak ${held.peakMb.toFixed(0)} MB above idle — reported, not gated: one msg holding a year of 5-minute entries is ~100 MB per device by nature`);
  await client.close();
  await control(sim, 'POST', 'limits', { tps: TPS });
  await control(sim, 'POST', 'faults', { latencyMs: SIM_LATENCY_MS });
  void proxyUrl;
  return { entries: streamed.result.reduce((n, e) => n + e, 0), peakMb: streamed.peakMb };
}

function check(ok, text) {
  console.log(`${ok ? '  ok  ' : '  MISS'} ${text}`);
  if (!ok) failures.push(text);
}

async function main() {
  const sim = await startSim({ latencyMs: SIM_LATENCY_MS, tps: TPS, tpd: 1_000_000 });
  const proxy = await startJitterProxy(sim.url);
  try {
    console.log(`fleet bench: 5 req/s, latency 150 ms at the simulator + 0–200 ms jitter at a loopback proxy (250 ms ± 100 ms)`);
    const naive = await naiveRun(proxy.url);
    console.log(`naive sequential year (1 device): ${naive.requests} requests in ${naive.seconds.toFixed(1)} s = ${(naive.seconds / (naive.requests / TPS)).toFixed(3)} × floor`);
    for (const devices of SIZES) {
      const r = await fleetRun(sim, proxy.url, devices, devices === SIZES[Math.min(1, SIZES.length - 1)]);
      const ratio = r.seconds / r.floor;
      console.log(`${devices} device(s): ${r.entries} entries, ${r.requests} requests (${r.sent} sent) in ${r.seconds.toFixed(1)} s, floor ${r.floor.toFixed(1)} s; naive ≈ ${(naive.seconds * devices * (r.requests / devices / naive.requests)).toFixed(0)} s (1-device naive × ${devices})`);
      check(ratio <= TARGETS.ratio, `${devices} devices: wall ÷ floor ${ratio.toFixed(3)} (≤ ${TARGETS.ratio})`);
      check(r.tooMany === 0, `${devices} devices: 429 responses ${r.tooMany} (0)${r.tooMany ? ' — waiting for client fix: sliding-window limiter' : ''}`);
      check(r.perSecond <= TPS, `${devices} devices: max requests in one second at the simulator ${r.perSecond} (≤ ${TPS})${r.perSecond > TPS ? ' — waiting for client fix: sliding-window limiter' : ''}`);
      if (r.switchMs !== undefined) check(r.switchMs <= TARGETS.switchMs, `switch command during ${devices}-device reads reached the wire in ${r.switchMs} ms (≤ ${TARGETS.switchMs})`);
    }
    const mem = await memoryRun(sim, proxy.url);
    check(mem.peakMb <= TARGETS.heapMb, `ten concurrent year reads streamed page by page (${mem.entries} entries, pages output): heap peak ${mem.peakMb.toFixed(0)} MB above idle (≤ ${TARGETS.heapMb})`);
  } finally {
    await proxy.close();
    await sim.stop();
  }
  console.log(failures.length ? `fleet bench: ${failures.length} TARGET(S) MISSED` : 'fleet bench: all targets met');
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
