'use strict';
// Time to fetch one year of 5-minute long energy for one device (53 requests) at 5 requests/s with
// 250 ms simulated latency, as a ratio to the floor (requests ÷ rate). Target: ≤ 1.10 with zero 429s.
const { EnergyApiClient, floorToBucket, planLongRanges } = require('../dist/api');
const { startSimulator, SIM_DEVICES, SIM_KEYS } = require('../dist/simulator');

const TPS = 5;
const LATENCY_MS = 250;
const TARGET_RATIO = 1.1;

async function main() {
  const sim = await startSimulator({ port: 0, latencyMs: LATENCY_MS, tps: TPS });
  const client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: SIM_KEYS.full, tps: TPS });
  try {
    const nowS = Math.floor(Date.now() / 1000);
    const toTs = floorToBucket(nowS, '5m', 'UTC') - 86400;
    const query = { fromTs: toTs - 365 * 86400, toTs, granularity: '5m' };
    const requests = planLongRanges(query.fromTs, query.toTs, '5m', undefined, nowS).length;
    const started = process.hrtime.bigint();
    const entries = await client.getLongEnergy(SIM_DEVICES.meter3M, query);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const log = sim.control.log().filter((r) => r.path.startsWith('/v3'));
    const tooMany = log.filter((r) => r.status === 429).length;
    const floor = requests / TPS;
    const ratio = seconds / floor;
    console.log(`year of 5m long energy: ${entries.length} entries in ${requests} requests (${log.length} sent)`);
    console.log(`time ${seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s (requests ÷ ${TPS}/s), ratio ${ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}), 429 responses: ${tooMany}`);
    const ok = ratio <= TARGET_RATIO && tooMany === 0 && entries.length === 365 * 288;
    console.log(ok ? 'bench: target met' : 'bench: TARGET MISSED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await client.close();
    await sim.close();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
