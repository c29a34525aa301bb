'use strict';
// A modulating load's energy target, pure: the energy counted from the load channel (or the setpoints), a new
// period starting at 0, the sun first, the cheapest units for the rest at full power, the latest without prices.
const assert = require('node:assert/strict');
const { countEnergy, planEnergy } = require('../../../dist/domain/planning/energy-target');

const ZONE = 'Australia/Sydney';
// 2026-02-09 18:00 in Sydney (UTC+11); by 07:00 the next morning.
const NOW_S = Date.UTC(2026, 1, 9, 7, 0, 0) / 1000;
const BY = 7 * 60;
const DEADLINE = NOW_S + 13 * 3600;
const H = 3600;

function plan(extra = {}) {
  return planEnergy({
    settings: { wh: 20000, byMinute: BY }, count: undefined, now: NOW_S * 1000, zone: ZONE, prices: [], tariff: () => [],
    minW: 1380, maxW: 3680, measuredSurplusW: 0, expectedSurplusW: () => 0, entries: [], loadChannel: 4, setpointW: 0, ...extra,
  });
}
const price = (from, to, p) => ({ start: from, end: to, micros: p * 1e6, exportMicros: 0 });

describe('energy target of a modulating load (pure)', function () {
  it('counts the load channel\'s Joules of entries newer than the last count; a new period starts at 0', function () {
    const period = { start: NOW_S - 11 * H, end: DEADLINE };
    const e = (t, j) => ({ timestamp: t, duration: 30, eReal: [0, 0, 0, 0, j] });
    const first = countEnergy(undefined, period, [e(NOW_S - 30, 3600 * 1000)], 4, 0, NOW_S - 30);
    assert.deepEqual(first, { periodEnd: DEADLINE, wh: 0, countedS: NOW_S - 30 }, 'the first count starts now: what came before is not known as this load\'s');
    const again = countEnergy(first, period, [e(NOW_S - 30, 3600 * 1000), e(NOW_S, 1800 * 1000)], 4, 0, NOW_S);
    assert.deepEqual(again, { periodEnd: DEADLINE, wh: 500, countedS: NOW_S }, 'the entry after the count');
    const twice = countEnergy(again, period, [e(NOW_S - 30, 3600 * 1000), e(NOW_S, 1800 * 1000), e(NOW_S + 30, 3600 * 1000)], 4, 0, NOW_S + 30);
    assert.equal(twice.wh, 1500, 'no entry counted twice');
    const next = countEnergy(again, { start: DEADLINE, end: DEADLINE + 24 * H }, [], 4, 0, DEADLINE + 60);
    assert.equal(next.wh, 0, 'a new period');
    const bySetpoint = countEnergy({ periodEnd: DEADLINE, wh: 0, countedS: NOW_S }, period, [], undefined, 3600, NOW_S + 60);
    assert.equal(bySetpoint.wh, 60, 'without a load channel: the setpoint\'s power over the time since');
  });

  it('buys the rest in the cheapest units at full power, not before them', function () {
    // 0.40 until 22:00, 0.30 after, 0.10 from 01:00 to 05:00 local (14:00–18:00 UTC).
    const cheapFrom = Date.UTC(2026, 1, 9, 14, 0) / 1000;
    const prices = [price(NOW_S, NOW_S + 4 * H, 0.4), price(NOW_S + 4 * H, cheapFrom, 0.3), price(cheapFrom, cheapFrom + 4 * H, 0.1), price(cheapFrom + 4 * H, DEADLINE, 0.3)];
    const p = plan({ prices });
    assert.equal(p.gridNowW, 0, 'not at 18:00: cheaper units come');
    assert.ok(Math.abs(p.gridWh - 20000) < 3680 / 12 + 1, `${p.gridWh} Wh planned`);
    const on = p.units.filter((u, i) => p.gridOn[i]);
    assert.equal(on.filter((u) => u.importMicros === 100000).length, 48, 'every cheap unit (4 h)');
    assert.equal(p.shortWh, 0);
    // 5 kWh taken by 01:10: the cheap hours and the 0.30 ones after them will do; the 0.30 ones before are not needed.
    const inCheap = plan({ prices, now: (cheapFrom + 600) * 1000, count: { periodEnd: DEADLINE, wh: 5000, countedS: cheapFrom } });
    assert.equal(inCheap.gridNowW, 3680);
    assert.equal(inCheap.reason, 'cheapest');
  });

  it('counts the expected surplus first, and stays away from the grid when it covers the need', function () {
    const sunny = plan({ now: (NOW_S - 9 * H) * 1000, measuredSurplusW: 5000, expectedSurplusW: () => 5000 });
    assert.equal(sunny.gridWh, 0);
    assert.equal(sunny.gridNowW, 0);
    assert.ok(sunny.surplusWh >= 20000);
  });

  it('with a sun forecast, the hours ahead are the forecast\'s: a reading is the unit now\'s only', function () {
    // Noon, 20 kWh by 07:00, no prices yet. A break in the clouds shows 5 kW now; the forecast has no sun after it.
    const noon = (NOW_S - 6 * H) * 1000;
    const unitNowWh = (units) => (3680 * (units[0].end - units[0].start)) / 3600;
    const inBreak = plan({ now: noon, measuredSurplusW: 5000, expectedSurplusW: () => 0, sunForecastAt: () => true });
    assert.ok(Math.abs(inBreak.surplusWh - unitNowWh(inBreak.units)) < 1, `${inBreak.surplusWh} Wh of sun counted: the unit now's only`);
    // Without a forecast the reading is all the plan knows of today's sun: it fades over the next hour.
    const blind = plan({ now: noon, measuredSurplusW: 5000, expectedSurplusW: () => 0 });
    assert.ok(blind.surplusWh > inBreak.surplusWh + 1000, `${blind.surplusWh} Wh: the reading carried over the hour`);
    // Under a cloud now, with 5 kW forecast for the afternoon: the hour ahead counts the forecast's sun, not the cloud.
    const underCloud = plan({ now: noon, measuredSurplusW: 0, expectedSurplusW: (from) => (from < NOW_S - 2 * H ? 5000 : 0), sunForecastAt: () => true });
    const forecastWh = underCloud.units.filter((u) => u.start > NOW_S - 6 * H && u.start < NOW_S - 2 * H).reduce((sum, u) => sum + (3680 * (u.end - u.start)) / 3600, 0);
    assert.ok(Math.abs(underCloud.surplusWh - forecastWh) < 1, `${underCloud.surplusWh} Wh against the forecast's ${forecastWh}`);
  });

  it('without prices: the latest units, so that prices coming later can still choose; short when even all cannot do', function () {
    const p = plan();
    assert.equal(p.gridNowW, 0);
    assert.ok(p.gridOn.at(-1) && !p.gridOn[0], 'the last units');
    const late = plan({ now: (DEADLINE - 2 * H) * 1000 });
    assert.equal(late.gridNowW, 3680);
    assert.equal(late.reason, 'deadline');
    assert.ok(Math.abs(late.shortWh - (20000 - 2 * 0.85 * 3680)) < 1, `short ${late.shortWh} Wh (each unit counted at 85 % of the maximum)`);
  });

  it('a run going on at `by` first makes up what the last target missed; it does not count for the next', function () {
    // The period before ended at NOW_S - 11 h (07:00) with 19 kWh of 20: the car still charging then is late.
    const by = NOW_S - 11 * H;
    const period = { start: by, end: DEADLINE };
    const before = { periodEnd: by, wh: 19000, countedS: by };
    const e = (t, w) => ({ timestamp: t, duration: 30, eReal: [0, 0, 0, 0, w * 30] });
    const opts = { targetWh: 20000, drawingW: 138 };
    const runs = countEnergy(before, period, [e(by + 30, 3600), e(by + 60, 3600)], 4, 0, by + 60, opts);
    assert.equal(runs.wh, 0, 'the minute after 07:00 makes up the last target');
    assert.ok(Math.abs(runs.carryWh - (1000 - 60)) < 1e-9, `${runs.carryWh} Wh still carried`);
    const stops = countEnergy(runs, period, [e(by + 90, 0), e(by + 120, 3600)], 4, 0, by + 120, opts);
    assert.deepEqual([stops.wh, stops.carryWh], [30, undefined], 'the run ended: a new start counts for the next target');
    const met = countEnergy({ ...before, wh: 20000 }, period, [e(by + 30, 3600)], 4, 0, by + 30, opts);
    assert.equal(met.wh, 30, 'the last target was met: nothing carries over');
    // The plan keeps a carried run going (late, whatever the price), and it is not this period's run to finish.
    const late = plan({ now: (by + 60) * 1000, count: countEnergy(before, period, [e(by + 30, 3600)], 4, 0, by + 30, opts), setpointW: 3680, prices: [price(by, DEADLINE, 0.3)] });
    assert.deepEqual([late.gridNowW, late.reason, late.count.wh], [3680, 'deadline', 0]);
  });

  it('a run begun before the period is not finished at its price: the later unit of equal price is bought', function () {
    // 07:00, 24 h to go at one price: a run still on from the night is not this target's.
    const by = NOW_S - 11 * H;
    const prices = [price(by, DEADLINE, 0.25)];
    const on = { now: (by + 30) * 1000, setpointW: 3680, prices, count: { periodEnd: DEADLINE, wh: 0, countedS: by + 30 } };
    assert.equal(plan({ ...on, onSinceS: by - 7 * H }).gridNowW, 0, 'begun at midnight');
    assert.equal(plan({ ...on, onSinceS: by + 10 }).gridNowW, 3680, 'begun in this period: it finishes what it started');
  });

  it('drops what the period counted before the load is first seen with no car (a top-up before the car left)', function () {
    const by = NOW_S - 11 * H;
    const period = { start: by, end: DEADLINE };
    const topUp = { periodEnd: DEADLINE, wh: 500, countedS: by + 1800 };
    const away = countEnergy(topUp, period, [], 4, 1380, by + 3600, { idle: true });
    assert.deepEqual([away.wh, away.awaySeen], [0, true]);
    const back = countEnergy({ ...away, wh: 4000 }, period, [], 4, 1380, NOW_S, { idle: true });
    assert.equal(back.wh, 4000, 'only the first time: a full car later keeps what it took');
  });

  it('counts the units at what the load accepts when it takes less than its setpoint (a car tapering as it fills)', function () {
    const count = { periodEnd: DEADLINE, wh: 16000, countedS: DEADLINE - 2 * H };
    const now = (DEADLINE - 2 * H) * 1000;
    const full = plan({ now, count, setpointW: 3680, settled: { drawW: 3680, setpointW: 3680 } });
    assert.equal(full.shortWh, 0, '2 h at 85 % of 3680 W cover 4 kWh');
    const tapering = plan({ now, count, setpointW: 3680, settled: { drawW: 1500, setpointW: 3680 } });
    assert.equal(tapering.count.acceptW, 1500);
    assert.ok(Math.abs(tapering.shortWh - (4000 - 2 * 0.85 * 1500)) < 1, `short ${tapering.shortWh} Wh at 1500 W`);
    const again = plan({ now: now + 60000, count: tapering.count, setpointW: 3680, settled: { drawW: 3600, setpointW: 3680 } });
    assert.equal(again.count.acceptW, undefined, 'it takes the setpoint again: no limit known');
    const off = plan({ now: now + 60000, count: tapering.count, setpointW: 0, settled: { drawW: 0, setpointW: 0 } });
    assert.equal(off.count.acceptW, undefined, 'off: the next run may be another car');
  });

  it('never buys above maxPrice', function () {
    const p = plan({ settings: { wh: 20000, byMinute: BY, maxPriceMicros: 200000 }, prices: [price(NOW_S, DEADLINE, 0.3)] });
    assert.equal(p.gridWh, 0);
    assert.equal(p.shortWh, 20000);
  });
});
