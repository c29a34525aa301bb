'use strict';
// `npm start` on a busy host: the demo (simulator and a real Node-RED with the example flows) started as `npm start`
// starts it, beside LOAD busy-loop processes (default 2), for BENCH_MINUTES (default 10); gated: no 429 from the
// energy API or the price endpoint in that time, and at most the key's limit in any sliding second of arrivals.
// The simulator runs in this process, which does nothing else and raises its own priority once Node-RED and the
// burners are started (they keep theirs): it stands for the service, which is not on the busy host.
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { start } = require('../scripts/start');
const { startBusyHost } = require('../scripts/busy-host');
const { maxPerSecond } = require('./service-processes');

const MINUTES = Number(process.env.BENCH_MINUTES || 10);
const TPS = 5;

async function main() {
  const busy = startBusyHost(Number(process.env.LOAD ?? 2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-load-'));
  const loadAt = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(`npm start on a busy host: ${busy.describe()}, ${MINUTES} min; load average ${loadAt()} on ${os.cpus().length} CPUs`);
  let demo;
  const failures = [];
  try {
    demo = await start({ userDir, port: 0, simPort: 0, reset: true, log: () => undefined });
    try { os.setPriority(process.pid, -15); } catch { /* not permitted: the simulator shares the CPU like the rest */ }
    const started = Date.now();
    while (Date.now() - started < MINUTES * 60_000) await new Promise((r) => setTimeout(r, 5000));
    const log = demo.simulator.control.log();
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
    await busy.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  for (const f of failures) console.log(`  MISS ${f}`);
  console.log(failures.length ? `npm start on a busy host: ${failures.length} TARGET(S) MISSED` : 'npm start on a busy host: all targets met');
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
