'use strict';
const assert = require('node:assert/strict');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, until, TEST_NOW_S,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const STATUS = 'energy-device-status.status.';

describe('energy-device-status', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-device-status')];
  const seen = [];

  before(async function () {
    sim = await startClockedSimulator();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    assertNoKey(sim.keys.full, loggedText(), seen);
    await stopServer();
    await sim.close();
  });
  beforeEach(function () {
    sim.control.reset(); // the clock is frozen at TEST_NOW_S again
  });
  afterEach(async function () {
    assertNoKey(sim.keys.full, loggedText());
    await helper.unload();
  });

  /** Reads straight from the simulator, to compare with what the node emits. */
  async function direct(path, key = sim.keys.full) {
    const res = await fetch(`${sim.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    return res.json();
  }

  async function setup(props = {}, { key = sim.keys.full, extra = [] } = {}) {
    const api = apiConfig(sim, key);
    const flow = [
      api.node,
      { id: 's', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.wifi6MW, offlineAfter: 900, interval: 0, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
      ...extra,
    ];
    const outputs = [];
    await load(nodes, flow, api.credentials);
    const node = helper.getNode('s');
    const statuses = [];
    node.on('call:status', (call) => { statuses.push(call.args[0]); seen.push(call.args[0]); });
    const out = helper.getNode('out');
    out.on('input', (msg) => { outputs.push(msg); seen.push(msg); });
    return { node, out, caught: helper.getNode('caught'), statuses, outputs };
  }

  async function read(ctx, msg = {}) {
    const next = nextMessage(ctx.out);
    ctx.node.receive(msg);
    return next;
  }

  async function expectError(ctx, msg) {
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await sleep(50);
    assert.equal(ctx.outputs.length, 0, 'nothing may be sent for a refused msg');
    seen.push(caught);
    return caught;
  }

  const deviceGets = (id) => sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${id}`));

  it('device mode: the WiFi 6MW as returned, with both transports and WiFi active', async function () {
    const ctx = await setup();
    const msg = await read(ctx);
    const expected = await direct(`/devices/${SIM_DEVICES.wifi6MW}`);
    assert.deepEqual(msg.payload, expected);
    assert.equal(msg.deviceId, SIM_DEVICES.wifi6MW);
    assert.equal(msg.topic, expected.label);
    const facts = msg.device;
    assert.equal(facts.online, true);
    assert.equal(facts.lastHeardAt, expected.comms.lastHeardAt);
    assert.equal(facts.secondsSinceHeard, Math.round(TEST_NOW_S - expected.comms.lastHeardAt), 'measured on the simulator\'s clock');
    assert.equal(facts.transport, 'wifi');
    assert.equal(facts.mode, expected.comms.mode);
    assert.equal(facts.uninitialised, false);
    assert.deepEqual(facts.pending, []);
    assert.equal(facts.hasPending, false);
    const cellular = facts.signal.find((s) => s.transport === 'cellular');
    const wifi = facts.signal.find((s) => s.transport === 'wifi');
    assert.equal(facts.signal.length, 2);
    assert.equal(wifi.active, true);
    assert.equal(cellular.active, false);
    assert.equal(wifi.quality, expected.comms.wifi.signalQuality);
    assert.equal(wifi.label, expected.comms.wifi.signalQualityLabel);
    assert.equal(wifi.dbm, expected.comms.wifi.signalQualityDetail.rssi);
    assert.equal(cellular.quality, expected.comms.cellular.signalQuality);
    assert.equal(cellular.label, expected.comms.cellular.signalQualityLabel);
    const last = ctx.statuses[ctx.statuses.length - 1];
    assert.deepEqual(last, { fill: 'green', shape: 'dot', text: `${STATUS}online` });
  });

  it('device mode: the 6MW-CER on old firmware has no usable top-level dBm; facts come from the sub-objects', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.cer6MWCER });
    const msg = await read(ctx);
    const expected = await direct(`/devices/${SIM_DEVICES.cer6MWCER}`);
    assert.deepEqual(msg.payload, expected);
    assert.equal(expected.comms.signalQualityDbm, -1, 'old firmware reports -1 (unknown)');
    assert.equal(msg.device.transport, 'cellular');
    const cellular = msg.device.signal.find((s) => s.transport === 'cellular');
    const wifi = msg.device.signal.find((s) => s.transport === 'wifi');
    assert.equal(cellular.active, true);
    assert.equal(cellular.quality, expected.comms.cellular.signalQuality);
    assert.equal(wifi.active, false);
    assert.equal(wifi.quality, -1);
    assert.equal(wifi.label, 'Invalid or Unknown');
    const closed = expected.switches.filter((s) => s.state === 'closed').map((s) => s.id);
    assert.ok(closed.length > 0);
    assert.deepEqual(msg.device.closedSwitches, closed);
  });

  it('device mode: an uninitialised device is never connected, not offline', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.uninitialised });
    const msg = await read(ctx);
    assert.equal(msg.payload.uninitialised, true);
    assert.equal(msg.device.online, null);
    assert.equal(msg.device.lastHeardAt, null);
    assert.equal(msg.device.secondsSinceHeard, null);
    assert.equal(msg.device.uninitialised, true);
    assert.equal(msg.topic, SIM_DEVICES.uninitialised, 'no label: the topic is the id');
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'grey', shape: 'ring', text: `${STATUS}neverConnected` });
  });

  it('device mode: offline against the threshold the user sets', async function () {
    // Not heard for exactly 2 h: the device has been out of reach since then.
    sim.control.setOutage(SIM_DEVICES.wifi6MW, { from: TEST_NOW_S - 7200, to: TEST_NOW_S + 3600 });
    const ctx = await setup({ offlineAfter: 900 }, {
      extra: [{ id: 's2', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: SIM_DEVICES.wifi6MW, offlineAfter: 3 * 3600, wires: [['out2']] },
        { id: 'out2', type: 'helper' }],
    });
    const msg = await read(ctx);
    assert.equal(msg.device.online, false);
    assert.equal(msg.device.secondsSinceHeard, 7200);
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'red', shape: 'ring', text: `${STATUS}offline` });
    const next = nextMessage(helper.getNode('out2'));
    helper.getNode('s2').receive({});
    const relaxed = await next;
    assert.equal(relaxed.device.online, true, 'a 3 h threshold counts 2 h as online');
  });

  it('msg.deviceId overrides the node property', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.meter3M });
    const msg = await read(ctx, { deviceId: SIM_DEVICES.rogowski3RM, topic: 'ignored' });
    assert.equal(msg.payload.id, SIM_DEVICES.rogowski3RM);
    assert.equal(msg.deviceId, SIM_DEVICES.rogowski3RM);
    assert.equal(msg.topic, msg.payload.label);
    assert.equal(deviceGets(SIM_DEVICES.meter3M).length, 0);
    assert.equal(deviceGets(SIM_DEVICES.rogowski3RM).length, 1);
  });

  it('devices mode: every accessible device with its facts, 1 + N requests', async function () {
    const ctx = await setup({ mode: 'devices', deviceId: '' });
    const msg = await read(ctx);
    const nodeRequests = sim.control.log();
    sim.control.setLimits({ tps: 100 }); // room for the direct reads below
    const ids = await direct('/devices');
    assert.equal(nodeRequests.length, 1 + ids.length, 'one poll costs 1 + number of devices');
    assert.equal(nodeRequests.filter((r) => r.path.endsWith('/v3/devices')).length, 1);
    assert.deepEqual(msg.payload.map((d) => d.id), ids);
    assert.ok(!ids.includes(SIM_DEVICES.forbidden));
    for (const device of msg.payload) assert.deepEqual(device, await direct(`/devices/${device.id}`));
    assert.deepEqual(msg.devices.map((d) => d.id), ids);
    const byId = Object.fromEntries(msg.devices.map((d) => [d.id, d.facts]));
    assert.equal(byId[SIM_DEVICES.uninitialised].online, null);
    assert.equal(byId[SIM_DEVICES.meter3M].online, true);
    assert.equal(byId[SIM_DEVICES.wifi6MW].transport, 'wifi');
    assert.equal(msg.topic, 'devices');
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'green', shape: 'dot', text: `${STATUS}devices` });
  });

  it('models and categories modes return the lists as the API does', async function () {
    const ctx = await setup({ mode: 'models', deviceId: '' }, {
      extra: [{ id: 'cat', type: 'energy-device-status', api: 'api', mode: 'categories', wires: [['out2']] }, { id: 'out2', type: 'helper' }],
    });
    const models = await read(ctx, { deviceId: SIM_DEVICES.meter3M });
    assert.deepEqual(models.payload, await direct('/devices/models'));
    assert.ok(models.payload.some((m) => m.code === '6MW-CER'));
    assert.equal(models.topic, 'models');
    const next = nextMessage(helper.getNode('out2'));
    helper.getNode('cat').receive({});
    const categories = await next;
    assert.deepEqual(categories.payload, await direct('/devices/channel-categories'));
    assert.ok(categories.payload.some((c) => c.id === -1));
    assert.equal(categories.topic, 'categories');
  });

  it('refuses a bad device id before any request, with Catch delivery', async function () {
    const ctx = await setup();
    const caught = await expectError(ctx, { deviceId: 'X123' });
    assert.equal(caught.apiError.code, 'INVALID_REQUEST');
    assert.match(caught.error.message, /not a device id/);
    assert.equal(sim.control.log().length, 0);
    assert.equal(ctx.statuses[ctx.statuses.length - 1].fill, 'red');
  });

  it('passes 403 (forbidden device) and 404 (unknown device) to a Catch node', async function () {
    const ctx = await setup();
    const forbidden = await expectError(ctx, { deviceId: SIM_DEVICES.forbidden });
    assert.equal(forbidden.apiError.status, 403);
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'red', shape: 'ring', text: `403 ${forbidden.apiError.code}` });
    const unknown = await expectError(ctx, { deviceId: 'B300000000999' });
    assert.equal(unknown.apiError.status, 404);
    assert.equal(ctx.statuses[ctx.statuses.length - 1].text, `404 ${unknown.apiError.code}`);
  });

  it('raises a poll interval below 5 s to 5 s with a warning', async function () {
    await setup({ interval: 1 });
    await sleep(20);
    assert.match(loggedText(), /energy-device-status\.errors\.intervalTooShort/);
  });

  it('polls: output on deploy, then only on change, and no polling after close', async function () {
    this.timeout(30000);
    const timers = helper._sandbox.spy(global, 'setTimeout');
    const ctx = await setup({ interval: 5, onlyOnChange: true, outputOnDeploy: true });
    const first = ctx.outputs[0] ?? (await nextMessage(ctx.out, 2000));
    assert.equal(first.payload.id, SIM_DEVICES.wifi6MW);
    assert.equal(first.device.online, true);
    assert.equal(deviceGets(SIM_DEVICES.wifi6MW).length, 1);
    assert.ok(timers.getCalls().some((c) => c.args[1] === 5000), 'the next poll is timed 5 s later');

    // A change made through the API by someone else: the next poll emits exactly once.
    const res = await fetch(`${sim.baseUrl}/devices/${SIM_DEVICES.wifi6MW}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${sim.keys.full}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ label: 'Renamed by a colleague' }),
    });
    assert.equal(res.status, 200);
    const changed = await nextMessage(ctx.out, 15000);
    assert.equal(changed.payload.label, 'Renamed by a colleague');
    assert.equal(changed.topic, 'Renamed by a colleague');
    assert.equal(deviceGets(SIM_DEVICES.wifi6MW).length, 2, 'the change comes with the first poll');

    // The device reports again (new lastHeardAt/latestStatus) but nothing else changes: nothing is emitted.
    sim.control.setClock({ advance: 60 });
    const shown = ctx.statuses.length;
    await until(() => deviceGets(SIM_DEVICES.wifi6MW).length === 3 && ctx.statuses.length > shown, 15000, 'the next poll');
    assert.equal(ctx.outputs.length, 2);

    await helper.unload();
    sim.control.clearLog();
    // Longer than the poll interval: a timer left behind would have fired.
    await sleep(5500);
    assert.equal(sim.control.log().length, 0, 'no request after close');
  });
});
