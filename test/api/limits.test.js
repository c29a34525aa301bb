'use strict';
const assert = require('node:assert/strict');
const { EnergyApiClient, EnergyApiError, floorToBucket } = require('../../dist/api');
const { startSimulator, SIM_DEVICES: D, SIM_KEYS: K } = require('../../dist/simulator');
const { startSim } = require('../../bench/service-processes');

/** Largest number of requests the simulator received within any 1000 ms window. */
function busiestSecond(times) {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The simulator's clock, frozen for every test (the client reads the same clock); rates run on real time. */
const T0 = Date.UTC(2026, 5, 15, 12, 0, 7) / 1000;

// Arrivals counted where the service counts them: the simulator in its own process behind a gateway process that
// stamps them (in the real-time class where allowed). The simulator of the tests below shares this test's event loop,
// which a busy host stalls: it stamped two requests late and refused them at load 17-22 (and once, beside other
// work at load 7-10, a learnt limit of 2 a second).
for (const headerStyle of ['live', 'spec']) describe(`rate limits: pipelining, arrivals stamped in another process (${headerStyle} headers)`, function () {
  this.timeout(60000);
  let sim;
  const control = (method, route, body) => fetch(`${sim.url}/__sim/${route}`, { method, body: body && JSON.stringify(body) });

  before(async () => {
    sim = await startSim({ tps: 5, headerStyle }, { realtimeGateway: true });
    assert.equal((await control('POST', 'clock', { now: T0 })).status, 200);
  });
  after(async () => sim?.stop());

  it('pipelines 50 requests at the key rate and never sends more than 5 in any second', async () => {
    assert.equal((await control('POST', 'faults', { latencyMs: 150 })).status, 200);
    const c = new EnergyApiClient({ baseUrl: `${sim.apiUrl}/v3`, apiKey: K.full, backoffBaseMs: 50, now: () => T0 * 1000 });
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 50 }, () => c.listDevices()));
      const elapsed = Date.now() - started;
      const log = (await (await control('GET', 'log')).json()).filter((r) => r.path.startsWith('/v3')).sort((a, b) => a.at - b.at);
      assert.equal(log.length, 50, `arrivals (stamp, status): ${JSON.stringify(log.map((r) => [r.at, r.status]))}`);
      assert.ok(log.every((r) => r.status === 200), 'no 429');
      assert.ok(busiestSecond(log.map((r) => r.at)) <= 5, `busiest second had ${busiestSecond(log.map((r) => r.at))}`);
      // Waiting for each response before the next would take 50 × (200 + 150) ms.
      assert.ok(elapsed < 50 * 350 * 0.75, `took ${elapsed} ms: requests were not pipelined`);
    } finally {
      await c.close();
    }
  });

  it('learns a lower per-second limit from the headers and keeps to it', async () => {
    assert.equal((await control('POST', 'limits', { tps: 2 })).status, 200);
    const c = new EnergyApiClient({ baseUrl: `${sim.apiUrl}/v3`, apiKey: K.full, backoffBaseMs: 50, now: () => T0 * 1000 });
    const apiLog = async () => (await (await control('GET', 'log')).json()).filter((r) => r.path.startsWith('/v3')).sort((a, b) => a.at - b.at);
    try {
      assert.equal((await control('DELETE', 'log')).status, 200);
      if (headerStyle === 'live') {
        await c.listDevices(); // every live answer tells the per-second limit
      } else {
        // The spec form names the per-second limit only on a 429 TPS.
        await Promise.all(Array.from({ length: 8 }, () => c.listDevices()));
        assert.ok((await apiLog()).some((r) => r.status === 429));
      }
      assert.equal(c.rateLimitState().tps, 2);
      assert.equal((await control('DELETE', 'log')).status, 200);
      await Promise.all(Array.from({ length: 8 }, () => c.listDevices()));
      const log = await apiLog();
      assert.equal(log.filter((r) => r.status === 429).length, 0, `arrivals (stamp, status): ${JSON.stringify(log.map((r) => [r.at, r.status]))}`);
      assert.ok(busiestSecond(log.map((r) => r.at)) <= 2);
    } finally {
      await c.close();
      assert.equal((await control('POST', 'limits', { tps: 5 })).status, 200);
    }
  });
});

