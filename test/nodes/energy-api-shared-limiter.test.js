'use strict';
// Issue 12, first part: the limits belong to the key, so two energy-api config nodes holding one key
// share one client and limiter, and together never exceed the key's rate at the simulator.
// Arrivals are stamped by a gateway process in front of the simulator (the simulator shares this test's event loop,
// which a busy host stalls, and would bunch its own stamps), in the real-time class where allowed (niced, it waited
// behind other sessions' work and stamped late); LOAD=2 runs it beside two busy-loop processes.
const assert = require('node:assert/strict');
const { helper, startSimulator, nodeFile, startServer, stopServer, load } = require('../support/env');
const { startGateway } = require('../../bench/service-processes');
const { startBusyHost } = require('../../scripts/busy-host');
const { sharedClientHolders } = require('../../dist/api');
const { SIM_KEYS } = require('../../dist/simulator');

/** Largest number of requests the simulator received within any 1000 ms window (its log is in the order it served them). */
function busiestSecond(stamps) {
  const times = [...stamps].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('energy-api: one client and limiter per base address and key', function () {
  this.timeout(60000);
  let sim;
  let gateway;
  let busy;
  before(async () => {
    busy = startBusyHost();
    sim = await startSimulator({ port: 0, now: Date.UTC(2026, 5, 15, 12) / 1000, arrivalStampHeader: true });
    gateway = await startGateway(new URL(sim.baseUrl).origin, { realtime: true });
  });
  after(async () => Promise.all([gateway?.stop(), sim?.close(), busy?.stop()]));
  beforeEach(function (done) { sim.control.reset(); startServer(done); });
  afterEach(async () => stopServer());

  const baseUrl = () => `${gateway.url}${new URL(sim.baseUrl).pathname}`;
  const config = (id, tps = 5) => ({ id, type: 'energy-api', name: `config ${id}`, baseUrl: baseUrl(), tps, tpd: 10000, timezone: '' });

  it('two config nodes on one key share one client, never exceed the limit together, and release it with the last', async () => {
    const flow = [config('a'), config('b'), config('other')];
    await load([nodeFile('energy-api')], flow, { a: { apiKey: SIM_KEYS.full }, b: { apiKey: SIM_KEYS.full }, other: { apiKey: SIM_KEYS.readOnly } });
    const [a, b, other] = ['a', 'b', 'other'].map((id) => helper.getNode(id));
    assert.ok(a.client && a.client === b.client, 'one client for one key');
    assert.notEqual(other.client, a.client, 'another key has its own client');
    assert.equal(sharedClientHolders({ baseUrl: baseUrl(), apiKey: SIM_KEYS.full }), 2);

    const client = a.client;
    const reads = [];
    for (let i = 0; i < 15; i++) reads.push(a.client.listDevices(), b.client.listDevices());
    await Promise.all(reads);
    const log = sim.control.log().filter((r) => r.path.startsWith('/v3') && r.key5 === SIM_KEYS.full.slice(-5));
    assert.equal(log.length, 30, `arrivals (stamp, status) in serving order: ${JSON.stringify(log.map((r) => [r.at, r.status]))}`);
    assert.equal(log.filter((r) => r.status === 429).length, 0, 'no 429');
    const busiest = busiestSecond(log.map((r) => r.at));
    assert.ok(busiest <= 5, `busiest second at the simulator held ${busiest} requests of the key (limit 5)`);

    await helper.unload();
    assert.equal(sharedClientHolders({ baseUrl: baseUrl(), apiKey: SIM_KEYS.full }), 0, 'released with the last config node');
    await assert.rejects(client.listDevices(), (err) => err.code === 'ABORTED');
  });
});
