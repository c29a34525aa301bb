'use strict';
// energy-load-control with a load switched by the flow (actuator "flow"), in a real Node-RED against the
// simulator, on its frozen clock: commands on output 1 in each form, the state confirmed by feedback msgs
// (words, a Shelly Gen2 status, a Tasmota one), by the draw on the load channel, or assumed after a delay; a
// command never confirmed; feedback the node cannot read; measuring devices without switches.
const assert = require('node:assert/strict');
const { helper } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { DEV, until, useLoadControlSuite } = require('./energy-load-control-fixtures');

const T0 = Date.UTC(2026, 0, 15, 2, 0, 0) / 1000; // a multiple of 30 s: the device reports at T0 + 30, + 60…
const ALWAYS_ON = { mode: 'threshold', onAbove: -1e6, offBelow: -1e6 - 1 };
const STEADY = { mode: 'threshold', onAbove: 1e6, offBelow: -1e6 };

describe('energy-load-control switched by the flow (Node-RED, simulator clock)', function () {
  this.timeout(30000);
  const f = useLoadControlSuite(T0);
  const { tick, step, patches, lastEval, lastStatus } = f;
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, actuator: 'flow', confirmBy: 'feedback', interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, ...props,
  });
  const setup = (...loadNodes) => f.setup(undefined, ...loadNodes);
  const reads = (id) => f.sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${id}`));
  const state = (ctx, payload, id = ctx.ids[0]) => tick(ctx, { topic: 'state', payload }, id);
  const commands = (ctx, id = ctx.ids[0]) => ctx.decisions[id].map((m) => m.payload);

  for (const [form, on, off] of [['onoff', 'on', 'off'], ['truefalse', true, false], ['ONOFF', 'ON', 'OFF'], ['10', 1, 0]]) {
    it(`commandForm ${form}: output 1 carries ${JSON.stringify(on)}/${JSON.stringify(off)}, confirmed by feedback in the same words; no PATCH, no switch read`, async function () {
      const ctx = await setup(lc('a', { ...ALWAYS_ON, commandForm: form }));
      await tick(ctx);
      assert.equal(lastEval(ctx, 'a').reason, 'unknownState', 'no command before the actuator tells its state');
      assert.deepEqual(commands(ctx), []);
      await state(ctx, off);
      assert.deepEqual(commands(ctx), [on]);
      const sent = ctx.decisions.a[0];
      assert.equal(sent.outcome, 'sent');
      assert.equal(sent.state, 'on');
      assert.equal(lastEval(ctx, 'a').pending, true);
      step(10);
      await tick(ctx);
      assert.equal(lastEval(ctx, 'a').reason, 'pending');
      await state(ctx, on);
      assert.equal(lastEval(ctx, 'a').state, 'on');
      assert.equal(lastEval(ctx, 'a').pending, false);
      assert.match(lastStatus(ctx, 'a').text, /on · .*energy-load-control\.status\.confirmBy_feedback$/);
      assert.equal(lastStatus(ctx, 'a').fill, 'green');
      step(400);
      await tick(ctx);
      assert.deepEqual(commands(ctx), [on], 'one command; confirmations are not sent to the actuator');
      assert.equal(patches().length, 0, 'no PATCH');
      assert.equal(reads(DEV).length, 1, 'the measuring device once (its channels), no switch reads, not even every 5 min');
      assert.deepEqual(ctx.caught, []);
    });
  }

  it('reads a Shelly Gen2 status and a Tasmota one as feedback; a change at the actuator is adopted', async function () {
    const ctx = await setup(lc('a', { ...STEADY, commandForm: 'truefalse' }));
    const shellyStatus = { id: 0, source: 'WS_in', output: false, apower: 0, voltage: 231.2, temperature: { tC: 41.3 } };
    await state(ctx, shellyStatus);
    assert.equal(lastEval(ctx, 'a').state, 'off', 'Switch.GetStatus result');
    await state(ctx, { POWER: 'ON' });
    assert.equal(lastEval(ctx, 'a').state, 'on', 'Tasmota stat/…/RESULT');
    assert.equal(lastEval(ctx, 'a').reason, 'steady');
    await state(ctx, { POWER1: 'OFF' });
    assert.equal(lastEval(ctx, 'a').state, 'off');
    await state(ctx, { id: 1, src: 'shellyplus1-a8032ab12345', result: { id: 0, output: true } });
    assert.equal(lastEval(ctx, 'a').state, 'on', 'an RPC answer');
    await state(ctx, { src: 'shellyplus1-a8032ab12345', method: 'NotifyStatus', params: { ts: 1, 'switch:0': { id: 0, output: false } } });
    assert.equal(lastEval(ctx, 'a').state, 'off', 'a NotifyStatus');
    assert.deepEqual(commands(ctx), [], 'changes made at the actuator are followed, never fought');
    assert.deepEqual(ctx.caught, []);
  });

  it('feedback older than the command does not confirm it; feedback after it does', async function () {
    const ctx = await setup(lc('a', ALWAYS_ON));
    await state(ctx, 'off');
    assert.deepEqual(commands(ctx), ['on']);
    // A status published before the command took effect still says off: the command stays pending, nothing is repeated.
    step(5);
    await state(ctx, { output: false });
    assert.equal(lastEval(ctx, 'a').pending, true);
    assert.deepEqual(commands(ctx), ['on']);
    step(5);
    await state(ctx, { output: true });
    assert.equal(lastEval(ctx, 'a').state, 'on');
    assert.equal(lastEval(ctx, 'a').pending, false);
  });

  it('override, minOn and maxOff work as with the relay: one command each, at its time', async function () {
    const ALWAYS_OFF = { mode: 'threshold', onAbove: 1e6, offBelow: 1e6 };
    const ctx = await setup(lc('a', { ...ALWAYS_OFF, minOn: 300, maxOff: 600 }));
    await state(ctx, 'off');
    assert.deepEqual(commands(ctx), []);
    await tick(ctx, { payload: 'on', duration: 120 });
    assert.deepEqual(commands(ctx), ['on']);
    assert.equal(ctx.decisions.a[0].reason, 'override');
    step(3);
    await state(ctx, 'on');
    assert.equal(lastEval(ctx, 'a').state, 'on');
    step(117);
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').reason, 'minOn', 'the override ended; minOn holds from the command');
    assert.deepEqual(commands(ctx), ['on']);
    step(180);
    await tick(ctx);
    assert.deepEqual(commands(ctx), ['on', 'off']);
    assert.equal(ctx.decisions.a[1].reason, 'offBelow');
    await state(ctx, 'off');
    step(590);
    await tick(ctx);
    assert.deepEqual(commands(ctx), ['on', 'off']);
    step(10);
    await tick(ctx);
    assert.deepEqual(commands(ctx), ['on', 'off', 'on']);
    assert.equal(ctx.decisions.a[2].reason, 'maxOff');
    assert.deepEqual(ctx.caught, []);
  });

  it('a load switched by the flow and a relay share one group: one energy read per round, the relay alone PATCHes', async function () {
    const ctx = await setup(lc('r', { ...ALWAYS_ON, actuator: 'device', switchId: `${DEV}_S3` }), lc('f', { ...ALWAYS_ON, priority: 2 }));
    await tick(ctx, { topic: 'state', payload: 'off' }, 'f');
    assert.deepEqual(commands(ctx, 'f'), ['on']);
    assert.deepEqual(f.patchLog().map((p) => [p.switchId, p.state]), [[`${DEV}_S3`, 'closed']]);
    assert.deepEqual(ctx.decisions.r.map((m) => [m.payload, m.outcome]), [['on', 'sent']]);
    assert.equal(f.energyReads().length, 1);
    assert.equal(reads(DEV).length, 1, 'the device once, for both');
    assert.deepEqual(ctx.caught, []);
  });

  it('confirmBy draw: a command is confirmed when the load channel draws (or stops) in an entry after it', async function () {
    // The pool pump (channel 4) of the solar home runs on its relay S2: here a "Shelly" the test drives from output 1.
    const S2 = `${DEV}_S2`;
    const relay = (closed) => fetch(`${f.sim.baseUrl}/devices/${DEV}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${f.sim.keys.full}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ switches: [{ id: S2, state: closed ? 'closed' : 'open' }] }),
    }).then((res) => res.status);
    assert.ok((await relay(true)) < 300);
    step(150);
    const ctx = await setup(lc('a', { ...STEADY, confirmBy: 'draw', loadChannel: '4', loadPower: 1100, interval: 30 }));
    const switched = [];
    helper.getNode('d-a').on('input', (msg) => switched.push(relay(msg.payload === 'on')));
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').state, 'on', 'the pump draws: on');
    const confirmBy = async (want) => {
      for (let i = 0; i < 6; i += 1) {
        step(30);
        await tick(ctx);
        if (lastEval(ctx, 'a').state === want && !lastEval(ctx, 'a').pending) return;
      }
      assert.fail(`not confirmed ${want} by draw`);
    };
    for (const want of ['off', 'on']) {
      await tick(ctx, { payload: want });
      assert.equal(commands(ctx).at(-1), want);
      await until(() => switched.length === commands(ctx).length, 'the actuator');
      assert.ok((await switched.at(-1)) < 300);
      assert.equal(lastEval(ctx, 'a').pending, true);
      await confirmBy(want);
      assert.match(lastStatus(ctx, 'a').text, /energy-load-control\.status\.confirmBy_draw$/);
    }
    assert.ok(lastEval(ctx, 'a').loadDraw > 0, `the pump draws again (${lastEval(ctx, 'a').loadDraw} W)`);
    assert.deepEqual(commands(ctx), ['off', 'on']);
    assert.equal(patches().length, 3, 'the test\'s own relay writes alone');
    assert.equal(reads(DEV).length, 1, 'no switch reads');
    assert.deepEqual(ctx.caught, []);
  });

  it('confirmBy time: assumed off at the start, the command assumed done after confirmAfter', async function () {
    const ctx = await setup(lc('a', { ...ALWAYS_ON, confirmBy: 'time', confirmAfter: 60, commandForm: 'ONOFF' }));
    await tick(ctx);
    assert.deepEqual(commands(ctx), ['ON'], 'taken as off at first, so the rule switches it on');
    step(30);
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').pending, true);
    assert.match(lastStatus(ctx, 'a').text, /→ on/);
    step(30);
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').state, 'on');
    assert.equal(lastEval(ctx, 'a').pending, false);
    assert.match(lastStatus(ctx, 'a').text, /energy-load-control\.status\.confirmBy_time$/);
    assert.deepEqual(commands(ctx), ['ON']);
    assert.equal(patches().length, 0);
  });

  it('a command the actuator never confirms: one error and a red status after the timeout, no repeated commands until it tells its state', async function () {
    const ctx = await setup(lc('a', ALWAYS_ON));
    await state(ctx, 'off');
    assert.deepEqual(commands(ctx), ['on']);
    for (let i = 0; i < 5; i += 1) {
      step(30);
      await tick(ctx);
    }
    assert.equal(ctx.caught.length, 0, 'not yet: 150 s');
    step(30);
    await tick(ctx);
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /did not confirm "on" within 180 s/);
    assert.deepEqual(ctx.caught[0].apiError, { name: 'LoadError', message: ctx.caught[0].error.message, code: 'LOAD_UNCONFIRMED' });
    assert.equal(lastEval(ctx, 'a').state, null, 'the state is unknown');
    assert.equal(lastStatus(ctx, 'a').fill, 'red');
    for (let i = 0; i < 10; i += 1) {
      step(30);
      await tick(ctx);
    }
    assert.deepEqual(commands(ctx), ['on'], 'no repeat storm');
    assert.equal(ctx.caught.length, 1, 'one error');
    assert.equal(lastStatus(ctx, 'a').fill, 'red');
    assert.match(lastStatus(ctx, 'a').text, /energy-load-control\.status\.unconfirmedShort/);
    await state(ctx, 'off');
    assert.deepEqual(commands(ctx), ['on', 'on'], 'once the actuator tells its state, control goes on');
    await state(ctx, 'on');
    assert.equal(lastStatus(ctx, 'a').fill, 'green');
  });

  it('feedback it cannot read: a clear error to a Catch node, a red status, and the fail-safe until a readable state comes', async function () {
    const ctx = await setup(lc('a', { ...STEADY, failSafe: 'open' }));
    await state(ctx, 'on');
    assert.equal(lastEval(ctx, 'a').state, 'on');
    await state(ctx, 'maybe');
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /msg\.payload "maybe" is not a load state/);
    assert.equal(ctx.caught[0].apiError.code, 'BAD_MSG');
    assert.equal(lastEval(ctx, 'a').reason, 'failSafe');
    assert.equal(lastEval(ctx, 'a').stale, true);
    assert.deepEqual(commands(ctx), ['off'], 'the fail-safe switches it off');
    assert.equal(lastStatus(ctx, 'a').fill, 'red');
    await state(ctx, { unknown: 1 });
    assert.equal(ctx.caught.length, 2);
    assert.deepEqual(commands(ctx), ['off'], 'pending: nothing repeated');
    await state(ctx, 'off');
    assert.equal(lastEval(ctx, 'a').state, 'off');
    assert.equal(lastEval(ctx, 'a').stale, false);
    assert.notEqual(lastStatus(ctx, 'a').fill, 'red');
  });

  for (const [name, device] of [['6M+One', SIM_DEVICES.modbus6MOne], ['6MW', SIM_DEVICES.wifi6MW], ['3M', SIM_DEVICES.meter3M]]) {
    it(`a ${name} without switches measures a load switched by the flow; no switchId, no PATCH, no switch read`, async function () {
      const ctx = await setup(lc('a', { ...ALWAYS_ON, deviceId: device, interval: 60 }));
      assert.equal(helper.getNode(ctx.real.a).requestsPerDay(), 86400 / 60, 'only the energy reads');
      await state(ctx, 'off');
      assert.deepEqual(commands(ctx), ['on']);
      assert.equal(ctx.decisions.a[0].deviceId, device);
      await state(ctx, 'on');
      assert.equal(lastEval(ctx, 'a').state, 'on');
      assert.equal(typeof lastEval(ctx, 'a').signal, 'number');
      assert.equal(patches().length, 0);
      assert.equal(reads(device).length, 1);
      assert.deepEqual(ctx.caught, []);
    });
  }

  it('the relay needs its switch as before', async function () {
    const ctx = await setup(lc('a', { ...STEADY, actuator: 'device', switchId: '' }));
    helper.getNode(ctx.real.a).receive({ payload: 'evaluate' });
    await until(() => ctx.caught.length === 1, 'the refusal');
    assert.match(ctx.caught[0].error.message, /no switch: choose the switch this node drives, or actuator "flow"/);
  });

  it('a node saved without an actuator drives its relay; a state msg to it is refused', async function () {
    const ctx = await setup(lc('b', { ...STEADY, actuator: undefined, confirmBy: undefined, switchId: `${DEV}_S3` }));
    await tick(ctx);
    assert.equal(lastEval(ctx, 'b').state, 'off', 'S3 read from the device');
    assert.equal(reads(DEV).length, 1);
    helper.getNode(ctx.real.b).receive({ topic: 'state', payload: 'on' });
    await until(() => ctx.caught.length === 1, 'the refusal');
    assert.match(ctx.caught[0].error.message, /msg\.topic "state" is for a load switched by the flow/);
  });
});
