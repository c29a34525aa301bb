'use strict';
// The paged range read (client.readPages) against the simulator over real HTTP: pages oldest first, one
// per request, duplicates across page edges dropped, read-ahead bounded whatever the consumer's pace, and an
// abort or close mid-read leaving no request, timer or rejection behind.
const assert = require('node:assert/strict');
const { EnergyApiClient, EnergyApiError, RangePages, planLongRanges } = require('../../dist/api');
const { startSimulator, SIM_DEVICES: D, SIM_KEYS: K } = require('../../dist/simulator');

/** The simulator's clock, frozen (the client reads the same clock). */
const T0 = Date.UTC(2026, 5, 15, 12, 0, 7) / 1000;
const DAY = 86400;
const END = Math.floor(T0 / 300) * 300 - DAY;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('EnergyApiClient.readPages against the simulator', function () {
  this.timeout(30000);
  let sim;
  let client;
  const unhandled = [];
  const onUnhandled = (err) => unhandled.push(err);
  const energyRequests = () => sim.control.log().filter((r) => r.path.includes('/long-energy/'));

  before(async () => {
    sim = await startSimulator({ port: 0, now: T0, tps: 1000 });
    process.on('unhandledRejection', onUnhandled);
  });
  beforeEach(() => {
    sim.control.reset();
    client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: K.full, tps: 1000, now: () => sim.control.now() * 1000 });
  });
  afterEach(async () => {
    sim.control.setFaults({ latencyMs: 0 });
    await client.close();
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await sim.close();
  });

  it('yields one page per request, oldest first, equal to the collected read', async () => {
    const query = { fromTs: END - 30 * DAY, toTs: END, granularity: '5m' };
    const planned = planLongRanges(query.fromTs, query.toTs, '5m', undefined, Math.floor(T0)).length;
    const pages = client.readPages('long', D.switch6M3SW, query);
    assert.equal(pages.requests, planned);
    const seen = [];
    for await (const page of pages) seen.push(page);
    assert.equal(seen.length, planned);
    assert.ok(seen.every((page) => page.length > 0));
    const ts = seen.flat().map((e) => e.timestamp);
    assert.ok(ts.every((t, i) => i === 0 || t > ts[i - 1]), 'strictly increasing across pages');
    assert.equal(ts[0], query.fromTs + 300);
    assert.equal(ts.at(-1), query.toTs);
    const whole = await client.getLongEnergy(D.switch6M3SW, query);
    assert.deepEqual(whole.map((e) => e.timestamp), ts);
  });

  it('drops the entries a page repeats from the page before it (overlapping ranges at the edge)', async () => {
    const ranges = [{ fromTs: END - 2 * DAY, toTs: END - DAY }, { fromTs: END - DAY - 3600, toTs: END }];
    const fetch = (range, signal) => client.getLongEnergy(D.meter3M, { ...range, granularity: '5m' }, { signal });
    const [first, second] = await new RangePages(ranges, fetch).collect().then((all) => [
      all.filter((e) => e.timestamp <= END - DAY), all.filter((e) => e.timestamp > END - DAY),
    ]);
    assert.equal(first.length, 288);
    assert.equal(second.length, 288, 'the hour read twice is delivered once');
    assert.equal(energyRequests().length, 2);
    const again = [];
    for await (const page of new RangePages(ranges, fetch)) again.push(page.length);
    assert.deepEqual(again, [288, 288]);
  });

  it('keeps at most readAhead pages requested ahead of a consumer that waits', async () => {
    const pages = client.readPages('long', D.switch6M3SW, { fromTs: END - 60 * DAY, toTs: END, granularity: '5m' }, { readAhead: 3 });
    assert.equal(energyRequests().length, 0, 'nothing is sent before the first page is asked for');
    const first = await pages.next();
    assert.equal(first.done, false);
    await sleep(300);
    assert.equal(energyRequests().length, 1 + 3, 'the page delivered and three ahead');
    await pages.next();
    await sleep(300);
    assert.equal(energyRequests().length, 2 + 3);
    await pages.close();
    assert.deepEqual(await pages.next(), { done: true, value: undefined });
  });

  it('refuses a read over maxRequests, a bad device and a bad kind before sending anything', () => {
    assert.throws(() => client.readPages('long', D.meter3M, { fromTs: END - 365 * DAY, toTs: END, granularity: '5m' }, { maxRequests: 10 }), (e) => e instanceof EnergyApiError && e.code === 'REQUEST_BUDGET');
    assert.throws(() => client.readPages('long', '../devices', { fromTs: END - DAY, toTs: END }), /not a device id/);
    assert.throws(() => client.readPages('daily', D.meter3M, { fromTs: END - DAY, toTs: END }), /kind must be/);
    assert.equal(sim.control.log().length, 0);
  });

  for (const how of ['signal', 'close']) {
    it(`stops mid-read on ${how === 'signal' ? 'an aborted signal' : 'close()'}: no request, timer or rejection left behind`, async () => {
      await sleep(10); // mocha arms its own timeout timer once the test has returned its promise
      const idleTimers = timers();
      sim.control.setFaults({ latencyMs: 150 });
      const stop = new AbortController();
      const pages = client.readPages('long', D.switch6M3SW, { fromTs: END - 90 * DAY, toTs: END, granularity: '5m' }, { signal: stop.signal });
      const first = await pages.next();
      assert.ok(first.value.length > 0);
      const waiting = pages.next();
      if (how === 'signal') stop.abort();
      else await pages.close();
      // An aborted signal is an error for the consumer; close() is the consumer's own choice, so it just ends.
      if (how === 'signal') await assert.rejects(waiting, (e) => e instanceof EnergyApiError && e.code === 'ABORTED');
      else assert.deepEqual(await waiting, { done: true, value: undefined });
      assert.deepEqual(await pages.next(), { done: true, value: undefined });
      const sent = energyRequests().length;
      assert.ok(sent < pages.requests, `${sent} of ${pages.requests} requests sent before the stop`);
      await sleep(500);
      assert.equal(energyRequests().length, sent, 'nothing sent after the stop');
      assert.equal(timers(), idleTimers, 'no timer left');
      assert.deepEqual(unhandled, []);
    });
  }

  it('reports the first failure, not the aborts it causes', async () => {
    sim.control.setFaults({ latencyMs: 150 });
    const ranges = [{ fromTs: END - 3 * DAY, toTs: END - 2 * DAY }, { fromTs: END - 2 * DAY, toTs: END - DAY }, { fromTs: END - DAY, toTs: END }];
    // The third range names a device outside the key: the service answers 403 while the others are in flight.
    const fetch = (range, signal) => client.getLongEnergy(range.toTs === END ? D.forbidden : D.meter3M, { ...range, granularity: '5m' }, { signal });
    const pages = new RangePages(ranges, fetch);
    const got = [];
    await assert.rejects(async () => { for await (const page of pages) got.push(page.length); }, (e) => e instanceof EnergyApiError && e.status === 403);
    assert.ok(got.length <= 2);
    assert.deepEqual(unhandled, []);
  });
});
