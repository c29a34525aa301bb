'use strict';
// Time to fetch one year of 5-minute long energy for one device (53 requests) at 5 requests/s with
// 250 ms simulated latency, as a ratio to the floor (requests ÷ rate). Target: ≤ 1.10 with zero 429s.
// The simulator runs in its own process behind the gateway that stamps arrivals (bench/service-processes.js): in this
// process it would share the client's event loop, and on a busy host stall and bunch its own stamps.
const { EnergyApiClient, floorToBucket, planLongRanges } = require('../dist/api');
const { SIM_DEVICES, SIM_KEYS } = require('../dist/simulator');
const { startSim, control, maxPerSecond, loadAverage } = require('./service-processes');

const TPS = 5;
const LATENCY_MS = 250;
const TARGET_RATIO = 1.1;

async function main() {
  const sim = await startSim({ latencyMs: LATENCY_MS, tps: TPS });
  const client = new EnergyApiClient({ baseUrl: `${sim.apiUrl}/v3`, apiKey: SIM_KEYS.full, tps: TPS });
  try {
    const nowS = Math.floor(Date.now() / 1000);
    const toTs = floorToBucket(nowS, '5m', 'UTC') - 86400;
    const query = { fromTs: toTs - 365 * 86400, toTs, granularity: '5m' };
    const requests = planLongRanges(query.fromTs, query.toTs, '5m', undefined, nowS).length;
    const started = process.hrtime.bigint();
    const entries = await client.getLongEnergy(SIM_DEVICES.meter3M, query);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const log = (await control(sim, 'GET', 'log')).filter((r) => r.path.startsWith('/v3'));
    const tooMany = log.filter((r) => r.status === 429).length;
    const floor = requests / TPS;
    const ratio = seconds / floor;
    console.log(`year of 5m long energy: ${entries.length} entries in ${requests} requests (${log.length} sent)`);
    const perSecond = maxPerSecond(log);
    console.log(`time ${seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s (requests ÷ ${TPS}/s), ratio ${ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}), 429 responses: ${tooMany}, most in any second at the gateway: ${perSecond}; load average ${loadAverage()}`);
    const ok = ratio <= TARGET_RATIO && tooMany === 0 && perSecond <= TPS && entries.length === 365 * 288;
    console.log(ok ? 'bench: target met' : 'bench: TARGET MISSED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await client.close();
    await sim.stop();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
