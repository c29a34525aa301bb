'use strict';
// The limiter as the service counts arrivals: the simulator runs in its own process behind a gateway process that
// stamps arrivals in the real-time class where allowed (the service is not on this busy host), so neither a stall of this
// process's event loop nor the host's load can hide in the stamps. Before and after two stalls, no one-second window
// at the simulator holds more than the key's limit, and nothing is refused. LOAD=2 runs it beside two busy loops.
const assert = require('node:assert/strict');
const { EnergyApiClient } = require('../../dist/api');
const { SIM_KEYS: K } = require('../../dist/simulator');
const { startSim } = require('../../bench/service-processes');
const { startBusyHost } = require('../../scripts/busy-host');

const T0 = Date.UTC(2026, 5, 15, 12, 0, 7) / 1000;

function busiestSecond(stamps) {
  const times = [...stamps].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function stall(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until); // eslint-disable-line no-empty
}

for (const headerStyle of ['live', 'spec']) describe(`limiter across event-loop stalls, simulator in another process (${headerStyle} headers)`, function () {
  this.timeout(60000);
  let sim;
  let busy;
  let url;

  before(async () => {
    busy = startBusyHost();
    sim = await startSim({ tps: 5, headerStyle }, { realtimeGateway: true });
    url = sim.url;
    const res = await fetch(`${url}/__sim/clock`, { method: 'POST', body: JSON.stringify({ now: T0 }) });
    assert.equal(res.status, 200);
  });
  after(async () => Promise.all([sim?.stop(), busy?.stop()]));

  it('never exceeds the limit in any second at the simulator, with stalls of 1.5 s and 0.8 s mid-run', async () => {
    const client = new EnergyApiClient({ baseUrl: `${sim.apiUrl}/v3`, apiKey: K.full, now: () => T0 * 1000 });
    try {
      await fetch(`${url}/__sim/log`, { method: 'DELETE' });
      const reads = Array.from({ length: 30 }, () => client.listDevices());
      await new Promise((r) => setTimeout(r, 300));
      stall(1500);
      await new Promise((r) => setTimeout(r, 700));
      stall(800);
      await Promise.all(reads);
      const log = (await (await fetch(`${url}/__sim/log`)).json()).filter((r) => r.path.startsWith('/v3'));
      assert.equal(log.length, 30, `arrivals (stamp, status): ${JSON.stringify(log.map((r) => [r.at, r.status]))}`);
      assert.equal(log.filter((r) => r.status === 429).length, 0, 'no 429');
      const busiest = busiestSecond(log.map((r) => r.at));
      assert.ok(busiest <= 5, `the busiest second at the simulator held ${busiest} requests`);
    } finally {
      await client.close();
    }
  });
});
