'use strict';
const assert = require('node:assert/strict');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, until,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SW = SIM_DEVICES.switch6M3SW;

describe('energy-device-config', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-device-config')];
  const seen = [];

  before(async function () {
    sim = await startClockedSimulator();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    for (const key of Object.values(sim.keys)) assertNoKey(key, loggedText(), seen);
    await stopServer();
    await sim.close();
  });
  beforeEach(function () {
    // Frozen at TEST_NOW_S: the device reports only when a test says so (reportNow) or moves the clock past a report.
    sim.control.reset();
  });
  afterEach(async function () { await helper.unload(); });

  async function direct(path) {
    const res = await fetch(`${sim.baseUrl}${path}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    return res.json();
  }

  async function setup(props = {}, key = sim.keys.full) {
    const api = apiConfig(sim, key);
    const flow = [
      api.node,
      { id: 'cfg', type: 'energy-device-config', api: 'api', deviceId: SW, waitForPending: false, timeout: 180, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(nodes, flow, api.credentials);
    const node = helper.getNode('cfg');
    const statuses = [];
    const outputs = [];
    node.on('call:status', (call) => { statuses.push(call.args[0]); seen.push(call.args[0]); });
    const out = helper.getNode('out');
    out.on('input', (msg) => { outputs.push(msg); seen.push(msg); });
    return { node, out, caught: helper.getNode('caught'), statuses, outputs };
  }

  async function send(ctx, msg, ms) {
    const next = nextMessage(ctx.out, ms);
    ctx.node.receive(msg);
    return next;
  }

  async function expectError(ctx, msg) {
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await sleep(50);
    assert.equal(ctx.outputs.length, 0, 'nothing may be sent for a refused msg');
    assert.equal(ctx.statuses[ctx.statuses.length - 1].fill, 'red');
    seen.push(caught);
    return caught;
  }

  const patches = () => sim.control.log().filter((r) => r.method === 'PATCH');
  const lastStatus = (ctx) => ctx.statuses[ctx.statuses.length - 1];

  it('updates label, channels and switches given by number, and emits the device as returned', async function () {
    const ctx = await setup();
    const msg = await send(ctx, {
      payload: {
        label: 'Workshop',
        channels: [{ id: 2, label: 'Oven' }],
        switches: [{ id: '3', label: 'Wallbox', closedStateLabel: 'Charging', openStateLabel: 'Paused', contactorType: 'NC' }],
      },
    });
    const device = await direct(`/devices/${SW}`);
    assert.deepEqual(msg.payload, device);
    assert.equal(device.label, 'Workshop');
    assert.equal(device.channels.find((c) => c.id === `${SW}_C2`).label, 'Oven');
    const sw = device.switches.find((s) => s.id === `${SW}_S3`);
    assert.deepEqual([sw.label, sw.closedStateLabel, sw.openStateLabel, sw.contactorType], ['Wallbox', 'Charging', 'Paused', 'NC']);
    assert.equal(msg.status, 200);
    assert.deepEqual(msg.pending, []);
    assert.equal(msg.deviceId, SW);
    assert.equal(msg.confirmed, undefined);
    assert.equal(patches().length, 1);
    assert.deepEqual(lastStatus(ctx), { fill: 'green', shape: 'dot', text: 'energy-device-config.status.updated' });
  });

  it('msg.deviceId overrides the node property; phase grouping by channel number', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.meter3M });
    const target = SIM_DEVICES.rogowski3RM;
    const msg = await send(ctx, { deviceId: target, payload: { timezone: 'Europe/Berlin', phases: { count: 0, grouping: [{ included: [1] }, { included: [2, 3] }] } } });
    assert.equal(msg.deviceId, target);
    assert.equal(msg.payload.id, target);
    const device = await direct(`/devices/${target}`);
    assert.equal(device.timezone, 'Europe/Berlin');
    assert.deepEqual(device.phases, { count: 0, grouping: [{ included: [`${target}_C1`] }, { included: [`${target}_C2`, `${target}_C3`] }] });
    assert.ok(patches().every((r) => r.path.endsWith(target)));
  });

  it('a CT rating change answers 202 with the value pending (without waiting)', async function () {
    const ctx = await setup();
    const msg = await send(ctx, { payload: { channels: [{ id: 1, ctRating: 400 }] } });
    assert.equal(msg.status, 202);
    assert.deepEqual(msg.pending, [{ path: `channels.${SW}_C1.ctRating`, value: 400 }]);
    assert.equal(msg.payload.channels[0].pending.ctRating, 400);
    assert.equal(lastStatus(ctx).text, 'energy-device-config.status.updatedPending');
  });

  it('waits for a CT rating to be confirmed (device reports) with one pending poll, timed on the nodes\' clock', async function () {
    this.timeout(20000);
    const ctx = await setup({ waitForPending: true, timeout: 60 });
    const result = send(ctx, { payload: { channels: [{ id: 1, ctRating: 400 }, { id: 2, label: 'Oven' }] } }, 15000);
    await until(() => patches().length === 1, 10000, 'the PATCH');
    assert.equal(lastStatus(ctx).fill, 'blue');
    await sleep(500);
    assert.ok(ctx.outputs.length === 0, 'not emitted while pending');
    sim.control.reportNow(SW);
    // 5 s pass on the test's clock (still before the device's next periodic report).
    sim.control.setClock({ advance: 5 });
    const msg = await result;
    assert.equal(msg.confirmed, true);
    assert.equal(msg.status, 202);
    assert.equal(msg.elapsed, 5000, 'elapsed on the nodes\' clock');
    assert.deepEqual(msg.pending, []);
    assert.equal(msg.payload.channels[0].ctRating, 400);
    assert.equal(msg.payload.channels[0].pending, undefined);
    const reads = sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${SW}`));
    assert.equal(reads.length, 2, 'one read before the PATCH (validation), one pending poll');
    assert.deepEqual(msg.payload, await direct(`/devices/${SW}`));
    assert.equal(lastStatus(ctx).fill, 'green');
  });

  it('gives up after a short timeout: confirmed false, yellow status, not an error', async function () {
    this.timeout(20000);
    const ctx = await setup({ waitForPending: true, timeout: 6 });
    const result = send(ctx, { payload: { channels: [{ id: 1, ctRating: 120 }] } }, 15000);
    // The wait (and its timeout) begins with the "waiting" status: only then may the clock move past it.
    await until(() => ctx.statuses.some((s) => s.text.endsWith('common.status.waiting')), 10000, 'the wait');
    sim.control.setClock({ advance: 7 }); // past the node's timeout, before the device's next report
    const msg = await result;
    assert.equal(msg.confirmed, false);
    assert.equal(msg.elapsed, 7000);
    assert.deepEqual(msg.pending, [{ path: `channels.${SW}_C1.ctRating`, value: 120 }]);
    assert.deepEqual(lastStatus(ctx), { fill: 'yellow', shape: 'ring', text: 'energy-device-config.status.notConfirmed' });
    await sleep(50);
    assert.equal(ctx.outputs.length, 1);
  });

  it('refuses a bad device id, a forbidden (403) and an unknown (404) device', async function () {
    const ctx = await setup();
    const bad = await expectError(ctx, { deviceId: 'nope', payload: { label: 'x' } });
    assert.equal(bad.apiError.code, 'INVALID_REQUEST');
    assert.equal(sim.control.log().length, 0);
    const forbidden = await expectError(ctx, { deviceId: SIM_DEVICES.forbidden, payload: { label: 'x' } });
    assert.equal(forbidden.apiError.status, 403);
    const unknown = await expectError(ctx, { deviceId: 'B300000000999', payload: { label: 'x' } });
    assert.equal(unknown.apiError.status, 404);
  });

  it('passes the 403 for a read-only key to a Catch node', async function () {
    const ctx = await setup({}, sim.keys.readOnly);
    const caught = await expectError(ctx, { payload: { label: 'Workshop' } });
    assert.equal(caught.apiError.status, 403);
    assert.equal(patches().length, 1);
    assert.equal((await direct(`/devices/${SW}`)).label, 'Solar home');
  });

  it('refuses a 65-character label before any request', async function () {
    const ctx = await setup();
    const caught = await expectError(ctx, { payload: { label: 'x'.repeat(65) } });
    assert.equal(caught.apiError.code, 'INVALID_REQUEST');
    assert.match(caught.error.message, /label must be at most 64 characters/);
    assert.equal(sim.control.log().length, 0);
  });

  it('refuses a channel id of another device and ctRating 400 on the Rogowski 3RM, naming the field', async function () {
    const ctx = await setup({ deviceId: SIM_DEVICES.rogowski3RM });
    const other = await expectError(ctx, { payload: { channels: [{ id: `${SW}_C1`, label: 'x' }] } });
    assert.match(other.error.message, /channels\[0\]\.id/);
    const rogowski = await expectError(ctx, { payload: { channels: [{ id: 1, ctRating: 400 }] } });
    assert.match(rogowski.error.message, /channels\[0\]\.ctRating/);
    assert.ok(rogowski.apiError.errors.some((e) => /Rogowski/.test(e.message)));
    assert.equal(patches().length, 0);
  });

  it('refuses switch state (energy-switch-control) and WiFi credentials (energy-wifi-config)', async function () {
    const ctx = await setup();
    const state = await expectError(ctx, { payload: { switches: [{ id: 1, state: 'open' }] } });
    assert.match(state.error.message, /switches\[0\]\.state.*energy-switch-control/);
    const wifi = await expectError(ctx, { deviceId: SIM_DEVICES.wifi6MW, payload: { comms: { wifi: { ssid: 'x', psk: 'secret-psk' } } } });
    assert.match(wifi.error.message, /energy-wifi-config/);
    const notObject = await expectError(ctx, { payload: 'Workshop' });
    assert.match(notObject.error.message, /msg\.payload must be an object/);
    assert.equal(sim.control.log().length, 0);
  });
});
