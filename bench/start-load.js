'use strict';
// `npm start` on a busy host: the demo (a real Node-RED with the example flows, deployed as `npm start` deploys
// them) beside LOAD busy-loop processes (default 2), for BENCH_MINUTES (default 10); gated: no 429 from the energy
// API or the price endpoint in that time, and at most the key's limit in any sliding second of arrivals.
// The simulator and the gateway stamping arrivals run in processes of their own at raised priority, pinned to the
// last CPU (bench/service-processes.js): they stand for the service, which is not on the busy host, and a simulator
// sharing the loaded event loop would stall and bunch its own stamps. Node-RED talks to the gateway as `npm start`
// talks to its simulator: the same flows, key and price endpoint.
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { start } = require('../scripts/start');
const { startBusyHost } = require('../scripts/busy-host');
const { control, maxPerSecond, startSim } = require('./service-processes');
const { SIM_KEYS, SIM_AMBER_KEY, AMBER_BASE_PATH } = require('../dist/simulator');

const MINUTES = Number(process.env.BENCH_MINUTES || 10);
const TPS = 5;
const SERVICE_CPUS = os.cpus().length >= 2 ? String(os.cpus().length - 1) : undefined;

async function main() {
  const busy = startBusyHost(Number(process.env.LOAD ?? 2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-load-'));
  const loadAt = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(`npm start on a busy host: ${busy.describe()}, ${MINUTES} min; arrivals stamped by the gateway's own process${SERVICE_CPUS ? ` on CPU ${SERVICE_CPUS}` : ''}; load average ${loadAt()} on ${os.cpus().length} CPUs`);
  let demo;
  let sim;
  const failures = [];
  try {
    sim = await startSim({}, { cpus: SERVICE_CPUS });
    process.env.AMBER_API_URL = `${sim.apiUrl}${AMBER_BASE_PATH}`;
    process.env.AMBER_API_KEY = SIM_AMBER_KEY;
    demo = await start({ userDir, port: 0, apiUrl: `${sim.apiUrl}/v3`, apiKey: SIM_KEYS.full, reset: true, log: () => undefined });
    const started = Date.now();
    while (Date.now() - started < MINUTES * 60_000) await new Promise((r) => setTimeout(r, 5000));
    const log = await control(sim, 'GET', 'log');
    const energy = log.filter((r) => r.path.startsWith('/v3'));
    const prices = log.filter((r) => !r.path.startsWith('/v3') && !r.path.startsWith('/__sim'));
    const refused = (rows) => rows.filter((r) => r.status === 429).length;
    const busiest = maxPerSecond(energy);
    console.log(`energy API: ${energy.length} requests, ${refused(energy)} × 429, busiest sliding second ${busiest} (limit ${TPS}); price endpoint: ${prices.length} requests, ${refused(prices)} × 429; load average ${loadAt()}`);
    if (refused(energy) || busiest > TPS) {
      const t0 = energy[0]?.at ?? 0;
      console.log(`  the energy API's first requests (ms from the first, path, status): ${energy.slice(0, 12).map((r) => `${r.at - t0} ${r.path} ${r.status}`).join('; ')}`);
    }
    if (refused(energy)) failures.push(`${refused(energy)} × 429 from the energy API (0)`);
    if (refused(prices)) failures.push(`${refused(prices)} × 429 from the price endpoint (0)`);
    if (busiest > TPS) failures.push(`busiest second ${busiest} (≤ ${TPS})`);
    if (energy.length === 0) failures.push('no request reached the simulator');
  } finally {
    await demo?.stop();
    await sim?.stop();
    await busy.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  for (const f of failures) console.log(`  MISS ${f}`);
  console.log(failures.length ? `npm start on a busy host: ${failures.length} TARGET(S) MISSED` : 'npm start on a busy host: all targets met');
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
