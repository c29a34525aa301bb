'use strict';
// Latency and arrival jitter (seeded, settable as start options and under /__sim/faults) and the extra
// seeded sites of `extraDevices`. Every test runs on a frozen sim clock; the draws are compared with a
// twin simulator of the same seed, never with the wall clock's luck.
const assert = require('node:assert/strict');
const { start, T0, SIM_KEYS, SIM_DEVICES } = require('./helpers');

const DAY = 86400;
const draws = (sim, what, n) => Array.from({ length: n }, () => sim.control[what]());

async function fault(t, body) {
  const res = await fetch(`${t.sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.text());
}

describe('simulator: latency and arrival jitter', function () {
  this.timeout(30000);
  const started = [];
  const sim = async (opts) => { const t = await start(opts); started.push(t); return t; };
  afterEach(async () => { await Promise.all(started.splice(0).map((t) => t.sim.close())); });

  it('latencyJitterMs spreads each response latency uniformly around latencyMs, the same for the same seed', async () => {
    const a = await sim({ latencyMs: 250, latencyJitterMs: 100, seed: 3 });
    const b = await sim({ latencyMs: 250, latencyJitterMs: 100, seed: 3 });
    const c = await sim({ latencyMs: 250, latencyJitterMs: 100, seed: 4 });
    const mine = draws(a.sim, 'responseDelayMs', 2000);
    assert.deepEqual(draws(b.sim, 'responseDelayMs', 2000), mine);
    assert.notDeepEqual(draws(c.sim, 'responseDelayMs', 2000), mine);
    assert.ok(mine.every((d) => d >= 150 && d <= 350), 'within 250 ± 100');
    assert.ok(Math.min(...mine) < 160 && Math.max(...mine) > 340, 'spread over the whole band');
    const mean = mine.reduce((s, d) => s + d, 0) / mine.length;
    assert.ok(Math.abs(mean - 250) < 5, `centred on latencyMs (mean ${mean})`);
    assert.deepEqual(draws(a.sim, 'arrivalDelayMs', 3), [0, 0, 0], 'no arrival jitter unless asked for');
  });

  it('arrivalJitterMs delays each request by 0..J before it is logged and counted', async () => {
    const a = await sim({ arrivalJitterMs: 200, seed: 5 });
    const twin = await sim({ arrivalJitterMs: 200, seed: 5 });
    const planned = draws(twin.sim, 'arrivalDelayMs', 3);
    assert.ok(planned.every((d) => d >= 0 && d < 200));
    for (const delay of planned) {
      a.sim.control.clearLog();
      const sent = Date.now();
      assert.equal((await a.get('/devices')).status, 200);
      const [entry] = a.sim.control.log();
      assert.ok(entry.at - sent >= Math.floor(delay) - 1, `logged ${entry.at - sent} ms after sending, drawn delay ${delay}`);
    }
  });

  it('both are settable under /__sim/faults, and /__sim/reset restores the start options and the seed', async () => {
    const a = await sim({ seed: 9 });
    const twin = await sim({ seed: 9, latencyMs: 40, latencyJitterMs: 30, arrivalJitterMs: 20 });
    await fault(a, { latencyMs: 40, latencyJitterMs: 30, arrivalJitterMs: 20 });
    const both = (s) => Array.from({ length: 50 }, () => [s.control.arrivalDelayMs(), s.control.responseDelayMs()]);
    const mine = both(a.sim);
    assert.deepEqual(both(twin.sim).slice(0), mine);
    assert.ok(mine.every(([arrive, respond]) => arrive >= 0 && arrive < 20 && respond >= 10 && respond <= 70));
    const bad = await fetch(`${a.sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ arrivalJitterMs: 'x' }) });
    assert.equal(bad.status, 400);
    await fetch(`${a.sim.url}/__sim/reset`, { method: 'POST' });
    assert.deepEqual(draws(a.sim, 'arrivalDelayMs', 2), [0, 0]);
    assert.deepEqual(draws(a.sim, 'responseDelayMs', 2), [0, 0]);
  });

  it('counts from the arrival a front process stamped, only when told to (arrivalStampHeader)', async () => {
    const stamped = Date.now() - 400;
    const headers = { 'X-Sim-Arrived-At': String(stamped) };
    const front = await sim({ arrivalStampHeader: true, arrivalJitterMs: 50, seed: 6 });
    const twin = await sim({ arrivalJitterMs: 50, seed: 6 });
    const delay = Math.round(twin.sim.control.arrivalDelayMs());
    assert.equal((await front.get('/devices', { headers })).status, 200);
    assert.equal(front.sim.control.log()[0].at, stamped + delay, 'the stamp plus the drawn network delay');
    const plain = await sim({});
    const before = Date.now();
    await plain.get('/devices', { headers });
    assert.ok(plain.sim.control.log()[0].at >= before, 'a client cannot set its own arrival time');
  });

  it('the command line takes them as flags', () => {
    const { parseCli } = require('../../dist/simulator/cli.js');
    const options = parseCli(['--latency-ms', '250', '--latency-jitter-ms', '100', '--arrival-jitter-ms', '20', '--extra-devices', '24'], {});
    assert.deepEqual(
      [options.latencyMs, options.latencyJitterMs, options.arrivalJitterMs, options.extraDevices],
      [250, 100, 20, 24],
    );
    assert.throws(() => parseCli(['--arrival-jitter-ms', 'soon'], {}), /--arrival-jitter-ms must be a number/);
  });
});

