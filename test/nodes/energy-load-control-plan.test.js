'use strict';
// Run targets of energy-load-control in a real Node-RED runtime against the simulator, on its clock:
// planned on a tariff (hand-worked), on Amber prices from energy-price, the third output, the status,
// bad price lists refused whole, run time kept across a redeploy, and nodes without a target unchanged.
const assert = require('node:assert/strict');
const { helper, load, nodeFile, apiConfig, loggedText, assertNoKey } = require('../support/env');
const { DEV, NODES, until, coreNode, useLoadControlSuite } = require('./energy-load-control-fixtures');
const { SIM_AMBER_KEY, amberSiteId } = require('../../dist/simulator');

const T0 = Date.UTC(2026, 6, 15, 3, 0, 0) / 1000; // 13:00 in Sydney, a Wednesday in winter
const S2 = `${DEV}_S2`; // the pool pump
const S3 = `${DEV}_S3`;
const TARIFF = {
  id: 'tariff', type: 'energy-tariff', currency: 'AUD', timezone: '',
  importRates: [{ since: '', days: 'all', from: '13:00', to: '15:00', price: '0.08' }, { since: '', days: 'all', from: '00:00', to: '24:00', price: '0.40' }],
  exportRates: [], supplyCharges: [],
};

describe('energy-load-control run targets (Node-RED, simulator clock)', function () {
  this.timeout(30000);
  const f = useLoadControlSuite(T0);
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S3, interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, loadPower: 2000, mode: 'price', ...props,
  });
  const withTariff = (...nodes) => f.setupFlow(nodes, { others: [TARIFF], modules: [nodeFile('energy-tariff')] });
  const hhmm = (t) => new Date((t + 10 * 3600) * 1000).toISOString().slice(11, 16);

  it('on a time-of-use tariff: runs the cheapest hour now, stops when the hour is done; the plan on output 3, run time in the status', async function () {
    const ctx = await withTariff(lc('a', { runFor: 3600, minBlock: 1800, tariff: 'tariff' }));
    await f.tick(ctx);
    const plan = ctx.plans.a[0];
    assert.deepEqual(plan.payload.map((s) => [hhmm(s.start), hhmm(s.end), s.price, s.planned, s.reason ?? '-']), [
      ['13:00', '14:00', 0.08, 'on', 'cheapest'], ['14:00', '15:00', 0.08, 'off', '-'], ['15:00', '00:00', 0.4, 'off', '-'],
    ]);
    // 2 kW for 1 h at 0.08.
    assert.deepEqual([plan.runFor, plan.runTime, plan.plannedTime, plan.expectedRunTime, plan.expectedCost, plan.short, plan.currency], [3600, 0, 3600, 3600, 0.16, 0, 'AUD']);
    assert.deepEqual([plan.payload[0].x, plan.payload[0].y, plan.payload[0].series], [T0 * 1000, 0.08, 'planned']);
    assert.equal(plan.by, Date.UTC(2026, 6, 15, 14, 0) / 1000, 'local midnight');
    assert.deepEqual(f.patchLog(), [{ simNow: T0, switchId: S3, state: 'closed' }]);
    assert.equal(ctx.decisions.a[0].reason, 'cheapest');
    const ev = f.lastEval(ctx, 'a');
    assert.deepEqual([ev.runFor, ev.runTime, ev.price], [3600, 0, 0.08]);
    await f.run(ctx, T0 + 3600, 60);
    assert.deepEqual(f.patchLog().map((p) => [hhmm(p.simNow), p.state]), [['13:00', 'closed'], ['14:00', 'open']]);
    assert.equal(ctx.decisions.a.find((d) => d.outcome === 'sent' && d.payload === 'off').reason, 'steady', 'the target is met');
    assert.equal(f.lastEval(ctx, 'a').runTime, 3600);
    assert.match(f.lastStatus(ctx, 'a').text, /1h00\/1h00/);
    assert.ok(ctx.plans.a.length < 10, `output 3 only when the plan changes (${ctx.plans.a.length} of 61 evaluations)`);
  });

  it('plans on Amber prices from energy-price: 2 h by 17:00 in the cheapest half hours of the forecast', async function () {
    // energy-price's output goes to this test's load-control node (its id carries the next serial) and a helper.
    const price = { id: 'price', type: 'energy-price', source: 'amber', baseUrl: f.sim.amberUrl, siteId: amberSiteId(DEV), resolution: 30, ahead: 24, timezone: 'Australia/Sydney', poll: false, wires: [[`pool-${f.nextSerial()}`, 'prices-out']] };
    const ctx = await f.setupFlow([lc('pool', { switchId: S2, loadPower: 1100, runFor: 7200, by: '17:00', minBlock: 1800 })],
      { others: [price, { id: 'prices-out', type: 'helper' }], modules: [nodeFile('energy-price')], credentials: { price: { apiKey: SIM_AMBER_KEY } } });
    const lists = [];
    helper.getNode('prices-out').on('input', (msg) => lists.push(msg.prices));
    helper.getNode('price').receive({});
    await until(() => ctx.plans.pool.length > 0, 'a plan');
    const plan = ctx.plans.pool.at(-1);
    const prices = lists[0];
    const by = Date.UTC(2026, 6, 15, 7, 0) / 1000;
    assert.equal(plan.by, by);
    assert.equal(plan.payload.at(-1).end, by);
    const on = plan.payload.filter((s) => s.planned === 'on');
    assert.equal(on.reduce((sum, s) => sum + s.end - s.start, 0), 7200);
    // Each planned slot carries its Amber price; the cost is 1.1 kW × the planned hours at those prices.
    for (const s of on) assert.equal(s.price, prices.find((p) => p.start <= s.start && p.end > s.start).price);
    const expected = on.reduce((sum, s) => sum + 1.1 * ((s.end - s.start) / 3600) * s.price, 0);
    assert.ok(Math.abs(plan.expectedCost - expected) < 0.001, `${plan.expectedCost} vs ${expected}`);
    // The cheapest four half hours before 17:00 cost at most this; a plan may pay a little more for fewer starts (0.005 each).
    const ahead = prices.filter((p) => p.end > T0 && p.end <= by).map((p) => p.price).sort((a, b) => a - b);
    const floor = ahead.slice(0, 4).reduce((sum, p) => sum + 0.55 * p, 0);
    assert.ok(plan.expectedCost <= floor + 4 * 0.005 + 1e-6, `${plan.expectedCost} vs the cheapest ${floor}`);
    assert.match(f.lastStatus(ctx, 'pool').text, /0m\/2h00/);
    assertNoKey(SIM_AMBER_KEY, loggedText(), ctx.plans, ctx.evaluations);
  });

  it('a bad price list is refused whole, naming the slot, and the plan it had stays', async function () {
    const ctx = await f.setup(undefined, lc('a', { runFor: 3600 }));
    await f.tick(ctx, { prices: [0.3, 0.1, 0.1, 0.3].map((price, i) => ({ start: T0 + i * 1800, end: T0 + (i + 1) * 1800, price })) });
    assert.equal(ctx.plans.a.length, 1);
    const plans = ctx.plans.a.length;
    helper.getNode(ctx.real.a).receive({ prices: [{ start: T0, end: T0 + 1800, price: 0.3 }, { start: T0 + 900, end: T0 + 3600, price: 'x' }] });
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /msg\.prices\[1\]\.price: "x" is not a price/);
    await f.tick(ctx);
    assert.equal(ctx.plans.a.length, plans, 'the plan did not change');
    assert.equal(ctx.plans.a[0].payload.find((s) => s.planned === 'on').price, 0.1);
    // The status says so after the next evaluation too, not only the Catch node, until a good list comes.
    assert.match(f.lastStatus(ctx, 'a').text, /· energy-load-control\.status\.pricesRefused$/);
    assert.equal(f.lastStatus(ctx, 'a').fill, 'yellow');
    await f.tick(ctx, { prices: [0.3, 0.1, 0.1, 0.3].map((price, i) => ({ start: T0 + i * 1800, end: T0 + (i + 1) * 1800, price })) });
    assert.doesNotMatch(f.lastStatus(ctx, 'a').text, /pricesRefused/);
  });

  it('a price list in ms and out of order is read as unix s and sorted: the same plan as the list in s', async function () {
    const inSeconds = [0.3, 0.1, 0.1, 0.3].map((price, i) => ({ start: T0 + i * 1800, end: T0 + (i + 1) * 1800, price }));
    const ctx = await f.setup(undefined, lc('a', { runFor: 3600 }), lc('b', { switchId: S2, runFor: 3600 }));
    await f.tick(ctx, { prices: inSeconds }, 'a');
    await f.tick(ctx, { prices: [...inSeconds].reverse().map((s) => ({ ...s, start: s.start * 1000, end: s.end * 1000 })) }, 'b');
    assert.deepEqual(ctx.plans.b.at(-1).payload, ctx.plans.a.at(-1).payload);
    assert.equal(ctx.plans.b.at(-1).payload.find((s) => s.planned === 'on').start, T0 + 1800);
    assert.deepEqual(ctx.caught, []);
  });

  it('before any price list (and without a tariff) it waits for prices: no switch, reason noPrices, until the deadline forces a start', async function () {
    const ctx = await f.setup(undefined, lc('a', { runFor: 3600, minBlock: 1800 }), lc('b', { switchId: S2, runFor: 3600, minBlock: 1800, by: '14:00' }));
    await f.tick(ctx);
    const ev = f.lastEval(ctx, 'a');
    assert.equal(ev.reason, 'noPrices');
    assert.equal(ev.state, 'off');
    assert.match(f.lastStatus(ctx, 'a').text, /off · energy-load-control\.status\.noPrices · 0m\/1h00 · energy-load-control\.status\.next/);
    // b must run its hour by 14:00: the deadline leaves no choice, prices or not.
    assert.deepEqual(f.patchLog(), [{ simNow: T0, switchId: S2, state: 'closed' }]);
    assert.equal(ctx.decisions.b[0].reason, 'deadline');
    // The deploy's evaluation came before the first price list: once it comes, a plans on it.
    f.step(60);
    await f.tick(ctx, { prices: [0.3, 0.1, 0.1, 0.3].map((price, i) => ({ start: T0 + i * 1800, end: T0 + (i + 1) * 1800, price })) });
    assert.equal(f.lastEval(ctx, 'a').reason, 'cheapest');
    assert.match(f.lastStatus(ctx, 'a').text, /off · energy-load-control\.status\.waitingForSlots · 0m\/1h00/);
    assert.equal(f.patchLog().length, 1, 'a waits for its cheaper slot at 13:30');
    assert.deepEqual(ctx.caught, []);
  });

  it('a node without a target sends no plan and refuses msg.prices; a saved node keeps its two wires', async function () {
    const ctx = await f.setup(undefined, lc('a', { mode: 'surplus', loadPower: 1000 }));
    await f.tick(ctx);
    f.step(30);
    await f.tick(ctx);
    assert.equal(ctx.plans.a.length, 0);
    helper.getNode(ctx.real.a).receive({ prices: [{ start: T0, end: T0 + 1800, price: 0.3 }] });
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /has no run target/);
  });

  it('run time survives a redeploy: the plan counts on from what ran before it', async function () {
    const node = lc('a', { runFor: 7200, minBlock: 1800, tariff: 'tariff' });
    const ctx = await withTariff(node);
    await f.run(ctx, T0 + 1200, 60);
    assert.equal(f.lastEval(ctx, 'a').runTime, 1200);
    await helper.unload();
    await load([...NODES, nodeFile('energy-tariff')], ctx.flow, apiConfig(f.sim, f.sim.keys.full, { tps: 100 }).credentials);
    const again = f.watch(ctx.flow, ['a']);
    f.step(60);
    await f.tick(again);
    assert.equal(f.lastEval(again, 'a').runTime, 1260);
    assert.equal(f.patchLog().length, 1, 'still the one block, not switched again');
  });

  for (const name of ['Hot water - solar first, cheapest slots otherwise, 3 h by 5 pm', 'Pool pump - 4 h a day in the cheapest slots']) {
    it(`example "${name}" gets Amber prices from the simulator, plans and reports without errors`, async function () {
      const example = require(`../../examples/${name}.json`);
      const flow = example.map((n) => {
        if (n.type === 'energy-api') return { ...n, baseUrl: f.sim.baseUrl, tps: 100 };
        if (n.type === 'energy-price') return { ...n, baseUrl: f.sim.amberUrl };
        return n;
      });
      const [loadNode] = flow.filter((n) => n.type === 'energy-load-control');
      const price = flow.find((n) => n.type === 'energy-price');
      const tab = { id: loadNode.z, type: 'tab', label: name };
      await load([...NODES, nodeFile('energy-price'), ...['20-inject', '21-debug', '90-comment'].map(coreNode)], [tab, ...flow],
        { '4e3a9c2f10d0c0f1': { apiKey: f.sim.keys.full }, [price.id]: { apiKey: SIM_AMBER_KEY } });
      const statuses = [];
      const plans = [];
      helper.getNode(loadNode.id).on('call:status', (call) => statuses.push(call.args[0]));
      helper.getNode(loadNode.wires[2][0]).on('input', (msg) => plans.push(msg));
      await until(() => plans.some((p) => p.payload.some((s) => s.price !== null)), 'a plan on the Amber prices');
      assert.deepEqual(statuses.filter((st) => st.fill === 'red'), []);
      const plan = plans.at(-1);
      assert.equal(plan.runFor, loadNode.runFor);
      assert.equal(plan.payload.at(-1).end, plan.by);
      assert.equal(plan.short, 0);
      assert.equal(plan.plannedTime, loadNode.runFor);
      assert.equal(f.patches().length, 0, 'a dry run: nothing switched');
      assert.equal(f.sim.control.log().filter((r) => r.path.startsWith('/amber/v1/')).length, 1, 'one price request at deploy');
    });
  }
});
