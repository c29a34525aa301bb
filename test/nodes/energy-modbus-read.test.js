'use strict';
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const {
  helper, startClockedSimulator, TEST_NOW_S, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { MODBUS_METER_FIELDS, EnergyApiError } = require('../../dist/api');

const MODBUS = SIM_DEVICES.modbus6MOne;
const STEP = 300;
const DAY = 86400;
const utc = (iso) => Date.parse(iso) / 1000;
// The simulated 6M+One swaps its PMC-220 for a PMC-340B at this instant (src/simulator/fleet.ts).
const METER_CHANGE = utc('2026-06-01T00:00:00Z');

describe('energy-modbus-read', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-modbus-read')];

  before(async function () {
    sim = await startClockedSimulator(); // frozen at TEST_NOW_S, after the meter change, nodes on the same clock
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  /** A config node, the modbus node (props), an output helper and a Catch node with its own helper. */
  async function setup(props = {}, key = sim.keys.full) {
    const api = apiConfig(sim, key);
    const flow = [
      api.node,
      { id: 'm', type: 'energy-modbus-read', api: 'api', deviceId: MODBUS, query: 'range', fromTs: '-24h', toTs: 'now', scale: 'units', wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(nodes, flow, api.credentials);
    const node = helper.getNode('m');
    const statuses = [];
    node.on('call:status', (call) => statuses.push(call.args[0]));
    return { node, out: helper.getNode('out'), caught: helper.getNode('caught'), statuses };
  }

  const modbusRequests = () => sim.control.log().filter((r) => r.path.includes('/modbus/'));
  const deviceRequests = () => sim.control.log().filter((r) => /\/devices\/[^/]+$/.test(r.path));

  /** Resolves with the caught msg, failing if the node also sent something. */
  async function expectError(ctx, msg) {
    let sent = false;
    ctx.out.on('input', () => { sent = true; });
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sent, false, 'nothing may be sent for a refused msg');
    return caught;
  }

  it('reads a range across the meter change, oldest first, with one segment per meter model', async function () {
    const ctx = await setup({ fromTs: '2026-05-31T12:00:00Z', toTs: '2026-06-01T12:00:00Z' });
    ctx.node.receive({});
    const msg = await nextMessage(ctx.out);
    const entries = msg.payload;
    assert.equal(entries.length, DAY / STEP);
    entries.forEach((e, i) => assert.equal(e.timestamp, utc('2026-05-31T12:00:00Z') + i * STEP));
    assert.deepEqual(msg.meters.map((m) => m.model), ['PMC-220', 'PMC-340B']);
    const [before, after] = msg.meters;
    assert.equal(before.from, entries[0].timestamp);
    assert.equal(before.to, METER_CHANGE - STEP);
    assert.equal(after.from, METER_CHANGE);
    assert.equal(after.to, entries[entries.length - 1].timestamp);
    assert.deepEqual(before.fields, [...MODBUS_METER_FIELDS['PMC-220']]);
    assert.deepEqual(after.fields, [...MODBUS_METER_FIELDS['PMC-340B']]);
    for (const entry of entries) {
      const segment = entry.timestamp < METER_CHANGE ? before : after;
      assert.equal(entry.model, segment.model);
      assert.deepEqual(Object.keys(entry).filter((k) => k !== 'model' && k !== 'timestamp').sort(), [...segment.fields].sort());
    }
    // The new meter counts from zero.
    assert.ok(entries.find((e) => e.timestamp === METER_CHANGE).kWh_Imp < entries.find((e) => e.timestamp === METER_CHANGE - STEP).kWh_Imp);
    assert.equal(msg.units.kWh_Imp, 'kWh');
    assert.equal(msg.units.kvarh_Q1, 'kvarh');
    assert.equal(msg.units._I, 'as stored');
    assert.equal(msg.units._Uan, 'as stored');
    assert.deepEqual(msg.range, { fromTs: utc('2026-05-31T12:00:00Z'), toTs: utc('2026-06-01T12:00:00Z'), timezone: 'Australia/Melbourne' });
    assert.equal(msg.deviceId, MODBUS);
    assert.equal(msg.scale, 'units');
    assert.deepEqual(ctx.statuses.at(-1), { fill: 'green', shape: 'dot', text: 'energy-modbus-read.status.entries' });
  });

  it('scales kWh_* and kvarh_* by 0.01 and leaves other fields as stored (compared with a raw read)', async function () {
    const ctx = await setup({ fromTs: '2026-05-31T23:00:00Z', toTs: '2026-06-01T01:00:00Z', scale: 'raw' });
    ctx.node.receive({});
    const raw = await nextMessage(ctx.out);
    ctx.node.receive({ scale: 'units' });
    const scaled = await nextMessage(ctx.out);
    assert.equal(raw.scale, 'raw');
    assert.equal(raw.units.kWh_Imp, '0.01 kWh');
    assert.equal(raw.units.kvarh_Imp, '0.01 kvarh');
    assert.equal(scaled.payload.length, raw.payload.length);
    assert.ok(raw.payload.length > 0);
    let counters = 0;
    raw.payload.forEach((r, i) => {
      const s = scaled.payload[i];
      for (const [field, value] of Object.entries(r)) {
        if (/^(kWh|kvarh)_/.test(field)) {
          assert.ok(Number.isInteger(value), `${field} is stored as a whole number of 0.01 units`);
          assert.equal(s[field], value / 100);
          counters += 1;
        } else {
          assert.equal(s[field], value, `${field} unchanged`);
        }
      }
    });
    assert.ok(raw.payload.some((r) => r.kWh_Imp > 0), 'the counters carry real values');
    assert.ok(counters > 100);
  });

  it('reads a range longer than 7 days as merged 7-day requests, no gaps or duplicates', async function () {
    const from = utc('2026-05-20T00:00:00Z');
    const to = from + 16 * DAY;
    const ctx = await setup({ fromTs: String(from), toTs: String(to * 1000) });
    sim.control.clearLog();
    ctx.node.receive({});
    const msg = await nextMessage(ctx.out);
    assert.equal(msg.payload.length, (to - from) / STEP);
    msg.payload.forEach((e, i) => assert.equal(e.timestamp, from + i * STEP));
    const requests = modbusRequests();
    assert.equal(requests.length, 3);
    for (const r of requests) assert.ok(Number(r.query.toTs) - Number(r.query.fromTs) <= 7 * DAY);
    assert.deepEqual(msg.meters.map((m) => m.model), ['PMC-220', 'PMC-340B']);
  });

  it('reads the first and the latest reading as one object (msg.query overrides the node)', async function () {
    const ctx = await setup({ query: 'first', scale: 'raw' });
    ctx.node.receive({});
    const first = await nextMessage(ctx.out);
    assert.equal(Array.isArray(first.payload), false);
    assert.equal(first.payload.model, 'PMC-220');
    assert.equal(first.payload.timestamp, utc('2024-01-01T00:00:00Z'));
    assert.deepEqual(first.meters, [{ model: 'PMC-220', from: first.payload.timestamp, to: first.payload.timestamp, fields: [...MODBUS_METER_FIELDS['PMC-220']] }]);
    assert.equal(first.range, undefined);

    ctx.node.receive({ query: 'latest' });
    const latest = await nextMessage(ctx.out);
    assert.equal(latest.query, 'latest');
    assert.equal(latest.payload.model, 'PMC-340B');
    assert.equal(latest.payload.timestamp, Math.floor(TEST_NOW_S / STEP) * STEP, 'the last reading before the clock');
    assert.deepEqual(ctx.statuses.at(-1), { fill: 'green', shape: 'dot', text: 'energy-modbus-read.status.edge' });
  });

  it('reads relative times ("yesterday" to "today") in the device timezone; msg overrides win', async function () {
    const ctx = await setup({ fromTs: '-1h', toTs: 'now', deviceId: '' });
    ctx.node.receive({ deviceId: MODBUS, fromTs: 'yesterday', toTs: 'today' });
    const msg = await nextMessage(ctx.out);
    const midnight = DateTime.fromSeconds(TEST_NOW_S, { zone: 'Australia/Melbourne' }).startOf('day');
    const from = midnight.minus({ days: 1 }).toSeconds();
    assert.deepEqual(msg.range, { fromTs: from, toTs: midnight.toSeconds(), timezone: 'Australia/Melbourne' });
    assert.equal(msg.payload[0].timestamp, from);
    assert.equal(msg.payload.length, (midnight.toSeconds() - from) / STEP);
  });

  it('refuses a device without a modbus meter before any modbus request', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.meter3M });
    sim.control.clearLog();
    const caught = await expectError(ctx, { _msgid: 'x1' });
    assert.equal(caught.apiError.code, 'INVALID_REQUEST');
    assert.match(caught.error.message, /B300000000001 is a 3M.*modbus/);
    assert.equal(modbusRequests().length, 0);
    assert.equal(deviceRequests().length, 1);
    assert.equal(ctx.statuses.at(-1).fill, 'red');
  });

  it('turns the service\'s 422 "UNPROCESSABLE ENTITY" into a clear error when the model cannot be read', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.rogowski3RM });
    const client = helper.getNode('api').client;
    client.knownDevice = async () => { throw new EnergyApiError({ status: 503, code: 'INTERNAL_SERVER_ERROR', message: 'the service failed: 503' }); };
    sim.control.clearLog();
    const caught = await expectError(ctx, {});
    assert.equal(modbusRequests().length, 1);
    assert.equal(modbusRequests()[0].status, 422);
    assert.equal(caught.apiError.status, 422);
    assert.equal(caught.apiError.code, 'UNPROCESSABLE_ENTITY');
    assert.match(caught.error.message, /F3E0000000004 does not support modbus/);
    assert.equal(ctx.statuses.at(-1).fill, 'red');
    assert.match(ctx.statuses.at(-1).text, /422 UNPROCESSABLE_ENTITY/);
  });

  it('gives [] with a yellow "no data" status for a range without readings, not an error', async function () {
    const ctx = await setup({ fromTs: '2023-12-01T00:00:00Z', toTs: '2023-12-03T00:00:00Z' });
    let caught = false;
    ctx.caught.on('input', () => { caught = true; });
    ctx.node.receive({});
    const msg = await nextMessage(ctx.out);
    assert.deepEqual(msg.payload, []);
    assert.deepEqual(msg.meters, []);
    assert.equal(caught, false);
    assert.deepEqual(ctx.statuses.at(-1), { fill: 'yellow', shape: 'ring', text: '@energy-monitor/node-red-energy-api/energy-api:common.status.noData' });
  });

  it('gives null for latest when the meter never reported (204)', async function () {
    sim.control.setClock({ now: utc('2023-06-01T00:00:00Z') });
    const ctx = await setup({ query: 'latest' });
    ctx.node.receive({});
    const msg = await nextMessage(ctx.out);
    assert.equal(msg.payload, null);
    assert.equal(ctx.statuses.at(-1).fill, 'yellow');
  });

  for (const [name, msg, pattern] of [
    ['an unknown query', { query: 'middle' }, /query must be "range", "first" or "latest"/],
    ['an unknown scale', { scale: 'MWh' }, /scale must be "raw".*"units"/],
    ['an unreadable time', { fromTs: 'last tuesday' }, /fromTs: cannot read "last tuesday"/],
    ['a time of the wrong type', { toTs: { at: 1 } }, /toTs must be unix seconds/],
    ['fromTs after toTs', { fromTs: '2026-06-02T00:00:00Z', toTs: '2026-06-01T00:00:00Z' }, /fromTs \(.*\) must be before toTs/],
    ['a malformed device id', { deviceId: 'nope' }, /is not a device id/],
  ]) {
    it(`refuses ${name} before any request, through Catch`, async function () {
      const ctx = await setup();
      sim.control.clearLog();
      const caught = await expectError(ctx, msg);
      assert.match(caught.error.message, pattern);
      assert.equal(caught.apiError.code, 'INVALID_REQUEST');
      assert.equal(sim.control.log().length, 0);
      assert.equal(ctx.statuses.at(-1).fill, 'red');
    });
  }

  it('reports a refused key through Catch and never shows the key', async function () {
    const ctx = await setup({}, sim.keys.disabled);
    const caught = await expectError(ctx, {});
    assert.ok([401, 403].includes(caught.apiError.status));
    assert.ok(caught.error.message.includes(sim.keys.disabled.slice(-5)));
    assertNoKey(sim.keys.disabled, caught, ctx.statuses, loggedText());
  });
});
