'use strict';
// Saved flows keep working across releases: each node loads a config saved in the 0.1 shape (no
// configVersion, numbers as text, properties added since missing) and works; the shared migration runner
// applies later steps in order and leaves flows from a newer release alone.
const assert = require('node:assert/strict');
const { helper, startClockedSimulator, allNodes, startServer, stopServer, load, nextMessage } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { migrateConfig, upgradeSavedConfig } = require('../../dist/nodes/shared/migrations.js');

const FROZEN_AT = Date.UTC(2026, 2, 10, 12, 0, 0) / 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('saved-config migrations', function () {
  let sim;

  before(async function () { sim = await startClockedSimulator({ now: FROZEN_AT }); }); // the nodes on its clock too
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  /** The energy-api config node as 0.1 saved it: no configVersion, no timezone, limits as text. */
  const oldApi = () => ({ id: 'api', type: 'energy-api', name: 'old', baseUrl: sim.baseUrl, tps: '5', tpd: '10000' });

  /** Loads `old` (one flow node of the 0.1 shape, id "n") wired to a helper, with a Catch; returns the nodes. */
  async function loadOld(old) {
    const flow = [
      oldApi(),
      { wires: [['out']], ...old, id: 'n', api: 'api' },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(allNodes(), flow, { api: { apiKey: sim.keys.full } });
    const caught = [];
    helper.getNode('caught').on('input', (msg) => caught.push(msg.error));
    const warnings = [];
    helper.getNode('n').on('call:warn', (call) => warnings.push(call.args[0]));
    return { node: helper.getNode('n'), out: helper.getNode('out'), caught, warnings };
  }

  const patches = () => sim.control.log().filter((r) => r.method === 'PATCH');
  async function reportAfterPatch(deviceId) {
    const end = Date.now() + 10000;
    while (patches().length < 1) {
      if (Date.now() > end) throw new Error('no PATCH reached the simulator');
      await sleep(20);
    }
    sim.control.reportNow(deviceId);
  }

  it('energy-api and energy-device-status: an old device-status node (interval as text, no onlyOnChange) reads the device', async function () {
    const ctx = await loadOld({ type: 'energy-device-status', mode: 'device', deviceId: SIM_DEVICES.wifi6MW, offlineAfter: '900', interval: '0' });
    const api = helper.getNode('api');
    assert.ok(api.client, 'the old config node gives a client');
    const next = nextMessage(ctx.out);
    ctx.node.receive({});
    const msg = await next;
    assert.equal(msg.payload.id, SIM_DEVICES.wifi6MW);
    assert.equal(typeof msg.device.online, 'boolean');
    assert.deepEqual(ctx.caught, []);
  });

  it('energy-query: an old node with only a device and a long range (no output, follow, catchUp, convert) sends entries', async function () {
    const ctx = await loadOld({
      type: 'energy-query', deviceId: SIM_DEVICES.switch6M3SW, kind: 'long', granularity: 'hour',
      fromTs: String(FROZEN_AT - 6 * 3600), toTs: String(FROZEN_AT),
    });
    const next = nextMessage(ctx.out);
    ctx.node.receive({});
    const msg = await next;
    assert.ok(Array.isArray(msg.payload), 'entries output, the 0.1 default');
    assert.equal(msg.payload.length, 6);
    assert.equal(msg.granularity, 'hour');
    assert.deepEqual(ctx.caught, []);
  });

  it('energy-switch-control: an old node (timeout as text) switches and confirms on output 1', async function () {
    const dev = SIM_DEVICES.switch6M3SW;
    const flow = [
      oldApi(),
      { id: 'n', type: 'energy-switch-control', api: 'api', deviceId: dev, switchId: '3', timeout: '30', wires: [['ok'], ['late']] },
      { id: 'ok', type: 'helper' },
      { id: 'late', type: 'helper' },
    ];
    await load(allNodes(), flow, { api: { apiKey: sim.keys.full } });
    const confirmed = nextMessage(helper.getNode('ok'), 20000);
    helper.getNode('n').receive({ payload: 'closed' });
    await reportAfterPatch(dev);
    const msg = await confirmed;
    assert.equal(msg.payload, 'closed');
  });

  it('energy-wifi-config: an old node (timeout as text) sets the network and waits until it is applied', async function () {
    const ctx = await loadOld({ type: 'energy-wifi-config', deviceId: SIM_DEVICES.wifi6MW, timeout: '60' });
    const next = nextMessage(ctx.out, 20000);
    ctx.node.receive({ payload: { ssid: 'Workshop', psk: 'Old-Flow-Secret-1' } });
    await reportAfterPatch(SIM_DEVICES.wifi6MW);
    const msg = await next;
    assert.equal(msg.payload.ssid, 'Workshop');
    assert.equal(msg.payload.applied, true);
  });

  it('energy-modbus-read: an old node with only a device and a query reads the latest reading', async function () {
    const ctx = await loadOld({ type: 'energy-modbus-read', deviceId: SIM_DEVICES.modbus6MOne, query: 'latest' });
    const next = nextMessage(ctx.out);
    ctx.node.receive({});
    const msg = await next;
    assert.equal(typeof msg.payload, 'object');
    assert.notEqual(msg.payload, null);
    assert.deepEqual(ctx.caught, []);
  });

  it('energy-device-config: an old node (no waitForPending, timeout as text) updates the device', async function () {
    const ctx = await loadOld({ type: 'energy-device-config', deviceId: SIM_DEVICES.switch6M3SW, timeout: '180' });
    const next = nextMessage(ctx.out);
    ctx.node.receive({ payload: { label: 'Saved by 0.1' } });
    const msg = await next;
    assert.equal(msg.payload.label, 'Saved by 0.1');
    assert.deepEqual(ctx.caught, []);
  });

  it('energy-load-control: an early node (numbers as text, no window, interval or failSafe) evaluates and reports on output 2', async function () {
    const ctx = await loadOld({
      type: 'energy-load-control', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S1`,
      mode: 'threshold', onAbove: '1000000', offBelow: '999999', interval: '0', dryRun: true, wires: [[], ['out']],
    });
    const next = nextMessage(ctx.out);
    ctx.node.receive({ payload: 'evaluate' });
    const msg = await next;
    assert.equal(msg.onAt, 1000000, 'the threshold saved as text is read as a number');
    assert.equal(typeof msg.reason, 'string');
    assert.deepEqual(ctx.caught, []);
    assert.deepEqual(ctx.warnings, []);
  });

  it('energy-tariff and energy-cost: an early tariff (no export rates, supply charges or time zone) prices entries', async function () {
    const flow = [
      { id: 't', type: 'energy-tariff', name: 'old', currency: 'AUD', importRates: [{ since: '', days: 'all', from: '00:00', to: '24:00', price: '0.30' }] },
      { id: 'n', type: 'energy-cost', tariff: 't', channels: '1', timezone: 'UTC', wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(allNodes(), flow, {});
    const caught = [];
    helper.getNode('caught').on('input', (msg) => caught.push(msg.error));
    const next = nextMessage(helper.getNode('out'));
    const end = Date.UTC(2026, 2, 10, 1, 0, 0) / 1000;
    // One hour of 2 kWh import on the grid channel: 0.60 AUD.
    helper.getNode('n').receive({ payload: [{ timestamp: end, duration: 3600, eReal: [7200000], eRealPositive: [7200000], eRealNegative: [0] }] });
    const msg = await next;
    assert.match(JSON.stringify(msg.payload), /0\.6/);
    assert.deepEqual(caught, []);
  });

  it('runs later steps in order from the saved version, stamps the current version, and leaves a newer flow alone', function () {
    const steps = [
      { version: 2, up: (c) => { const { interval, ...rest } = c; return { ...rest, pollSeconds: interval }; } },
      { version: 1, up: (c) => ({ ...c, interval: c.interval ?? 0 }) },
      { version: 3, up: (c) => ({ ...c, pollSeconds: Number(c.pollSeconds) }) },
    ];
    assert.deepEqual(migrateConfig({ interval: '60' }, steps).config, { pollSeconds: 60, configVersion: 3 });
    assert.deepEqual(migrateConfig({ configVersion: 2, pollSeconds: '5' }, steps).config, { pollSeconds: 5, configVersion: 3 });
    const saved = { configVersion: 3, pollSeconds: 9 };
    assert.equal(migrateConfig(saved, steps).config, saved, 'current: nothing to do');
    const warnings = [];
    const newer = { configVersion: 7, somethingNew: true };
    assert.equal(upgradeSavedConfig({ warn: (m) => warnings.push(m) }, newer, steps), newer);
    assert.match(warnings[0], /newer release \(config version 7/);
  });
});
