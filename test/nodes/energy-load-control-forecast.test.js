'use strict';
// Run targets on a solar forecast (msg.forecast) and the savings against a naive schedule, in a real Node-RED
// against the simulator on its clock: a plan that moves when the forecast turns cloudy, a target on tomorrow's sun
// and prices, a new forecast that keeps a running block, yesterday's sun without a forecast, and today's saving
// against a hand-computed case.
const assert = require('node:assert/strict');
const { helper, nodeFile } = require('../support/env');
const { DEV, until, useLoadControlSuite } = require('./energy-load-control-fixtures');

const H = 3600;
const T0 = Date.UTC(2026, 6, 14, 22, 0, 0) / 1000; // 08:00 in Sydney, Wednesday 15 July (winter, UTC+10)
const S3 = `${DEV}_S3`;
const at = (hour) => T0 + (hour - 8) * H; // local hour of 15 July (24+ = the next day)
const hhmm = (t) => new Date((t + 10 * H) * 1000).toISOString().slice(11, 16);
/** 30-minute slots over [from, to) with fn(start) giving their fields. */
const slots = (from, to, fn) => {
  const out = [];
  for (let t = from; t < to; t += 1800) out.push({ start: t, end: t + 1800, ...fn(t) });
  return out;
};
/** The planned runs, adjacent slots of one reason merged: [from, to, reason] in local time. */
const onSlots = (plan) => plan.payload.filter((s) => s.planned === 'on').reduce((runs, s) => {
  const last = runs.at(-1);
  if (last && last.end === s.start && last.reason === s.reason) last.end = s.end;
  else runs.push({ start: s.start, end: s.end, reason: s.reason });
  return runs;
}, []).map((r) => [hhmm(r.start), hhmm(r.end), r.reason]);
const within = (plan, from, to) => plan.payload.filter((s) => s.planned === 'on').every((s) => s.start >= from && s.end <= to);