describe('simulator: extra seeded sites', function () {
  this.timeout(60000);
  const NOW = T0;
  let t;
  let plain;
  before(async () => {
    t = await start({ now: NOW, extraDevices: 24 });
    plain = await start({ now: NOW });
  });
  after(async () => { await t.sim.close(); await plain.sim.close(); });

  const extraIds = async (sim) => {
    const fixed = new Set(Object.values(SIM_DEVICES));
    return (await sim.get('/devices')).body.filter((id) => !fixed.has(id));
  };

  it('adds the sites to the whole-fleet keys only, and leaves the fixed fleet as it was', async () => {
    const all = (await t.get('/devices')).body;
    assert.equal(all.length, (await plain.get('/devices')).body.length + 24);
    assert.equal(new Set(all).size, all.length, 'unique ids');
    for (const key of [SIM_KEYS.readOnly, SIM_KEYS.writeNoSwitch]) assert.deepEqual((await t.get('/devices', { key })).body, all);
    assert.deepEqual((await t.get('/devices', { key: SIM_KEYS.subset })).body, (await plain.get('/devices', { key: SIM_KEYS.subset })).body);
    const extra = await extraIds(t);
    assert.equal((await t.get(`/devices/${extra[0]}`, { key: SIM_KEYS.subset })).status, 403, 'as for any device the key may not use');
    for (const id of Object.values(SIM_DEVICES)) {
      const q = id === SIM_DEVICES.forbidden ? `/devices/${id}` : `/long-energy/${id}?fromTs=${NOW - DAY}&toTs=${NOW}&granularity=hour&timezone=UTC`;
      const mine = await t.get(q);
      const theirs = await plain.get(q);
      assert.equal(mine.status, theirs.status, q);
      assert.deepEqual(mine.body, theirs.body, q);
    }
  });

  it('each is a believable site: labelled channels, Grid = loads - solar, solar by day, the same for the same seed', async () => {
    const extra = await extraIds(t);
    const models = new Set();
    for (const id of extra) {
      const dev = (await t.get(`/devices/${id}`)).body;
      models.add(dev.model);
      assert.ok(dev.label && dev.timezone, `${id} has a label and a timezone`);
      assert.ok(dev.channels.every((c) => c.label), `${id}: every channel labelled`);
      assert.equal(dev.channels[0].categoryId, 1, `${id}: channel 1 is Grid connect`);
      const days = (await t.get(`/long-energy/${id}?fromTs=${NOW - 3 * DAY}&toTs=${NOW}&granularity=hour&timezone=UTC`)).body;
      assert.ok(days.length > 48, `${id}: hours of data`);
      for (const e of days) {
        const expected = dev.channels.slice(1).reduce((sum, c, i) => sum + (c.categoryId === 5 ? -e.eReal[i + 1] : e.eReal[i + 1]), 0);
        assert.equal(e.eReal[0], expected, `${id} at ${e.timestamp}: grid = loads - solar`);
      }
      const solar = dev.channels.findIndex((c) => c.categoryId === 5);
      const made = days.map((e) => e.eReal[solar]);
      assert.ok(made.some((j) => j === 0) && made.some((j) => j > 0), `${id}: solar makes energy by day only`);
    }
    assert.ok(models.size >= 3, `several kinds of site (${[...models]})`);
    const again = await start({ now: NOW, extraDevices: 24 });
    const other = await start({ now: NOW, extraDevices: 24, seed: 2 });
    try {
      const describe = async (sim, id) => (await sim.get(`/devices/${id}`)).body;
      for (const id of extra.slice(0, 5)) assert.deepEqual(await describe(again, id), await describe(t, id));
      const labels = async (sim) => Promise.all((await extraIds(sim)).map(async (id) => (await describe(sim, id)).label));
      assert.notDeepEqual(await labels(other), await labels(t), 'another seed, other sites');
    } finally {
      await again.sim.close();
      await other.sim.close();
    }
  });

  it('refuses a count that is not a whole number in range', async () => {
    for (const extraDevices of [-1, 1.5, 10_000]) await assert.rejects(start({ extraDevices }), /extraDevices must be a whole number/);
  });
});
