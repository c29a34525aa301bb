'use strict';
// Run targets inside the load-control group (pure evaluateGroup, hand-built entries and history): loads
// planned by priority on a shared forecast of the sun, and a plan that drops what the sun gave.
const assert = require('node:assert/strict');
const { evaluateGroup } = require('../../../dist/domain/site/group');
const { readPrices } = require('../../../dist/domain/pricing/normalise');

const H = 3600;
const ZONE = 'Australia/Sydney'; // UTC+10 in July
const local = (day, hh, mm = 0) => Date.UTC(2026, 6, day, hh - 10, mm) / 1000;
const utcHour = (t) => new Date(t * 1000).toISOString().slice(11, 16);

function settings(extra, target) {
  return {
    mode: 'surplus', channels: [0], loadPower: 2000, onAbove: 0, offBelow: 0, margin: 200, limit: 0, windowS: 120, minOnS: 0, minOffS: 0,
    maxOffS: 0, priority: 1, staleAfterS: 600, failSafe: 'hold', dryRun: false, timeoutS: 180,
    target: { runForS: H, byMinute: 1440, minBlockS: 1800, ...target }, ...extra,
  };
}

/** Hourly prices from `from` (unix s) with 0.05 feed-in, `price(localHour)` import. */
function pricing(from, hours, price) {
  const list = Array.from({ length: hours }, (_, i) => ({ start: from + i * H, price: price((new Date((from + i * H) * 1000).getUTCHours() + 10) % 24), exportPrice: 0.05 }));
  const prices = readPrices(list, { source: 'msg.prices' }).periods;
  return { zone: ZONE, prices, tariff: () => [] };
}

/** The plan's on units as local hours ("11:00-12:00"), merged. */
function plannedHours(target) {
  const spans = [];
  target.units.forEach((u, i) => {
    if (!target.plan[i].on) return;
    const last = spans[spans.length - 1];
    if (last && last.end === u.start) last.end = u.end;
    else spans.push({ start: u.start, end: u.end, reason: target.plan[i].reason });
  });
  return spans.map((s) => `${utcHour(s.start + 10 * H)}-${utcHour(s.end + 10 * H)} ${s.reason}`);
}