for (const headerStyle of ['live', 'spec']) describe(`rate limits, retries and faults (${headerStyle} headers)`, function () {
  this.timeout(60000);
  let sim;
  const clients = [];
  const client = (extra = {}) => {
    const c = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: K.full, backoffBaseMs: 50, now: () => sim.control.now() * 1000, ...extra });
    clients.push(c);
    return c;
  };
  const apiLog = () => sim.control.log().filter((r) => r.path.startsWith('/v3'));

  before(async () => { sim = await startSimulator({ port: 0, now: T0, headerStyle }); });
  beforeEach(() => sim.control.reset());
  afterEach(async () => { await Promise.all(clients.splice(0).map((c) => c.close())); });
  after(async () => sim.close());

  it('puts an interactive request before queued bulk reads', async () => {
    const c = client();
    await c.listDevices(); // the first answer opens the window
    sim.control.clearLog();
    const bulk = Array.from({ length: 20 }, () => c.listDevices({ priority: 'bulk' }));
    await new Promise((r) => setTimeout(r, 50));
    const startedBefore = apiLog().length;
    await Promise.all([...bulk, c.getDevice(D.switch6M3SW, { priority: 'interactive' })]);
    const position = apiLog().findIndex((r) => r.path === `/v3/devices/${D.switch6M3SW}`);
    assert.ok(position <= Math.max(startedBefore, 5), `interactive arrived at position ${position} after ${startedBefore} bulk starts`);
  });

  it('stops at the daily budget learnt from the service, without sending', async () => {
    sim.control.setLimits({ tpd: 6 });
    const c = client();
    for (let i = 0; i < 6; i++) await c.getDevice(D.meter3M);
    assert.equal(c.rateLimitState().dailyRemaining, 0);
    await assert.rejects(c.getDevice(D.meter3M), (err) => err instanceof EnergyApiError && err.code === 'DAILY_LIMIT' && err.sent === false);
    assert.equal(apiLog().length, 6);
  });

  it('waits out 429 storms (bare 429s and Retry-After) and then succeeds', async () => {
    sim.control.setFaults({ storm429: 3 });
    const device = await client().getDevice(D.meter3M);
    assert.equal(device.id, D.meter3M);
    const statuses = apiLog().map((r) => r.status);
    assert.deepEqual(statuses, [429, 429, 429, 200]);
  });

  it('retries GETs on 5xx and resets but never a PATCH the service may have processed', async () => {
    const c = client();
    sim.control.setFaults({ errorRate: 1, seed: 1 });
    await assert.rejects(c.updateDevice(D.meter3M, { label: 'x' }), (err) => err.status >= 500);
    assert.equal(apiLog().filter((r) => r.method === 'PATCH').length, 1);
    sim.control.setFaults({ errorRate: 0, resetRate: 1, seed: 1 });
    await assert.rejects(c.updateDevice(D.meter3M, { label: 'y' }), (err) => err.code === 'NETWORK' || err.code === 'TIMEOUT');
    assert.equal(apiLog().filter((r) => r.method === 'PATCH').length, 2);
    sim.control.setFaults({ resetRate: 0, storm429: 1 });
    const out = await c.updateDevice(D.meter3M, { label: 'z' });
    assert.equal(out.device.label, 'z', 'a PATCH refused with 429 was not processed, so it is retried');
  });

  it('an outage: once twenty different requests failed in a row, a failed request is not retried until the service answers again', async () => {
    sim.control.setLimits({ tps: 1000 });
    const c = client({ tps: 1000, backoffBaseMs: 1, maxRetries: 2 });
    await c.listDevices();
    sim.control.clearLog();
    sim.control.setFaults({ errorRate: 1, seed: 1 });
    const read = (i) => c.getShortEnergy(D.meter3M, { fromTs: T0 - 3600 * (i + 1), toTs: T0 - 3600 * i });
    // One after the other, so the count does not depend on how fast the host is: nineteen different requests fail
    // with their two retries each; the twentieth failure tells the service is down, so it is not retried.
    for (let i = 0; i < 19; i += 1) await assert.rejects(read(i), (err) => err.status >= 500 && !/not retried/.test(err.message));
    assert.equal(apiLog().length, 19 * 3);
    await assert.rejects(read(19), /not retried: the service is failing every request/);
    assert.equal(apiLog().length, 19 * 3 + 1);
    // A fleet's reads at once while it is down: each tried once.
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => read(20 + i)));
    assert.ok(outcomes.every((o) => o.status === 'rejected' && o.reason.status >= 500 && /not retried/.test(o.reason.message)));
    assert.equal(apiLog().length, 19 * 3 + 1 + 10, 'each read tried once: the service was failing every request');
    // The service answers again: a single failing request is retried as before.
    sim.control.setFaults({ errorRate: 0 });
    await c.listDevices();
    sim.control.clearLog();
    sim.control.setFaults({ errorRate: 1, seed: 1 });
    await assert.rejects(c.getDevice(D.meter3M), (err) => err.status >= 500 && !/not retried/.test(err.message));
    assert.equal(apiLog().length, 3, 'the first attempt and two retries');
  });

  it('delivers a year of 5-minute data whole, exactly once, through 20 % errors and resets', async function () {
    this.timeout(120000);
    const to = floorToBucket(T0, '5m', 'UTC') - 86400;
    const query = { fromTs: to - 365 * 86400, toTs: to, granularity: '5m' };
    const clean = await client().getLongEnergy(D.meter3M, query);
    assert.equal(clean.length, 365 * 288);
    sim.control.clearLog();
    sim.control.setFaults({ errorRate: 0.1, resetRate: 0.1, seed: 7 });
    const faulty = await client({ maxRetries: 8 }).getLongEnergy(D.meter3M, query);
    const failures = apiLog().filter((r) => r.status !== 200).length;
    assert.ok(failures >= 5, `faults were injected (${failures})`);
    assert.equal(faulty.length, clean.length);
    assert.deepEqual(faulty, clean);
  });

  it('close() aborts queued requests and sends nothing afterwards', async () => {
    const c = client();
    const pending = Array.from({ length: 20 }, () => c.listDevices().then(() => 'ok', (err) => err.code));
    await new Promise((r) => setTimeout(r, 300));
    await c.close();
    const outcomes = await Promise.all(pending);
    const sent = apiLog().length;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(apiLog().length, sent);
    assert.ok(outcomes.filter((o) => o === 'ABORTED').length >= 15, outcomes.join());
  });
});
