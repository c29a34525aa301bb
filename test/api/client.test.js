'use strict';
const assert = require('node:assert/strict');
const { EnergyApiClient, EnergyApiError } = require('../../dist/api');
const { startSimulator, SIM_DEVICES: D, SIM_KEYS: K } = require('../../dist/simulator');

/** The simulator's clock, frozen here for every test (the client reads the same clock). */
const T0 = Date.UTC(2026, 5, 15, 12, 0, 7) / 1000;

for (const headerStyle of ['live', 'spec']) describe(`EnergyApiClient against the simulator (${headerStyle} headers)`, function () {
  let sim;
  const clients = [];
  const client = (key = K.full, extra = {}) => {
    const c = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: key, backoffBaseMs: 20, now: () => sim.control.now() * 1000, ...extra });
    clients.push(c);
    return c;
  };
  const apiRequests = () => sim.control.log().filter((r) => r.path.startsWith('/v3'));
  const rejects = async (promise, check) => {
    await assert.rejects(promise, (err) => {
      assert.ok(err instanceof EnergyApiError, `expected EnergyApiError, got ${err}`);
      check(err);
      return true;
    });
  };

  before(async () => { sim = await startSimulator({ port: 0, now: T0, headerStyle }); });
  beforeEach(() => sim.control.reset());
  afterEach(async () => { await Promise.all(clients.splice(0).map((c) => c.close())); });
  after(async () => sim.close());

  it('reads the key\'s daily budget and its reset from this header form', async () => {
    const c = client();
    await c.listDevices();
    const state = c.rateLimitState();
    assert.equal(state.tpd, 10000);
    assert.equal(state.dailyRemaining, 9999);
    assert.equal(state.dailyResetAt, Date.UTC(2026, 5, 16) / 1000, 'the next UTC midnight of the simulator\'s clock');
  });

  describe('devices, models, categories', () => {
    it('lists the devices the key may access, unpaginated', async () => {
      const ids = await client().listDevices();
      assert.ok(ids.includes(D.meter3M) && ids.includes(D.wifi6MW));
      assert.ok(!ids.includes(D.forbidden));
      assert.deepEqual((await client(K.subset).listDevices()).sort(), [D.meter3M, D.switch6M3SW].sort());
    });
    it('reads a device with comms, channels, phases and switches', async () => {
      const device = await client().getDevice(D.switch6M3SW);
      assert.equal(device.id, D.switch6M3SW);
      assert.equal(device.model, '6M+3SW');
      assert.equal(device.channels.length, 6);
      assert.equal(device.switches.length, 3);
      assert.ok(device.phases && 'count' in device.phases);
      const wifi = await client().getDevice(D.wifi6MW);
      assert.equal(wifi.comms.type, 'cellular,wifi');
      assert.ok(wifi.comms.cellular && wifi.comms.wifi);
    });
    it('reads models and categories', async () => {
      const c = client();
      const models = await c.getModels();
      assert.deepEqual(models.find((m) => m.code === '3M'), { ...models.find((m) => m.code === '3M'), channelsCount: 3, switchesCount: 0 });
      const categories = await c.getChannelCategories();
      assert.ok(categories.some((x) => x.id === -1) && categories.some((x) => x.id === 0));
      await c.getChannelCategories();
      assert.equal(apiRequests().filter((r) => r.path === '/v3/devices/channel-categories').length, 1, 'categories are cached');
    });
    it('shares one request between concurrent reads of one device, each caller keeping its own signal', async () => {
      const c = client();
      sim.control.setFaults({ latencyMs: 200 });
      const cancelled = new AbortController();
      const reads = [c.getDevice(D.meter3M), c.getDevice(D.meter3M, { signal: cancelled.signal }), c.getDevice(D.meter3M), c.getDevice(D.wifi6MW)];
      cancelled.abort();
      const [a, b, d, w] = await Promise.allSettled(reads);
      assert.equal(a.value.id, D.meter3M);
      assert.equal(b.reason.code, 'ABORTED');
      assert.equal(d.value, a.value);
      assert.equal(w.value.id, D.wifi6MW);
      assert.equal(apiRequests().filter((r) => r.path === `/v3/devices/${D.meter3M}`).length, 1);
      await c.getDevice(D.meter3M);
      assert.equal(apiRequests().filter((r) => r.path === `/v3/devices/${D.meter3M}`).length, 2, 'a later read asks again');
    });
    it('sends the bearer key, the exact path and no trailing slash', async () => {
      await client().getDevice(D.meter3M);
      const [req] = apiRequests();
      assert.equal(req.path, `/v3/devices/${D.meter3M}`);
      assert.equal(req.key5, K.full.slice(-5));
    });
  });

  describe('errors', () => {
    it('401 when the key is missing is impossible: the client refuses to start without one', () => {
      assert.throws(() => new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: '' }), /API key is required/);
    });
    it('names a refused key by its last 5 characters only', async () => {
      const c = client(K.disabled);
      const events = [];
      c.on('keyStatus', (s) => events.push(s));
      await rejects(c.listDevices(), (err) => {
        assert.equal(err.status, 403);
        assert.equal(err.code, 'NOT_PERMITTED');
        assert.ok(err.message.includes(K.disabled.slice(-5)));
        assert.ok(!JSON.stringify(err.toJSON()).includes(K.disabled));
        assert.ok(!err.stack.includes(K.disabled));
      });
      assert.equal(events.length, 1);
      assert.equal(events[0].accepted, false);
    });
    it('403 for a device outside the key, 404 for an unknown device, trusting the status line', async () => {
      await rejects(client().getDevice(D.forbidden), (err) => { assert.equal(err.status, 403); assert.equal(err.code, 'FORBIDDEN'); });
      await rejects(client().getDevice('B000000000000'), (err) => { assert.equal(err.status, 404); assert.equal(err.code, 'NOT_FOUND'); });
    });
    it('refuses a malformed device id before sending', async () => {
      await rejects(client().getDevice('B12/../devices'), (err) => assert.equal(err.code, 'INVALID_REQUEST'));
      assert.equal(apiRequests().length, 0);
    });
    it('normalises the modbus 422 code written with a space', async () => {
      await rejects(client().getModbus(D.meter3M, { fromTs: T0 - 3600, toTs: T0 }), (err) => {
        assert.equal(err.status, 422);
        assert.equal(err.code, 'UNPROCESSABLE_ENTITY');
        assert.match(err.message, /unsupported/i);
      });
    });
    it('refuses plain http to a non-loopback host', () => {
      assert.throws(() => new EnergyApiClient({ baseUrl: 'http://energy.example.com/v3', apiKey: 'k'.repeat(20) }), /must use https/);
      assert.doesNotThrow(() => new EnergyApiClient({ baseUrl: 'https://energy.example.com/v3', apiKey: 'k'.repeat(20) }).close());
    });
  });

  describe('PATCH /devices', () => {
    it('accepts 200 for metadata and 202 for a switch state, with pending shown', async () => {
      const c = client();
      const meta = await c.updateDevice(D.switch6M3SW, { label: 'Workshop' });
      assert.equal(meta.status, 200);
      assert.equal(meta.device.label, 'Workshop');
      const before = await c.getDevice(D.switch6M3SW);
      const sw = before.switches[0];
      const target = sw.state === 'open' ? 'closed' : 'open';
      const out = await c.updateDevice(D.switch6M3SW, { switches: [{ id: sw.id, state: target }] });
      assert.equal(out.status, 202);
      assert.equal(out.device.switches[0].pending.state, target);
    });
    it('validates before sending: a 65-character label never leaves the client', async () => {
      await rejects(client().updateDevice(D.meter3M, { label: 'x'.repeat(65) }), (err) => {
        assert.equal(err.code, 'INVALID_REQUEST');
        assert.match(err.errors[0].message, /label must be at most 64/);
      });
      assert.equal(apiRequests().filter((r) => r.method === 'PATCH').length, 0);
    });
    it('reads the device to check Rogowski CT rules and channel ids, then refuses', async () => {
      const c = client();
      await rejects(c.updateDevice(D.rogowski3RM, { channels: [{ id: `${D.rogowski3RM}_C1`, ctRating: 400 }] }), (err) => assert.match(err.message, /fixed at 3000/));
      await rejects(c.updateDevice(D.meter3M, { channels: [{ id: `${D.meter3M}_C4`, label: 'x' }] }), (err) => assert.match(err.message, /does not exist/));
      assert.equal(apiRequests().filter((r) => r.method === 'PATCH').length, 0);
    });
    it('surfaces 403 for write without permission and for switching without permission', async () => {
      await rejects(client(K.readOnly).updateDevice(D.meter3M, { label: 'x' }), (err) => assert.equal(err.status, 403));
      const c = client(K.writeNoSwitch);
      const device = await c.getDevice(D.switch6M3SW);
      const sw = device.switches[0];
      await rejects(c.updateDevice(D.switch6M3SW, { switches: [{ id: sw.id, state: sw.state === 'open' ? 'closed' : 'open' }] }), (err) => assert.equal(err.status, 403));
    });
    it('refuses a switch state on an uninitialised device before sending', async () => {
      await rejects(client().updateDevice(D.uninitialised, { switches: [{ id: `${D.uninitialised}_S1`, state: 'closed' }] }), (err) => assert.match(err.message, /never connected/));
      assert.equal(apiRequests().filter((r) => r.method === 'PATCH').length, 0);
    });
    it('waits for pending values no more often than once per 5 s', async function () {
      this.timeout(20000);
      const c = client();
      const device = await c.getDevice(D.switch6M3SW);
      const sw = device.switches[1];
      const target = sw.state === 'open' ? 'closed' : 'open';
      // The clock runs from T0 here: the client's 5 s spacing and timeout need time to pass.
      sim.control.setClock({ now: T0, real: true });
      await c.updateDevice(D.switch6M3SW, { switches: [{ id: sw.id, state: target }] });
      setTimeout(() => sim.control.reportNow(D.switch6M3SW), 6000);
      const outcome = await c.waitForDevice(D.switch6M3SW, (d) => !d.switches[1].pending, { timeoutMs: 15000 });
      assert.equal(outcome.done, true);
      assert.equal(outcome.device.switches[1].state, target);
      const gets = apiRequests().filter((r) => r.method === 'GET' && r.path === `/v3/devices/${D.switch6M3SW}`).map((r) => r.at);
      gets.slice(1).forEach((at, i) => assert.ok(at - gets[i] >= 4990, `polls ${at - gets[i]} ms apart`));
    });
  });

  describe('energy', () => {
    const now = () => Math.floor(T0);
    it('reads short energy, converted, with power factor, the plus sign arriving as a plus', async () => {
      const to = now();
      const entries = await client().getShortEnergy(D.meter3M, { fromTs: to - 3600, toTs: to, convert: 'kW', powerFactor: true });
      assert.ok(entries.length >= 100);
      assert.ok(Array.isArray(entries[0].pRealKw) && Array.isArray(entries[0].powerFactor));
      assert.equal(entries[0].eReal, undefined);
      const [req] = apiRequests();
      assert.equal(req.query['fields[energy]'], '+pf');
      assert.equal(req.query['convert[energy]'], 'kW');
    });
    it('splits a 3-day short range into 12-hour requests, merged oldest first without duplicates', async () => {
      const to = now();
      const entries = await client().getShortEnergy(D.meter3M, { fromTs: to - 3 * 86400, toTs: to });
      assert.equal(apiRequests().length, 6);
      const ts = entries.map((e) => e.timestamp);
      assert.deepEqual(ts, [...new Set(ts)].sort((a, b) => a - b));
      assert.ok(ts.every((t) => t >= to - 3 * 86400 && t < to));
    });
    it('refuses the invalid combinations of spec 4.12 before sending', async () => {
      const to = now();
      const c = client();
      await rejects(c.getShortEnergy(D.meter3M, { fromTs: to - 60, toTs: to, powerFactor: true, groupByPhase: true }), (e) => assert.match(e.message, /power factor cannot be combined/));
      await rejects(c.getEnergyEdge('short', D.meter3M, 'latest', { timestampOnly: true, convert: 'kWh' }), (e) => assert.match(e.message, /timestamp-only/));
      await rejects(c.getLongEnergy(D.meter3M, { fromTs: to - 86400, toTs: to, granularity: 'hour' }), (e) => assert.match(e.message, /timezone is required/));
      await rejects(c.getShortEnergy(D.meter3M, { fromTs: to - 60.5, toTs: to }), (e) => assert.match(e.message, /whole number/));
      await rejects(c.getShortEnergy(D.meter3M, { fromTs: to - 40 * 86400, toTs: to - 35 * 86400 }), (e) => assert.match(e.message, /31 days/));
      assert.equal(apiRequests().length, 0);
    });
    it('reads first/latest as one entry, timestamp-only, and null on 204', async () => {
      const c = client();
      const latest = await c.getEnergyEdge('long', D.meter3M, 'latest', { convert: 'kWh' });
      assert.ok(latest.timestamp > 0 && Array.isArray(latest.eRealKwh));
      const first = await c.getEnergyEdge('short', D.meter3M, 'first', { timestampOnly: true });
      assert.deepEqual(Object.keys(first), ['timestamp']);
      assert.equal(await c.getEnergyEdge('short', D.uninitialised, 'latest'), null);
      assert.deepEqual(await c.getShortEnergy(D.uninitialised, { fromTs: now() - 600, toTs: now() }), []);
    });
    it('groups by phase in grouping order and converts kWh', async () => {
      const device = await client().getDevice(D.switch6M3SW);
      const to = now() - (now() % 300);
      const [entry] = await client().getLongEnergy(D.switch6M3SW, { fromTs: to - 300, toTs: to, groupByPhase: true, convert: 'kWh' });
      assert.equal(entry.groupedBy, 'phases');
      assert.equal(entry.eRealKwh.length, device.phases.grouping.length);
    });
    it('reads modbus across the meter change, in 7-day requests', async () => {
      const change = Date.UTC(2026, 5, 1) / 1000;
      const entries = await client().getModbus(D.modbus6MOne, { fromTs: change - 10 * 86400, toTs: change + 4 * 86400 });
      assert.equal(apiRequests().length, 2);
      assert.equal(entries[0].model, 'PMC-220');
      assert.equal(entries.at(-1).model, 'PMC-340B');
      assert.equal(await client().getModbusEdge(D.modbus6MOne, 'latest', { timestampOnly: true }).then((e) => Object.keys(e).join()), 'timestamp');
    });
  });
});
