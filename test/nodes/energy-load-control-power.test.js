'use strict';
// energy-load-control with a modulating load (control power), in a real Node-RED against the simulator on its
// frozen clock: the setpoint on output 1 (number, unit, on), stepped and spaced by minInterval, peak capping with
// the solar home's pool pump as the site's import, a dry run, and the properties refused. The "charger" here is a
// flow's output only: its load channel is the home's EV channel, whose relay stays open (it draws nothing).
const assert = require('node:assert/strict');
const { helper } = require('../support/env');
const { DEV, until, useLoadControlSuite } = require('./energy-load-control-fixtures');

const T0 = Date.UTC(2026, 1, 9, 2, 0, 0) / 1000; // 13:00 in Sydney: the solar home exports 2–3.4 kW
const S2 = `${DEV}_S2`;

describe('energy-load-control with a modulating load (Node-RED, simulator clock)', function () {
  this.timeout(60000);
  const f = useLoadControlSuite(T0);
  const { tick, step, lastEval } = f;
  const charger = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, actuator: 'flow', control: 'power', mode: 'surplus', interval: 0, window: 60,
    minCurrent: 6, maxCurrent: 16, phases: 1, voltage: 230, step: 1, enableDelay: 0, disableDelay: 180, minInterval: 0, margin: 0, staleAfter: 3600, loadChannel: '5', ...props,
  });
  const setpoints = (ctx, id = ctx.ids[0]) => ctx.decisions[id];
  /** The pool pump (channel 4, relay S2) switched by PATCH, as a flow's relay would. */
  const pump = (closed) => fetch(`${f.sim.baseUrl}/devices/${DEV}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${f.sim.keys.full}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ switches: [{ id: S2, state: closed ? 'closed' : 'open' }] }),
  }).then((res) => assert.ok(res.status < 300, `PATCH ${res.status}`));

  it('follows the surplus: a number in A on output 1 with msg.on, the largest whole step the surplus covers, never sooner than minInterval', async function () {
    const ctx = await f.setup(undefined, charger('a', { minInterval: 120 }));
    for (let i = 0; i < 24; i += 1) {
      await tick(ctx);
      const ev = lastEval(ctx, 'a');
      if (setpoints(ctx).length > 0 && setpoints(ctx).at(-1).timestamp === ev.timestamp) {
        const msg = setpoints(ctx).at(-1);
        assert.equal(typeof msg.payload, 'number');
        assert.equal(msg.unit, 'A');
        assert.equal(msg.on, msg.payload > 0);
        assert.equal(msg.watts, msg.payload * 230);
        assert.equal(ev.setpoint, msg.payload, 'output 2 says the same setpoint');
        const fits = Math.min(16, Math.max(6, Math.floor((ev.signal + 0.5) / 230)));
        assert.ok(Math.abs(msg.payload - fits) <= 1 && msg.payload * 230 <= ev.signal + 230, `${msg.payload} A for a surplus of ${ev.signal} W`);
      }
      step(30);
    }
    const sent = setpoints(ctx);
    assert.ok(sent.length >= 1, 'the surplus at 13:00 starts it');
    assert.equal(sent[0].reason, 'surplus');
    for (let i = 1; i < sent.length; i += 1) {
      assert.ok(sent[i].timestamp - sent[i - 1].timestamp >= 120_000, `setpoints ${(sent[i].timestamp - sent[i - 1].timestamp) / 1000} s apart`);
      assert.ok(Math.abs(sent[i].payload - sent[i - 1].payload) >= 1, 'each moves by a step at least');
    }
    assert.deepEqual(ctx.caught, []);
    assert.equal(f.patches().length, 0, 'no PATCH: the setpoint goes to the flow');
  });

  it('peak mode: the setpoint is capped to hold the site limit, at once when the import rises', async function () {
    // The "site import" is the pool pump's channel: 1100 W when its relay is closed.
    await pump(false);
    step(120);
    const ctx = await f.setup(undefined, charger('p', { mode: 'peak', channels: '4', limit: 3000 }));
    await tick(ctx);
    assert.deepEqual(setpoints(ctx).map((m) => m.payload), [13], '3000 W of room: 13 A');
    await pump(true);
    for (let i = 0; i < 4; i += 1) {
      step(30);
      await tick(ctx);
    }
    const ev = lastEval(ctx, 'p');
    assert.ok(ev.signal > 900, `the pump draws (${ev.signal} W)`);
    const last = setpoints(ctx).at(-1).payload;
    assert.equal(last, Math.floor((3000 - ev.signal) / 230), `capped to ${3000 - ev.signal} W`);
    assert.equal(lastEval(ctx, 'p').reason, 'belowLimit');
    await pump(false);
  });

  it('in W with minPower/maxPower; a dry run sends nothing on output 1 but reports the setpoint', async function () {
    const ctx = await f.setup(undefined, charger('w', { minPower: 1000, maxPower: 2000, step: 250, dryRun: true }));
    await tick(ctx);
    assert.deepEqual(setpoints(ctx), []);
    const ev = lastEval(ctx, 'w');
    assert.equal(ev.unit, 'W');
    assert.ok(ev.setpoint >= 1000 && ev.setpoint <= 2000 && ev.setpoint % 250 === 0, `setpoint ${ev.setpoint} W`);
  });

  it('a state msg is refused with a clear error; bad properties stop the node with a readable error', async function () {
    const ctx = await f.setup(undefined, charger('s'));
    await tick(ctx);
    helper.getNode(ctx.real.s).receive({ topic: 'state', payload: 'on' });
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /modulating load .* loadChannel/);
    const { parseDef } = require('../../dist/nodes/energy-load-control/settings');
    const def = { deviceId: DEV, actuator: 'flow', control: 'power', mode: 'surplus' };
    assert.throws(() => parseDef({ ...def, actuator: 'device', switchId: `${DEV}_S3` }), /choose actuator flow/);
    assert.throws(() => parseDef({ ...def, mode: 'threshold', onAbove: 1, offBelow: 0 }), /not threshold mode/);
    assert.throws(() => parseDef({ ...def, phases: 2 }), /phases must be 1 or 3/);
    assert.throws(() => parseDef({ ...def, minPower: 1000 }), /go together/);
    assert.throws(() => parseDef({ ...def, minCurrent: 20, maxCurrent: 16 }), /above the maximum/);
    assert.throws(() => parseDef({ ...def, control: 'dimmer' }), /control must be onoff or power/);
    assert.equal(parseDef({ deviceId: DEV, actuator: 'flow' }).settings.power, undefined, 'on/off unless control power');
    assert.deepEqual(parseDef({ ...def, phases: 3 }).settings.power.wattsPerUnit, 690);
  });
});