describe('run targets in the load-control group (pure)', function () {
  it('two loads by priority share one sunny slot: the first takes the forecast sun, the second what is left', function () {
    // Yesterday: surplus `watts` from 11:00 to 12:00 (grid exporting), nothing else.
    const history = (watts) => Array.from({ length: 12 }, (_, i) => ({ timestamp: local(14, 11, 5 * (i + 1)), duration: 300, eReal: [-watts * 300, 0, 0] }));
    const prices = pricing(local(15, 8), 16, (h) => (h === 13 ? 0.20 : 0.25));
    const now = local(15, 8) * 1000;
    const members = [
      { id: 'b-second', settings: settings({ priority: 2, loadChannel: 2 }), memory: { state: 'off' }, reading: { state: 'off' }, pricing: prices },
      { id: 'a-first', settings: settings({ priority: 1, loadChannel: 1 }), memory: { state: 'off' }, reading: { state: 'off' }, pricing: prices },
    ];
    const plans = (watts) => {
      const out = evaluateGroup(members, { entries: [], startedAt: now, history: history(watts) }, now);
      return ['a-first', 'b-second'].map((id) => plannedHours(out.get(id).target));
    };
    // 2 kW of sun for one 2 kW load: the first gets it (lost feed-in 0.05), the second the cheapest grid hour.
    assert.deepEqual(plans(2000), [['11:00-12:00 surplus'], ['13:00-14:00 cheapest']]);
    // 3 kW: the second gets half its power from the sun there: 0.5 × 0.25 + 0.5 × 0.05 = 0.15 < 0.20.
    assert.deepEqual(plans(3000), [['11:00-12:00 surplus'], ['11:00-12:00 surplus']]);
  });

  it('surplus that arrives after the plan bought from the grid: the evening slot it had planned is dropped', function () {
    // Cheap grid at 07:00 (0.10) and 15:00 (0.20); no sun in yesterday's history; today 3 kW of sun from 11:00 to 12:30.
    const prices = pricing(local(15, 6), 18, (h) => (h === 7 ? 0.10 : h === 15 ? 0.20 : 0.30));
    const s = settings({ loadChannel: 1 }, { runForS: 2 * H, byMinute: 17 * 60 });
    const solar = (t) => (t >= local(15, 11) && t < local(15, 12, 30) ? 3000 : 0);
    let memory = { state: 'off' };
    let state = 'off';
    const entries = [];
    const switches = [];
    let planAt1055;
    for (let t = local(15, 6, 30); t < local(15, 17); t += 60) {
      const load = state === 'on' ? 2000 : 0;
      entries.push({ timestamp: t, duration: 60, eReal: [(500 + load - solar(t)) * 60, load * 60] });
      if (entries.length > 10) entries.shift();
      const out = evaluateGroup([{ id: 'hw', settings: s, memory, reading: { state }, pricing: prices }], { entries, startedAt: t * 1000, history: [] }, t * 1000);
      const ev = out.get('hw');
      if (t === local(15, 10, 55)) planAt1055 = plannedHours(ev.target);
      memory = ev.memory;
      if (ev.switchTo) {
        switches.push(`${utcHour(t + 10 * H)} ${ev.switchTo} ${ev.reason}`);
        state = ev.switchTo;
        memory = { ...memory, state, since: t * 1000 };
      }
    }
    assert.deepEqual(planAt1055, ['15:00-16:00 cheapest'], 'before the sun: one more hour of grid in the afternoon');
    // The sun measured at 11:01 (0.05 of lost feed-in, fading into yesterday's none over an hour) beats the 0.20 grid hour:
    // the plan starts at the next 5-minute unit and stops when the target is met (the feed-in pays: no reason to run on).
    assert.deepEqual(switches, ['07:00 on cheapest', '08:00 off cheapest', '11:05 on surplus', '12:05 off steady']);
    assert.equal(memory.run.seconds, 2 * H, '07:00–08:00 from the grid, 11:05–12:05 on the sun');
  });

  it('with a sun forecast, a reading is the unit now\'s only: a passing gap in the house\'s draw does not start a block', function () {
    // Flat 0.30 import; the forecast covers the day: 1 kW of sun from 12:00 to 14:00, none before. At 10:12 one
    // reading shows 6 kW of export (the house's heater cycled off for a moment). Carried forward for an hour, it would
    // plan an hour's block from 10:15 and buy it from the grid; the forecast's hours are the plan's, so it waits for noon.
    const prices = pricing(local(15, 6), 14, () => 0.30);
    const slots = Array.from({ length: 14 }, (_, i) => ({ start: local(15, 6 + i), end: local(15, 7 + i), powerW: i === 6 || i === 7 ? 1000 : 0 }));
    const s = settings({ loadChannel: 1 }, { runForS: H, byMinute: 17 * 60 });
    const t = local(15, 10, 12);
    const entries = [{ timestamp: t - 60, duration: 60, eReal: [-6000 * 60, 0] }, { timestamp: t, duration: 60, eReal: [-6000 * 60, 0] }];
    const evaluate = (sun) => evaluateGroup([{ id: 'hw', settings: s, memory: { state: 'off' }, reading: { state: 'off' }, pricing: prices, sun }], { entries, startedAt: t * 1000, history: [] }, t * 1000).get('hw');
    const withForecast = evaluate({ slots, receivedS: local(15, 10) });
    assert.equal(withForecast.switchTo, undefined, `no start on the reading: ${withForecast.reason}`);
    assert.deepEqual(plannedHours(withForecast.target), ['12:00-13:00 surplus']);
    // Without a forecast the reading is all the plan knows of today's sun: it fades into yesterday's (none) over an hour.
    const without = evaluate(undefined);
    assert.deepEqual(plannedHours(without.target), ['10:15-11:15 surplus']);
  });

  it('with a sun forecast, a reading above it does not start a block the forecast would not', function () {
    // 1 kW of sun forecast all morning for a 2 kW load: half its power from the sun. Feed-in pays 0.05 until 11:00 and
    // 0.04 after, so an hour from 11:00 costs 0.17 a kWh and one from now 0.175. A reading of 6 kW at 10:10 (the house's
    // heater off for a moment) would make the unit now all sun and an hour from now cheaper than the one at 11:00.
    const list = Array.from({ length: 8 }, (_, i) => ({ start: local(15, 8 + i), price: 0.30, exportPrice: 8 + i < 11 ? 0.05 : 0.04 }));
    const prices = { zone: ZONE, prices: readPrices(list, { source: 'msg.prices' }).periods, tariff: () => [] };
    const slots = Array.from({ length: 8 }, (_, i) => ({ start: local(15, 8 + i), end: local(15, 9 + i), powerW: 1000 }));
    const s = settings({ loadChannel: 1 }, { runForS: H, byMinute: 14 * 60 });
    const t = local(15, 10, 10);
    const at = (watts) => [{ timestamp: t - 60, duration: 60, eReal: [-watts * 60, 0] }, { timestamp: t, duration: 60, eReal: [-watts * 60, 0] }];
    const evaluate = (watts, state = 'off') => evaluateGroup([{ id: 'hw', settings: s, memory: { state, since: (t - 600) * 1000 }, reading: { state }, pricing: prices, sun: { slots, receivedS: local(15, 8) } }], { entries: at(watts), startedAt: t * 1000, history: [] }, t * 1000).get('hw');
    const spike = evaluate(6000);
    assert.equal(spike.switchTo, undefined, `no start on the reading: ${spike.reason}`);
    assert.deepEqual(plannedHours(spike.target), ['11:00-12:00 surplus']);
    // A reading below the forecast counts: with no surplus now the plan does not count on the forecast's for this unit.
    const cloud = evaluate(0);
    assert.equal(cloud.target.units[0].surplusW, 0);
    assert.equal(spike.target.units[0].surplusW, 1000);
    // A run going on keeps the sun it measures now: a forecast that missed the sun does not price it as the grid.
    assert.equal(evaluate(6000, 'on').target.units[0].surplusW, 6000);
  });

  it('the sun a higher priority is about to take is not free: the second load does not start on it before the first starts', function () {
    // Yesterday: 3 kW of surplus from 11:00 to 16:00. Today it comes at 10:45, while the first load (3 kW, 2 h) is held
    // off until 11:00 (minOff): it is planned on the sun 11:00-13:00, and the second (1.5 kW, 3 h) on what it leaves.
    // Feed-in pays 0.05 until 13:00, then 0.20: the sun before 13:00 is the cheaper one to use.
    const solar = (t, from) => { const h = ((t / H) + 10) % 24; return h >= from && h < 16 ? 3500 : 0; };
    const history = Array.from({ length: 288 }, (_, i) => local(14, 0, 5 * (i + 1)))
      .map((t) => ({ timestamp: t, duration: 300, eReal: [(500 - solar(t, 11)) * 300, 0, 0] }));
    const list = Array.from({ length: 14 }, (_, i) => ({ start: local(15, 10) + i * H, price: 0.25, exportPrice: 10 + i < 13 ? 0.05 : 0.20 }));
    const prices = { zone: ZONE, prices: readPrices(list, { source: 'msg.prices' }).periods, tariff: () => [] };
    const members = [
      { id: 'a', settings: settings({ priority: 1, loadChannel: 1, loadPower: 3000, minOffS: H }, { runForS: 2 * H }), powerW: 3000 },
      { id: 'b', settings: settings({ priority: 2, loadChannel: 2, loadPower: 1500 }, { runForS: 3 * H }), powerW: 1500 },
    ];
    const memory = { a: { state: 'off', since: local(15, 10) * 1000 }, b: { state: 'off' } };
    const state = { a: 'off', b: 'off' };
    const entries = [];
    const switches = { a: [], b: [] };
    for (let t = local(15, 10, 30); t < local(15, 18); t += 60) {
      const draws = members.map((m) => (state[m.id] === 'on' ? m.powerW : 0));
      entries.push({ timestamp: t, duration: 60, eReal: [(500 + draws[0] + draws[1] - solar(t, 10.75)) * 60, draws[0] * 60, draws[1] * 60] });
      if (entries.length > 10) entries.shift();
      const inputs = members.map((m) => ({ id: m.id, settings: m.settings, memory: memory[m.id], reading: { state: state[m.id] }, pricing: prices }));
      const out = evaluateGroup(inputs, { entries, startedAt: t * 1000, history }, t * 1000);
      for (const { id } of members) {
        const ev = out.get(id);
        memory[id] = ev.memory;
        if (!ev.switchTo) continue;
        switches[id].push(`${utcHour(t + 10 * H)} ${ev.switchTo}`);
        state[id] = ev.switchTo;
        memory[id] = { ...memory[id], state: ev.switchTo, since: t * 1000 };
      }
    }
    assert.deepEqual(switches.a, ['11:00 on', '13:00 off']);
    // Not on at 10:45 on the sun the first load takes from 11:00, off when it does, and on again at 13:00: one run.
    assert.deepEqual(switches.b, ['12:55 on', '15:55 off']);
    assert.equal(memory.b.run.seconds, 3 * H);
  });
});
