'use strict';
// energy-load-control follows its own pending change at the pending-poll pace (5 s per device, shared
// with every node of the device), whatever its evaluation interval. On the simulator's frozen clock:
// the follow-up looks at the nodes' clock at least once a second, so a test steps the clock and then
// waits (a guard, never a verdict) for what the follow-up does at that simulated instant.
const assert = require('node:assert/strict');
const { helper, nodeFile } = require('../support/env');
const { DEV, sleep, until, useLoadControlSuite } = require('./energy-load-control-fixtures');

const S1 = `${DEV}_S1`;
const S3 = `${DEV}_S3`;
const T0 = Date.UTC(2026, 0, 15, 2, 0, 0) / 1000; // a multiple of 30 s: the device reports at T0 + 30, + 60…
const ALWAYS_ON = { mode: 'threshold', onAbove: -1e6, offBelow: -1e6 - 1 };
/** Longer than the follow-up's look at the clock (at least once a second): time for it to act, had it anything to do. */
const FOLLOW_LOOK_MS = 1300;

describe('energy-load-control follows its pending change (Node-RED, simulator clock)', function () {
  this.timeout(30000);
  const f = useLoadControlSuite(T0);
  // interval 0: evaluated only when asked, so every device read after the first evaluation is the follow-up's.
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S3, interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, ...props,
  });
  const readTimes = () => f.deviceReads().map((r) => r.simNow - T0);
  const outcome = (ctx, kind) => ctx.decisions.a.find((m) => m.outcome === kind);

  it('confirms within one poll of the device reporting (one evaluation round, no energy read), then stops polling', async function () {
    const ctx = await f.setup(undefined, lc('a', ALWAYS_ON));
    await f.tick(ctx); // T0: the switch read, the PATCH
    assert.equal(f.patches().length, 1);
    f.step(2);
    f.sim.control.reportNow(DEV); // the device takes the change at T0 + 2
    await sleep(FOLLOW_LOOK_MS);
    assert.deepEqual(readTimes(), [0], 'not polled before 5 s have passed since the change');

    f.step(3);
    await until(() => outcome(ctx, 'confirmed') && ctx.evaluations.a.length === 2, 'the confirmation');
    const confirmed = outcome(ctx, 'confirmed');
    assert.equal(confirmed.after, 5);
    assert.equal(confirmed.timestamp, (T0 + 5) * 1000);
    const evaluation = f.lastEval(ctx, 'a');
    assert.equal(evaluation.timestamp, (T0 + 5) * 1000, 'output 2: one evaluation round on the confirmation');
    assert.equal(evaluation.state, 'on');
    assert.equal(evaluation.pending, false);
    assert.match(f.lastStatus(ctx, 'a').text, /on · energy-load-control\.status\.onAbove/);
    assert.deepEqual(readTimes(), [0, 5]);
    assert.equal(f.energyReads().length, 1, 'the follow-up reads no energy');

    f.step(60);
    await sleep(FOLLOW_LOOK_MS);
    assert.deepEqual(readTimes(), [0, 5], 'nothing of its own pending: no more polling');
    assert.equal(ctx.evaluations.a.length, 2);
  });

  it('a device that never takes the change is polled once per 5 s at most until the change times out, then no more', async function () {
    const ctx = await f.setup(undefined, lc('a', ALWAYS_ON));
    f.sim.control.setOutage(DEV, { from: T0 + 1, to: T0 + 3600 });
    await f.tick(ctx);
    // Each minute the follow-up polls once (not once per 5 s missed), and reports nothing while it stays pending.
    // The clock moves on only once a poll is answered and the follow-up has looked again at the same instant: a
    // read still in flight when the clock jumps would count as answered a minute later (the client stamps
    // reads when answered, so that the spacing holds as the service sees it).
    for (const t of [60, 120]) {
      f.step(60);
      await until(() => readTimes().includes(t) && f.deviceReads().every((r) => r.status !== 0), `the poll at +${t} s`);
      await sleep(FOLLOW_LOOK_MS);
      assert.equal(readTimes().filter((x) => x === t).length, 1, `one poll at +${t} s`);
    }
    assert.equal(ctx.decisions.a.length, 1, 'only the sent change so far');
    assert.equal(ctx.evaluations.a.length, 1);
    f.step(60); // +180 s: the switch timeout
    await until(() => outcome(ctx, 'timedOut'), 'the time-out');
    assert.equal(outcome(ctx, 'timedOut').after, 180);
    assert.equal(f.patches().length, 1, 'no new request while the device still shows the first pending');
    f.step(60);
    await sleep(FOLLOW_LOOK_MS);
    assert.deepEqual(readTimes(), [0, 60, 120, 180]);
  });

  it('shares the 5 s spacing with the other nodes of the device: a switch node and the load never read it twice within 5 s', async function () {
    const sw = { id: 'sw', type: 'energy-switch-control', api: 'api', deviceId: DEV, switchId: S1, timeout: 60, wires: [['sw-ok'], ['sw-late']] };
    const ctx = await f.setupFlow([lc('a', ALWAYS_ON)], {
      others: [sw, { id: 'sw-ok', type: 'helper' }, { id: 'sw-late', type: 'helper' }],
      modules: [nodeFile('energy-switch-control')],
    });
    const switched = [];
    helper.getNode('sw-ok').on('input', (msg) => switched.push(msg));
    await f.tick(ctx); // T0: the load reads the device and switches S3
    f.step(4);
    helper.getNode('sw').receive({ payload: 'on' }); // T0 + 4: the switch node closes S1 with the load's copy of the device
    await until(() => f.patches().length === 2 && f.patches()[1].status !== 0, 'the switch node\'s PATCH');
    f.sim.control.reportNow(DEV);
    f.step(1); // T0 + 5: both may poll; one read serves both
    await until(() => outcome(ctx, 'confirmed') && switched.length === 1, 'both confirmations');
    assert.equal(outcome(ctx, 'confirmed').timestamp, (T0 + 5) * 1000);
    assert.equal(switched[0].confirmed, true);
    assert.deepEqual(readTimes(), [0, 5]);
    const times = readTimes();
    for (let i = 1; i < times.length; i += 1) assert.ok(times[i] - times[i - 1] >= 5, `reads at +${times[i - 1]} and +${times[i]} s`);
  });
});
