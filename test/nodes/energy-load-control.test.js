'use strict';
// energy-load-control in a real Node-RED runtime against the simulator, on the simulator's frozen clock:
// the nodes read time through `energyApi.now` (the simulator's clock), evaluations are triggered by
// msg.payload "evaluate" (interval 0), and the clock moves only when a test steps it.
const assert = require('node:assert/strict');
const { helper, load, loggedText, assertNoKey } = require('../support/env');
const { DEV, NODES, sleep, until, coreNode, useLoadControlSuite } = require('./energy-load-control-fixtures');

const S1 = `${DEV}_S1`; // the solar home's switches all start open
const S3 = `${DEV}_S3`;
const T0 = Date.UTC(2026, 0, 15, 2, 0, 0) / 1000; // a multiple of 30 s: the device reports at T0 + 30, + 60…
const ALWAYS_ON = { mode: 'threshold', onAbove: -1e6, offBelow: -1e6 - 1 };
const ALWAYS_OFF = { mode: 'threshold', onAbove: 1e6, offBelow: 1e6 };
const STEADY = { mode: 'threshold', onAbove: 1e6, offBelow: -1e6 };

describe('energy-load-control (Node-RED, simulator clock)', function () {
  this.timeout(20000);
  const f = useLoadControlSuite(T0);
  const nodes = NODES;
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S3, interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, ...props,
  });
  const setup = (...loadNodes) => f.setup(undefined, ...loadNodes);
  const setupWithKey = (key, ...loadNodes) => f.setup(key, ...loadNodes);
  const { tick, step, patches, energyReads, deviceReads, lastEval, lastStatus } = f;
  const watch = (...args) => f.watch(...args);

  it('several loads of one device share one short-energy read per evaluation; switch states are read once, then every 5 min', async function () {
    const ctx = await setup(lc('a', { ...STEADY, switchId: S1 }), lc('b', { ...STEADY, switchId: `${DEV}_S2` }), lc('c3', { ...STEADY, switchId: S3 }), lc('d', { ...STEADY, switchId: S3, mode: 'surplus', loadPower: 1000 }));
    for (let i = 0; i < 4; i += 1) {
      await tick(ctx);
      step(30);
    }
    assert.equal(energyReads().length, 4, 'one read per evaluation for four loads');
    assert.equal(deviceReads().length, 1, 'the switch states once (next after 5 min)');
    assert.equal(patches().length, 0);
    for (const id of ctx.ids) {
      const ev = lastEval(ctx, id);
      assert.equal(typeof ev.payload, 'number', 'chart-ready payload');
      assert.equal(ev.topic, id === 'a' ? S1 : id === 'b' ? `${DEV}_S2` : S3, 'topic: the switch (the node has no name)');
    }
    assert.equal(lastEval(ctx, 'a').state, 'off', 'S1 is open on the device');
    assert.equal(lastEval(ctx, 'b').state, 'off');
    const q = energyReads()[0].query;
    assert.equal(Number(q.toTs) - Number(q.fromTs), 120, 'the window, read once');
    step(300 - 120);
    await tick(ctx);
    assert.equal(deviceReads().length, 2, 'switch states again after 5 min');
  });

  it('the config node counts the shared read once per measuring device, not once per load', async function () {
    const ctx = await setup(lc('a', { ...STEADY, switchId: S1, interval: 120 }), lc('b', { ...STEADY, switchId: `${DEV}_S2`, interval: 60 }), lc('c3', { ...STEADY, switchId: S3, interval: 120 }));
    const perNode = ctx.ids.map((id) => helper.getNode(ctx.real[id]).requestsPerDay());
    // The group reads energy every 60 s (its shortest interval) and its one switch device every 5 min.
    assert.deepEqual(perNode, [86400 / 60 + 86400 / 300, 0, 0], 'the whole group on one node');
    assert.equal(helper.getNode('api').dailyBudget().requestsPerDay, 1440 + 288);
  });

  it('switches on a decision, sends nothing while the change is pending, and reports it confirmed', async function () {
    const ctx = await setup(lc('a', ALWAYS_ON));
    await tick(ctx);
    assert.equal(patches().length, 1);
    assert.deepEqual(JSON.parse(JSON.stringify(ctx.decisions.a.map((m) => [m.payload, m.outcome, m.reason]))), [['on', 'sent', 'onAbove']]);
    assert.equal(lastEval(ctx, 'a').pending, true);
    await tick(ctx); // same instant: pending, no second PATCH, no early device read
    assert.equal(lastEval(ctx, 'a').reason, 'pending');
    step(10);
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').reason, 'pending', 'the device has not reported yet');
    step(20);
    await tick(ctx);
    assert.equal(patches().length, 1);
    const confirmed = ctx.decisions.a[1];
    assert.equal(confirmed.outcome, 'confirmed');
    assert.equal(confirmed.after, 30);
    assert.equal(lastEval(ctx, 'a').state, 'on');
    assert.match(lastStatus(ctx, 'a').text, /on · energy-load-control\.status\.onAbove/);
    assertNoKey(f.sim.keys.full, loggedText(), ctx.decisions, ctx.evaluations);
  });

  it('a change that the device does not pick up times out; nothing is sent while the device still shows it pending', async function () {
    const ctx = await setup(lc('a', ALWAYS_ON));
    f.sim.control.setOutage(DEV, { from: T0 + 1, to: T0 + 3600 });
    await tick(ctx);
    for (let i = 0; i < 7; i += 1) {
      step(30);
      await tick(ctx);
    }
    const timedOut = ctx.decisions.a.find((m) => m.outcome === 'timedOut');
    assert.ok(timedOut, 'reported as timed out');
    assert.equal(timedOut.after, 180);
    assert.equal(patches().length, 1, 'no new request while the first is still pending on the device');
  });

  it('a change made elsewhere is adopted, not fought', async function () {
    const ctx = await setup(lc('a', { ...STEADY, switchId: S1, minOn: 600 }));
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').state, 'off');
    const client = helper.getNode('api').client;
    await client.updateDevice(DEV, { switches: [{ id: S1, state: 'closed' }] });
    step(300);
    await tick(ctx);
    const adopted = ctx.decisions.a.find((m) => m.outcome === 'adopted');
    assert.equal(adopted.payload, 'on');
    assert.equal(adopted.reason, 'external');
    assert.equal(lastEval(ctx, 'a').state, 'on');
    assert.equal(patches().length, 1, 'only the change made elsewhere');
  });

  it('override with a duration switches at once and ends on time; without one it lasts until auto', async function () {
    const ctx = await setup(lc('a', { ...ALWAYS_OFF, minOn: 0 }));
    await tick(ctx);
    assert.equal(patches().length, 0);
    await tick(ctx, { payload: 'on', duration: 60 });
    assert.equal(patches().length, 1);
    assert.equal(ctx.decisions.a[0].reason, 'override');
    assert.match(lastStatus(ctx, 'a').text, /status\.override 1m00/);
    step(30);
    await tick(ctx);
    assert.match(lastStatus(ctx, 'a').text, /status\.override 30s/);
    step(30);
    await tick(ctx);
    assert.equal(patches().length, 2, 'the override ended: back to the rule');
    assert.equal(patches()[1].at >= patches()[0].at, true);
    assert.equal(ctx.decisions.a.filter((m) => m.outcome === 'sent').map((m) => `${m.payload}:${m.reason}`).join(' '), 'on:override off:offBelow');
    step(30);
    await tick(ctx);
    await tick(ctx, { payload: 'on' });
    for (let i = 0; i < 4; i += 1) {
      step(300);
      await tick(ctx);
    }
    assert.equal(lastEval(ctx, 'a').override.state, 'on');
    assert.equal(lastEval(ctx, 'a').override.until, null);
    assert.equal(patches().length, 3);
    await tick(ctx, { payload: 'auto' });
    assert.equal(patches().length, 4);
    assert.equal(lastEval(ctx, 'a').override, null);
  });

  it('refuses a command it does not know (to a Catch node) and a property it cannot use', async function () {
    const ctx = await setup(lc('a', STEADY), lc('bad', { mode: 'threshold', onAbove: 100, offBelow: 200 }));
    helper.getNode(ctx.real.a).receive({ payload: 'maybe' });
    await until(() => ctx.caught.length > 0, 'a caught error');
    assert.match(ctx.caught[0].error.message, /not a command/);
    assert.equal(ctx.caught[0].apiError.code, 'BAD_MSG', 'the msg, not a request to the energy API');
    assert.match(lastStatus(ctx, 'bad').text, /invalid|offBelow/i);
    // A setting it cannot run with shows its reason, not "invalid request".
    assert.match(lastStatus(ctx, 'bad').text, /^offBelow \(200 W\) must not be above/);
  });

  it('a refused PATCH is reported as failed, warned once, shown red, and tried again at the next decision', async function () {
    const ctx = await setupWithKey(f.sim.keys.writeNoSwitch, lc('a', ALWAYS_ON));
    for (let i = 0; i < 3; i += 1) {
      await tick(ctx);
      step(30);
    }
    assert.deepEqual(ctx.decisions.a.map((m) => `${m.payload}:${m.outcome}`), ['on:failed', 'on:failed', 'on:failed']);
    assert.match(ctx.decisions.a[0].error, /403/);
    assert.equal(lastStatus(ctx, 'a').fill, 'red');
    const warnings = helper.log().args.filter((a) => a[0].level === helper.log().WARN && /switching is not permitted|403/.test(String(a[0].msg)));
    assert.equal(warnings.length, 1, 'warned once');
    assertNoKey(f.sim.keys.writeNoSwitch, loggedText(), ctx.decisions);
  });

  it('a dry run decides and reports but sends no PATCH', async function () {
    const ctx = await setup(lc('a', { ...ALWAYS_ON, dryRun: true }));
    await tick(ctx);
    step(30);
    await tick(ctx);
    assert.equal(patches().length, 0);
    assert.deepEqual(ctx.decisions.a.map((m) => m.outcome), ['dryRun']);
    assert.equal(lastEval(ctx, 'a').state, 'on');
    assert.match(lastStatus(ctx, 'a').text, /status\.dryRun/);
  });

  it('a redeploy keeps the hold time: the next change comes when minOn ends, to the second', async function () {
    const ctx = await setup(lc('a', { ...ALWAYS_ON, minOn: 600 }));
    await tick(ctx);
    step(30);
    await tick(ctx);
    assert.equal(ctx.decisions.a[1].outcome, 'confirmed');
    // Full redeploy with the rule turned around: the node restarts, its context remains.
    const flow = ctx.flow.map((n) => (n.id === ctx.real.a ? { ...n, ...ALWAYS_OFF } : n));
    await helper._redNodes.setFlows(flow, 'full');
    await until(() => helper.getNode('d-a') && helper.getNode(ctx.real.a), 'the redeployed flow');
    const again = watch(flow, ['a']);
    for (let t = 60; t <= 660; t += 30) {
      step(30);
      await tick(again);
      if (t < 600) assert.equal(lastEval(again, 'a').reason, 'minOn', `held at +${t} s`);
    }
    const [on, off] = patches();
    assert.ok(off, 'switched off once minOn had passed');
    assert.equal(ctx.decisions.a[0].timestamp + 600 * 1000, again.decisions.a[0].timestamp, 'off exactly 600 s after the on PATCH');
    assert.ok(off.at > on.at);
  });

  it('stale data applies the fail-safe and says so', async function () {
    const ctx = await setup(lc('a', { ...STEADY, switchId: S1, staleAfter: 60, failSafe: 'closed' }));
    f.sim.control.setOutage(DEV, { from: T0, to: T0 + 3600 });
    step(30);
    await tick(ctx);
    assert.equal(patches().length, 0);
    step(60);
    await tick(ctx);
    assert.equal(lastEval(ctx, 'a').stale, true);
    assert.equal(patches().length, 1);
    assert.equal(ctx.decisions.a[0].reason, 'failSafe');
    assert.equal(ctx.decisions.a[0].payload, 'on');
    assert.match(lastStatus(ctx, 'a').text, /status\.failSafe/);
  });

  for (const name of ['Switch a load on a power threshold', 'Hot water on solar surplus', 'Three loads by priority on solar surplus', 'Peak limit - shed loads above a site limit']) {
    it(`example "${name}" deploys, evaluates and reports without errors`, async function () {
      const example = require(`../../examples/${name}.json`);
      const flow = example.map((n) => (n.type === 'energy-api' ? { ...n, baseUrl: f.sim.baseUrl, tps: 100 } : n));
      assert.match(flow[0].name, /load|surplus|limit|threshold/i, 'opens with its comment');
      const loads = flow.filter((n) => n.type === 'energy-load-control');
      const evaluations = [];
      const tab = { id: loads[0].z, type: 'tab', label: name };
      await load([...nodes, ...['20-inject', '21-debug', '90-comment'].map(coreNode)], [tab, ...flow], { '4e3a9c2f10d0c0f1': { apiKey: f.sim.keys.full } });
      const statuses = [];
      for (const n of loads) {
        helper.getNode(n.id).on('call:status', (call) => statuses.push(call.args[0]));
        for (const id of n.wires[1]) helper.getNode(id).on('input', (msg) => evaluations.push(msg));
      }
      helper.getNode(loads[0].id).receive({ payload: 'evaluate' });
      await until(() => new Set(evaluations.map((m) => m.topic)).size === loads.length, 'an evaluation of every load');
      assert.deepEqual(statuses.filter((st) => st.fill === 'red'), []);
      assert.equal(energyReads().length, 1, 'one read for the whole example');
      for (const msg of evaluations) assert.equal(typeof msg.payload, 'number');
    });
  }

  it('with an interval it reads on its own timer; ten redeploys and a stop leave no timer behind and nothing sent after close', async function () {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await sleep(50);
    const before = timers();
    let late = 0;
    for (let i = 0; i < 10; i += 1) {
      const ctx = await setup(lc('a', { ...STEADY, interval: 5 }), lc('b', { ...STEADY, switchId: S1, interval: 5 }));
      await until(() => ctx.evaluations.a.length > 0 && ctx.evaluations.b.length > 0, 'the first timed evaluation', 3000);
      if (i % 2 === 1) helper.getNode(ctx.real.a).receive({ payload: 'evaluate' }); // closed while an evaluation runs
      await helper.unload();
      const seen = ctx.evaluations.a.length + ctx.evaluations.b.length;
      await sleep(30);
      late += ctx.evaluations.a.length + ctx.evaluations.b.length - seen;
    }
    assert.equal(energyReads().length >= 10, true);
    let after = timers();
    for (let waited = 0; waited < 2000 && after > before; waited += 50) {
      await sleep(50);
      after = timers();
    }
    assert.ok(after <= before, `timers before ${before}, after ${after}`);
    assert.equal(late, 0);
  });
});
