'use strict';
const assert = require('node:assert/strict');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, until,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const DEV = SIM_DEVICES.switch6M3SW;
// The simulated solar home (src/simulator/fleet.ts): switches S1 "Hot water", S2 "Pool pump", S3 "EV charger",
// all open with the labels On/Off at the start; tests that need another state set it (closeS1LabelS2).
const S1 = `${DEV}_S1`;
const S2 = `${DEV}_S2`;
const S3 = `${DEV}_S3`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('energy-switch-control', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-switch-control')];

  before(async function () {
    // Frozen, nodes on the same clock: the device reports only when a test says so (reportNow), and
    // time passes for the nodes only when a test moves the clock.
    sim = await startClockedSimulator();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  /** The switch node (props), helpers on both outputs, a Catch and a Complete node with their helpers. */
  async function setup(props = {}, key = sim.keys.full) {
    const api = apiConfig(sim, key);
    const flow = [
      api.node,
      { id: 'sw', type: 'energy-switch-control', api: 'api', deviceId: DEV, switchId: '3', timeout: 30, wires: [['ok'], ['late']], ...props },
      { id: 'ok', type: 'helper' },
      { id: 'late', type: 'helper' },
      { id: 'c', type: 'catch', scope: ['sw'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
      { id: 'done', type: 'complete', scope: ['sw'], uncaught: false, wires: [['completed']] },
      { id: 'completed', type: 'helper' },
    ];
    await load(nodes, flow, api.credentials);
    const ctx = {
      node: helper.getNode('sw'), ok: helper.getNode('ok'), late: helper.getNode('late'),
      caught: helper.getNode('caught'), completed: helper.getNode('completed'), statuses: [], outputs: [], completions: 0,
    };
    ctx.node.on('call:status', (call) => ctx.statuses.push(call.args[0]));
    ctx.ok.on('input', (msg) => ctx.outputs.push(['ok', msg]));
    ctx.late.on('input', (msg) => ctx.outputs.push(['late', msg]));
    ctx.completed.on('input', () => { ctx.completions += 1; });
    return ctx;
  }

  const patches = () => sim.control.log().filter((r) => r.method === 'PATCH');
  const deviceGets = (id = DEV) => sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${id}`));

  /** Resolves once the n-th PATCH has been answered. */
  const patched = (n) => until(() => patches().length >= n && patches()[n - 1].status !== 0, 10000, `PATCH ${n}`);

  /**
   * Once the node polls after the n-th PATCH (its wait has begun: a 6 s timeout lets one 5 s poll
   * happen first; `readsBefore` device reads came before it), the clock moves 7 s: past the timeout,
   * still before the device's next periodic report.
   */
  async function pastTimeoutOnceWaiting(n, readsBefore) {
    await patched(n);
    await until(() => deviceGets().length > readsBefore, 15000, 'a poll after the PATCH');
    assert.deepEqual(patches().length, n);
    sim.control.setClock({ advance: 7 });
  }

  /** Lets the device report as soon as the n-th PATCH has reached it, then lets the 5 s poll spacing pass. */
  async function reportAfterPatch(n) {
    await patched(n);
    sim.control.reportNow(DEV);
    sim.control.setClock({ advance: 5 });
  }

  /**
   * Through the API, before the nodes start: S1 closed, and S2 (left open) labelled Heating (closed) / Idle (open).
   * The device picks the state up at a report forced 1 s after the PATCH on the stepped clock (still well
   * before its next periodic report); the request log is cleared so that the test counts only its own.
   */
  async function closeS1LabelS2() {
    const headers = { Authorization: `Bearer ${sim.keys.full}`, 'Content-Type': 'application/json' };
    const res = await fetch(`${sim.baseUrl}/devices/${DEV}`, {
      method: 'PATCH', headers,
      body: JSON.stringify({ switches: [{ id: S1, state: 'closed' }, { id: S2, closedStateLabel: 'Heating', openStateLabel: 'Idle' }] }),
    });
    assert.equal(res.status, 202, await res.text());
    sim.control.setClock({ advance: 1 });
    sim.control.reportNow(DEV);
    const device = await (await fetch(`${sim.baseUrl}/devices/${DEV}`, { headers })).json();
    assert.deepEqual(device.switches.map((sw) => [sw.id, sw.state, sw.closedStateLabel, sw.openStateLabel, sw.pending]), [
      [S1, 'closed', 'On', 'Off', undefined], [S2, 'open', 'Heating', 'Idle', undefined], [S3, 'open', 'On', 'Off', undefined],
    ]);
    sim.control.clearLog();
  }

  /** Resolves with the caught msg, failing if anything was sent on either output or any PATCH reached the device. */
  async function expectRefusal(ctx, msg, { patched = false } = {}) {
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await sleep(50);
    assert.deepEqual(ctx.outputs, [], 'nothing may be sent for a refused msg');
    if (!patched) assert.equal(patches().length, 0, 'refused before any write');
    const last = ctx.statuses[ctx.statuses.length - 1];
    assert.equal(last.fill, 'red');
    assert.equal(ctx.completions, 0, 'a failed msg is reported to Catch, not Complete');
    return caught;
  }

  it('sends the change, polls after the 5 s spacing until pending clears, then confirms on output 1', async function () {
    const ctx = await setup();
    ctx.node.receive({ payload: 'on', topic: 'ev' });
    await reportAfterPatch(1);
    const msg = await nextMessage(ctx.ok, 15000);
    assert.equal(msg.payload, 'closed');
    assert.equal(msg.requested, 'closed');
    assert.equal(msg.confirmed, true);
    assert.equal(msg.switchId, S3);
    assert.equal(msg.deviceId, DEV);
    assert.equal(msg.label, 'On');
    assert.equal(msg.topic, 'ev');
    assert.equal(msg.elapsed, 5000, 'the 5 s poll spacing on the nodes\' clock');
    const sw = msg.device.switches.find((s) => s.id === S3);
    assert.equal(sw.state, 'closed');
    assert.equal(sw.pending, undefined);
    assert.equal(patches().length, 1);
    assert.equal(patches()[0].status, 202);
    assert.equal(deviceGets().length, 2, 'read before the write, polled once after it');
    assert.ok(ctx.statuses.some((s) => s.fill === 'blue' && s.text === 'energy-switch-control.status.closing'));
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'green', shape: 'dot', text: 'energy-switch-control.status.confirmed' });
    await until(() => ctx.completions === 1, 2000);
    assert.equal(ctx.outputs.length, 1);
  });

  it('confirms at once without a write when the switch already is in the requested state', async function () {
    await closeS1LabelS2();
    const ctx = await setup({ switchId: S1 });
    ctx.node.receive({ payload: true });
    const msg = await nextMessage(ctx.ok);
    assert.equal(msg.payload, 'closed');
    assert.equal(msg.confirmed, true);
    assert.equal(msg.elapsed, 0);
    assert.equal(msg.label, 'On');
    assert.equal(patches().length, 0);
    assert.equal(deviceGets().length, 1);
  });

  it('reports "not confirmed" on output 2 when the device does not apply the change within the timeout', async function () {
    this.timeout(30000);
    const ctx = await setup({ timeout: 6 });
    ctx.node.receive({ payload: 'closed' });
    await pastTimeoutOnceWaiting(1, 1);
    const msg = await nextMessage(ctx.late, 15000);
    assert.equal(msg.elapsed, 7000);
    assert.equal(msg.confirmed, false);
    assert.equal(msg.requested, 'closed');
    assert.equal(msg.payload, 'open', 'the last known state');
    assert.deepEqual(msg.pending, { state: 'closed' });
    assert.equal(patches().length, 1);
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'yellow', shape: 'ring', text: 'energy-switch-control.status.notConfirmed' });
    assert.equal(ctx.outputs.length, 1);
  });

  it('coalesces commands that arrive while a change is pending: only the first and the latest reach the device', async function () {
    const ctx = await setup();
    ctx.node.receive({ payload: 'on', n: 1 });
    ctx.node.receive({ payload: 'toggle', n: 2 });
    ctx.node.receive({ payload: 'off', n: 3 });
    await reportAfterPatch(1);
    await reportAfterPatch(2);
    await until(() => ctx.outputs.length >= 2 && ctx.completions >= 3, 20000);
    await sleep(100);
    assert.deepEqual(ctx.outputs.map(([port, m]) => [port, m.n, m.payload]), [['ok', 1, 'closed'], ['ok', 3, 'open']]);
    assert.equal(ctx.completions, 3, 'every msg completes once, the superseded one without output');
    assert.equal(patches().length, 2);
    const device = ctx.outputs[1][1].device;
    assert.equal(device.switches.find((s) => s.id === S3).state, 'open');
    assert.equal(deviceGets().length, 3, 'one read shared by the three msgs, one poll per write');
    // The service agrees: read it directly.
    const res = await fetch(`${sim.baseUrl}/devices/${DEV}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    assert.equal((await res.json()).switches.find((s) => s.id === S3).state, 'open');
  });

  it('understands every payload form, the switch labels and msg.switchId / msg.deviceId overrides', async function () {
    await closeS1LabelS2();
    // The node's own device has no switches: msg.deviceId must win.
    const ctx = await setup({ deviceId: SIM_DEVICES.meter3M, switchId: '' });
    const cases = [
      [{ payload: 'IDLE', switchId: 2 }, S2, 'open', 'Idle'],
      [{ payload: false, switchId: '2' }, S2, 'open', 'Idle'],
      [{ payload: 0, switchId: S2 }, S2, 'open', 'Idle'],
      [{ payload: 'Off', switchId: 2 }, S2, 'open', 'Idle'],
      [{ payload: 'open', switchId: 2 }, S2, 'open', 'Idle'],
      [{ payload: 'ON', switchId: 1 }, S1, 'closed', 'On'],
      [{ payload: 'true', switchId: 1 }, S1, 'closed', 'On'],
      [{ payload: 1, switchId: S1 }, S1, 'closed', 'On'],
      [{ payload: '1', switchId: 1 }, S1, 'closed', 'On'],
      [{ payload: ' Closed ', switchId: 1 }, S1, 'closed', 'On'],
    ];
    for (const [msg, switchId, state, label] of cases) {
      ctx.node.receive({ ...msg, deviceId: DEV });
      const out = await nextMessage(ctx.ok);
      assert.deepEqual([out.switchId, out.payload, out.label, out.elapsed, out.deviceId], [switchId, state, label, 0, DEV], JSON.stringify(msg));
    }
    assert.equal(patches().length, 0, 'all equal to the current state: no write');
    assert.equal(deviceGets().length, 1, 'the clock stands still: one read serves every msg within the 5 s spacing');
  });

  it('toggles relative to the current state and sends the switch label form as a real change', async function () {
    this.timeout(45000);
    await closeS1LabelS2();
    const ctx = await setup({ timeout: 6, switchId: '' });
    ctx.node.receive({ payload: 'toggle', switchId: 3 });
    await pastTimeoutOnceWaiting(1, 1);
    const toggled = await nextMessage(ctx.late, 15000);
    assert.equal(toggled.requested, 'closed');
    assert.deepEqual(toggled.pending, { state: 'closed' });
    const readsSoFar = deviceGets().length;
    ctx.node.receive({ payload: 'heating', switchId: 2 });
    await pastTimeoutOnceWaiting(2, readsSoFar);
    const heating = await nextMessage(ctx.late, 15000);
    assert.equal(heating.requested, 'closed');
    assert.equal(heating.switchId, S2);
    assert.equal(heating.label, 'Idle', 'still open: the label of the last known state');
    assert.equal(patches().length, 2);
    sim.control.reportNow(DEV);
    const res = await fetch(`${sim.baseUrl}/devices/${DEV}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    const states = (await res.json()).switches.map((s) => s.state);
    assert.deepEqual(states, ['closed', 'closed', 'closed']);
  });

  it('refuses a key without switching permission: 403 says switching is not permitted, nothing is emitted', async function () {
    const key = sim.keys.writeNoSwitch;
    const ctx = await setup({}, key);
    const caught = await expectRefusal(ctx, { payload: 'on' }, { patched: true });
    assert.match(caught.error.message, new RegExp(`switching is not permitted for the API key …${sim.keys.writeNoSwitch.slice(-5)}`));
    assert.equal(caught.apiError.status, 403);
    assert.equal(caught.apiError.code, 'FORBIDDEN');
    assert.deepEqual(patches().map((r) => r.status), [403]);
    assertNoKey(key, caught, ctx.statuses, loggedText());
  });

  it('refuses before any write: uninitialised device, 6M+One, model without switches, unknown switch, bad payload', async function () {
    const ctx = await setup();
    const refusals = [
      [{ payload: 'on', deviceId: SIM_DEVICES.uninitialised, switchId: 1 }, /uninitialised/],
      [{ payload: 'on', deviceId: SIM_DEVICES.modbus6MOne, switchId: 1 }, /switching is not available on the 6M\+One/],
      [{ payload: 'on', deviceId: SIM_DEVICES.meter3M, switchId: 1 }, /3M, a model without switches/],
      [{ payload: 'on', switchId: 7 }, new RegExp(`switch ${DEV}_S7 does not exist on device ${DEV}`)],
      [{ payload: 'on', switchId: 'B300000000001_S1' }, /is not a switch of device/],
      [{ payload: 'maybe' }, /msg.payload "maybe" is not a switch command/],
      [{ payload: { state: 'open' } }, /is not a switch command/],
    ];
    for (const [msg, pattern] of refusals) {
      const caught = await expectRefusal(ctx, msg);
      assert.match(caught.error.message, pattern);
      assert.equal(caught.apiError.code, 'INVALID_REQUEST');
      ctx.statuses.length = 0;
    }
  });

  it('stops on redeploy during a pending wait: no output and no further requests', async function () {
    const ctx = await setup();
    ctx.node.receive({ payload: 'on' });
    ctx.node.receive({ payload: 'off' });
    await patched(1);
    await sleep(100);
    await helper.unload();
    const seen = sim.control.log().length;
    sim.control.reportNow(DEV);
    await sleep(5500);
    assert.equal(sim.control.log().length, seen, 'no request after close');
    assert.deepEqual(ctx.outputs, []);
  });
});