describe('energy-load-control on a solar forecast, and its savings (Node-RED, simulator clock)', function () {
  this.timeout(60000);
  const f = useLoadControlSuite(T0);
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S3, interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, loadPower: 2000, mode: 'surplus', minBlock: 1800, ...props,
  });
  // The grid at 0.30 all day but 0.20 from 19:00 to 21:00; feed-in 0.05.
  const prices = (from, to) => slots(from, to, (t) => ({ price: t >= at(19) && t < at(21) ? 0.2 : 0.3, exportPrice: 0.05 }));
  const send = async (ctx, msg) => {
    const before = ctx.plans.a.length;
    await f.tick(ctx, msg);
    await until(() => ctx.plans.a.length > before, 'a new plan');
    return ctx.plans.a.at(-1);
  };

  it('a plan on a sunny forecast moves to the cheap evening when the forecast turns cloudy', async function () {
    const ctx = await f.setup(undefined, lc('a', { runFor: 2 * H }));
    await f.tick(ctx, { prices: prices(T0, at(24)) });
    const sunny = await send(ctx, { forecast: slots(T0, at(24), (t) => ({ power: t >= at(10) && t < at(15) ? 6000 : 0 })) });
    assert.equal(sunny.sun, 'forecast');
    assert.ok(within(sunny, at(10), at(15)), `on the sun: ${JSON.stringify(onSlots(sunny))}`);
    assert.ok(onSlots(sunny).every(([, , reason]) => reason === 'surplus'));
    // The same forecast in ms: the same plan (no new one).
    const plans = ctx.plans.a.length;
    await f.tick(ctx, { forecast: slots(T0, at(24), (t) => ({ power: t >= at(10) && t < at(15) ? 6000 : 0 })).map((s) => ({ ...s, start: s.start * 1000, end: s.end * 1000 })) });
    assert.equal(ctx.plans.a.length, plans);
    const cloudy = await send(ctx, { forecast: slots(T0, at(24), () => ({ power: 150 })) });
    assert.deepEqual(onSlots(cloudy), [['19:00', '21:00', 'cheapest']]);
    assert.match(f.lastStatus(ctx, 'a').text, /energy-load-control\.status\.sun_forecast/);
    assert.deepEqual(f.patchLog(), [], 'nothing to switch at 08:00');
    assert.deepEqual(ctx.caught, []);
  });

  it('a target whose day ends tomorrow plans on tomorrow\'s sun and prices', async function () {
    f.step(10 * H); // 18:00: the target of 17:00 is tomorrow's
    const ctx = await f.setup(undefined, lc('a', { runFor: 3 * H, by: '17:00' }));
    // Tomorrow 06:00–07:00 the grid is cheap; tomorrow's sun from 12:00 to 14:00.
    await f.tick(ctx, { prices: slots(at(18), at(24 + 17), (t) => ({ price: t >= at(30) && t < at(31) ? 0.1 : 0.3, exportPrice: 0.05 })) });
    const plan = await send(ctx, { forecast: slots(at(18), at(24 + 17), (t) => ({ power: t >= at(36) && t < at(38) ? 6000 : 0 })) });
    assert.equal(plan.by, at(24 + 17));
    // The house's own draw (the same weekday a week before) may leave a slot short of half the load: 'cheapest' there.
    const runs = onSlots(plan).reduce((merged, [from, to]) => (merged.at(-1)?.[1] === from ? [...merged.slice(0, -1), [merged.at(-1)[0], to]] : [...merged, [from, to]]), []);
    assert.deepEqual(runs, [['06:00', '07:00'], ['12:00', '14:00']]);
    const sunny = plan.payload.filter((s) => s.planned === 'on' && s.start >= at(36));
    assert.ok(sunny.filter((s) => s.reason === 'surplus').reduce((sum, s) => sum + s.end - s.start, 0) >= H, JSON.stringify(onSlots(plan)));
    assert.ok(plan.payload.filter((s) => s.planned === 'on').every((s) => s.start >= at(24)), 'all of it tomorrow');
  });

  it('a new forecast re-plans without breaking a running block or the holds', async function () {
    f.step(3 * H); // 11:00
    const ctx = await f.setup(undefined, lc('a', { runFor: 2 * H, minBlock: H, minOn: 1200 }));
    // 11:00–11:30 is cheap and the sun is forecast from 11:30: a block of an hour starts now.
    const sunny = await send(ctx, {
      prices: slots(at(11), at(24), (t) => ({ price: t < at(11.5) ? 0.02 : t >= at(19) && t < at(21) ? 0.2 : 0.3, exportPrice: 0.05 })),
      forecast: slots(at(11), at(24), (t) => ({ power: t >= at(11.5) && t < at(14) ? 10000 : 0 })),
    });
    assert.deepEqual(onSlots(sunny).map(([from]) => from)[0], '11:00');
    assert.ok(within(sunny, at(11), at(14)), JSON.stringify(onSlots(sunny)));
    assert.deepEqual(f.patchLog(), [{ simNow: at(11), switchId: S3, state: 'closed' }]);
    f.step(600);
    const cloudy = await send(ctx, { forecast: slots(at(11), at(24), () => ({ power: 0 })) });
    // The block started at 11:00 runs its hour, past the cheap half hour; the rest moves to the cheaper evening.
    const runs = onSlots(cloudy);
    assert.deepEqual(runs[0].slice(0, 2), ['11:10', '12:00'], JSON.stringify(runs));
    assert.ok(cloudy.payload.filter((s) => s.planned === 'on' && s.start >= at(12)).every((s) => s.start >= at(19) && s.end <= at(21)), JSON.stringify(runs));
    await f.run(ctx, at(12) - 60, 290);
    // Not switched off before the block's end (after it, the sun measured then decides with the plan).
    assert.deepEqual(f.patchLog().map((p) => [hhmm(p.simNow), p.state]), [['11:00', 'closed']]);
    assert.equal(f.lastEval(ctx, 'a').state, 'on');
  });

  it('without a forecast it plans on yesterday\'s sun and says so; a forecast marked stale is the last forecast', async function () {
    const ctx = await f.setup(undefined, lc('a', { runFor: 2 * H }));
    const plan = await send(ctx, { prices: prices(T0, at(24)) });
    assert.equal(plan.sun, 'persistence');
    assert.match(f.lastStatus(ctx, 'a').text, /energy-load-control\.status\.sun_persistence/);
    const stale = await send(ctx, { forecast: slots(T0, at(24), () => ({ power: 100 })), forecastStale: true });
    assert.equal(stale.sun, 'lastForecast');
    assert.match(f.lastStatus(ctx, 'a').text, /energy-load-control\.status\.sun_lastForecast/);
    // A bad forecast is refused whole: the one before stays.
    helper.getNode(ctx.real.a).receive({ forecast: [{ start: T0, end: T0 + 1800, power: -5 }] });
    await until(() => ctx.caught.length === 1, 'the error');
    assert.match(ctx.caught[0].error.message, /msg\.forecast\[0\]\.power: -5 is not a power in W/);
    await f.tick(ctx);
    assert.equal(ctx.plans.a.at(-1).sun, 'lastForecast');
  });

  it('today\'s saving against a timer ending at by: hand-computed on a tariff, in the status and on output 3', async function () {
    f.step(5 * H); // 13:00
    const tariff = {
      id: 'tariff', type: 'energy-tariff', currency: 'AUD', timezone: '',
      importRates: [{ since: '', days: 'all', from: '13:00', to: '15:00', price: '0.08' }, { since: '', days: 'all', from: '00:00', to: '24:00', price: '0.40' }],
      exportRates: [], supplyCharges: [],
    };
    const ctx = await f.setupFlow([lc('a', { mode: 'price', runFor: H, by: '16:00', tariff: 'tariff', minBlock: 1800 })], { others: [tariff], modules: [nodeFile('energy-tariff')] });
    await f.tick(ctx);
    // The plan runs 13:00–14:00 at 0.08 (2 kWh: 0.16); the timer would run 15:00–16:00 at 0.40 (0.80): 0.64 saved.
    assert.deepEqual(ctx.plans.a[0].savings.today, { start: at(16) - 86400, end: at(16), cost: 0.16, naiveCost: 0.8, saved: 0.64 });
    assert.match(f.lastStatus(ctx, 'a').text, /energy-load-control\.status\.saved$/);
    await f.run(ctx, at(16) + 300, 300);
    assert.deepEqual(f.patchLog().map((p) => [hhmm(p.simNow), p.state]), [['13:00', 'closed'], ['14:00', 'open']]);
    // The day is over: what it cost and what the timer would have, from what really ran at the prices of its time.
    const days = ctx.plans.a.at(-1).savings.days;
    assert.deepEqual(days, [{ start: at(16) - 86400, end: at(16), cost: 0.16, naiveCost: 0.8, saved: 0.64 }]);
    assert.equal(ctx.plans.a.at(-1).currency, 'AUD');
  });
});
