'use strict';
// While the client retries through a short outage, the node says so, and says it no longer once the request ends.
const assert = require('node:assert/strict');
const {
  helper, startClockedSimulator, startServer, stopServer, flowWith, statusesOf, messagesOf, until,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { acquireClient } = require('../../dist/api');

const RETRYING = '@energy-monitor/node-red-energy-api/energy-api:common.status.retrying';
const isRetrying = (s) => s.fill === 'yellow' && s.text === RETRYING;
const RATE_WAIT = '@energy-monitor/node-red-energy-api/energy-api:common.status.rateLimited';
const isRateWait = (s) => s.fill === 'yellow' && s.text === RATE_WAIT;

describe('node status while the client retries', function () {
  let sim;

  before(async function () { sim = await startClockedSimulator(); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  const answered = () => sim.control.log().filter((r) => r.status !== 0);

  it('device-status shows "retrying" during a short outage, then the result', async function () {
    const nodes = await flowWith(sim, [
      { id: 's', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.meter3M, offlineAfter: 900, interval: 0, wires: [['out']] },
    ]);
    const statuses = statusesOf(nodes.s);
    const outputs = messagesOf(nodes.out);
    const caught = messagesOf(nodes.caught);
    sim.control.setFaults({ errorRate: 1 }); // every request fails with a 5xx: the service is down
    nodes.s.receive({});
    await until(() => statuses.some(isRetrying) && answered().length >= 2, 10000, 'a retry');
    assert.equal(outputs.length, 0);
    sim.control.setFaults({ errorRate: 0 }); // the service is back
    await until(() => outputs.length === 1, 15000, 'the answer');
    assert.equal(outputs[0].payload.id, SIM_DEVICES.meter3M);
    assert.deepEqual(statuses[0], { fill: 'blue', shape: 'dot', text: '@energy-monitor/node-red-energy-api/energy-api:common.status.requesting' });
    assert.ok(isRetrying(statuses[1]), JSON.stringify(statuses));
    assert.equal(statuses.at(-1).fill, 'green', 'the retry status is gone once the request is answered');
    assert.deepEqual(caught, []);
  });

  it('energy-query goes back to "requesting" once a retried request is answered, then shows the result', async function () {
    const nodes = await flowWith(sim, [
      { id: 'q', type: 'energy-query', api: 'api', deviceId: SIM_DEVICES.meter3M, kind: 'short', query: 'latest', timezone: 'UTC', output: 'entries', follow: false, wires: [['out']] },
    ]);
    const statuses = statusesOf(nodes.q);
    const outputs = messagesOf(nodes.out);
    sim.control.setFaults({ resetRate: 1 }); // connections are reset: no answer at all
    nodes.q.receive({});
    await until(() => statuses.some(isRetrying), 10000, 'a retry');
    sim.control.setFaults({ resetRate: 0 });
    await until(() => outputs.length === 1, 15000, 'the answer');
    const retry = statuses.findIndex(isRetrying);
    assert.ok(retry > 0, JSON.stringify(statuses));
    assert.ok(statuses.slice(retry).some((s) => s.fill === 'blue'), `the status before the retry comes back: ${JSON.stringify(statuses)}`);
    assert.equal(statuses.at(-1).fill, 'green');
  });

  it('a request that fails for good after its retries ends red, with the error to Catch', async function () {
    // Few, short retries so that the test does not wait for the full backoff: the key's one client in
    // this process is built by its first holder, so holding it first gives the config node this client.
    const lease = acquireClient({
      baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 50, maxRetries: 2, backoffBaseMs: 20, now: () => sim.control.now() * 1000,
    });
    try {
      const nodes = await flowWith(sim, [
        { id: 's', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.meter3M, offlineAfter: 900, interval: 0, wires: [['out']] },
      ], { config: { tps: 50 } });
      assert.equal(nodes.api.client, lease.client, 'the config node uses the client held first');
      const statuses = statusesOf(nodes.s);
      const caught = messagesOf(nodes.caught);
      sim.control.setFaults({ errorRate: 1 });
      nodes.s.receive({});
      await until(() => caught.length === 1, 10000, 'the error');
      assert.equal(statuses.filter(isRetrying).length, 2);
      assert.equal(statuses.at(-1).fill, 'red');
      assert.ok(caught[0].apiError.status >= 500);
      assert.equal(answered().length, 3, 'the first attempt and its 2 retries');
    } finally {
      await lease.release();
    }
  });

  it('a wait after a 429 shows on the node whose own request waits, and on no other node of the key', async function () {
    // The wait after the 429 is long enough (3-6 s) for the second request to queue inside it on a busy host.
    const lease = acquireClient({
      baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 50, backoffBaseMs: 6000, backoffMaxMs: 6000, now: () => sim.control.now() * 1000,
    });
    try {
      const nodes = await flowWith(sim, [
        { id: 'first', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.meter3M, offlineAfter: 900, interval: 0, wires: [['out1']] },
        { id: 'queued', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.switch6M3SW, offlineAfter: 900, interval: 0, wires: [['out2']] },
        { id: 'idle', type: 'energy-query', api: 'api', deviceId: SIM_DEVICES.meter3M, kind: 'short', query: 'latest', timezone: 'UTC', output: 'entries', follow: false, wires: [['out3']] },
      ], { config: { tps: 50 } });
      assert.equal(nodes.api.client, lease.client, 'the config node uses the client held first');
      const first = statusesOf(nodes.first);
      const queued = statusesOf(nodes.queued);
      const idle = statusesOf(nodes.idle);
      const caught = messagesOf(nodes.caught);
      sim.control.setFaults({ storm429: 1 }); // the next request is refused with a 429: the key pauses
      nodes.first.receive({});
      await until(() => first.some(isRetrying), 10000, 'the 429');
      assert.ok(lease.client.limiter.state().throttled, 'the key waits after the 429');
      assert.deepEqual(idle, [], 'a node with no request of its own never shows the wait');
      nodes.queued.receive({});
      await until(() => queued.some(isRateWait), 5000, 'the queued request\'s wait');
      await until(() => queued.at(-1).fill === 'green' && first.at(-1).fill === 'green', 20000, 'both answers');
      assert.ok(queued.findIndex(isRateWait) < queued.findLastIndex((s) => s.fill === 'green'), JSON.stringify(queued));
      assert.ok(!first.some(isRateWait), `the request that got the 429 says it retries: ${JSON.stringify(first)}`);
      assert.deepEqual(idle, [], 'a node with no request of its own never shows the wait');
      assert.deepEqual(caught, []);
    } finally {
      await lease.release();
    }
  });
});
