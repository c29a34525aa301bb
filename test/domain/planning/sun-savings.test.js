'use strict';
// The plan's sun (msg.forecast minus the house's own draw, else yesterday's) and the savings against a naive
// schedule, as pure code on hand-worked cases.
const assert = require('node:assert/strict');
const { readForecast, HouseForecast, expectedSurplus, basisOf, FRESH_S } = require('../../../dist/domain/planning/sun');
const { SurplusForecast } = require('../../../dist/domain/planning/forecast');
const { accrueSavings, expectedDay, naiveWindow, runCostMicros } = require('../../../dist/domain/planning/savings');

const H = 3600;
const DAY = 86400;
const T = Date.UTC(2026, 6, 15, 0, 0, 0) / 1000; // a Wednesday, 10:00 in Sydney

describe('the plan\'s sun: msg.forecast, the house, persistence (pure)', function () {
  it('reads a forecast in unix s or ms, sorted, with p10/p90; refuses a bad one whole, naming the slot', function () {
    const inS = [{ start: T + 1800, end: T + H, power: 2000 }, { start: T, end: T + 1800, power: 1500, p10: 1000, p90: 1800 }];
    const inMs = inS.map((s) => ({ ...s, start: s.start * 1000, end: s.end * 1000 }));
    const expected = [{ start: T, end: T + 1800, powerW: 1500, p10: 1000, p90: 1800 }, { start: T + 1800, end: T + H, powerW: 2000 }];
    assert.deepEqual(readForecast(inS), expected);
    assert.deepEqual(readForecast(inMs), expected);
    assert.throws(() => readForecast([{ start: T, end: T + 1800, power: NaN }]), /msg\.forecast\[0\]\.power: NaN is not a power in W/);
    assert.throws(() => readForecast([{ start: T, end: T + 1800, power: 10 }, { start: T + 1800, end: T + H }]), /msg\.forecast\[1\]\.power is missing/);
    assert.throws(() => readForecast([{ start: T, end: T + 1800, power: 10 }, { start: T + 900, end: T + H, power: 10 }]), /overlapping/);
    assert.throws(() => readForecast([]), /empty list/);
    assert.throws(() => readForecast({ start: T }), /must be a list/);
    assert.throws(() => readForecast([{ start: 'soon', end: T, power: 1 }]), /msg\.forecast\[0\]\.start/);
  });

  it('forecasts the house from the same weekday a week before (grid + solar − the controlled loads), else the last day', function () {
    // Channels: 0 grid (import +), 1 solar, 2 the controlled load. 5-minute entries stamped at their end.
    const entry = (start, grid, solar, load) => ({ timestamp: start + 300, duration: 300, eReal: [grid * 300, solar * 300, load * 300] });
    const history = [
      entry(T - 7 * DAY, -1000, 3000, 500), // a week ago at 10:00: the house drew 3000 - 1000 - 500 = 1500 W
      entry(T - DAY, 200, 1000, 0), // yesterday at 10:00: 1200 W
      entry(T - DAY + 300, 400, 0, 0), // yesterday at 10:05: 400 W (a week ago at 10:05 unknown)
    ];
    const house = new HouseForecast(history, [0], [1], [2]);
    assert.equal(house.average(T, T + 300), 1500, 'the same weekday');
    assert.equal(house.average(T + 300, T + 600), 400, 'else the same time of the last day');
    assert.equal(house.average(T, T + 600), (1500 + 400) / 2);
    assert.equal(house.average(T + 600, T + 900), 0, 'nothing known');
    // Without a solar channel the house reads as the grid import alone.
    assert.equal(new HouseForecast(history, [0], [], [2]).average(T + 300, T + 600), 400);
  });

  it('the surplus is the forecast\'s sun minus the house where the forecast reaches, yesterday\'s surplus beyond it', function () {
    const house = { average: () => 500 };
    const persistence = { average: () => 123 };
    const sun = { slots: readForecast([{ start: T, end: T + H, power: 2500 }]), receivedS: T };
    const surplus = expectedSurplus({ persistence, house, sun, nowS: T });
    assert.equal(surplus(T, T + 300), 2000);
    assert.equal(surplus(T + H, T + H + 300), 123, 'beyond the forecast: persistence');
    assert.equal(expectedSurplus({ persistence, house: { average: () => 3000 }, sun, nowS: T })(T, T + 300), 0, 'never below 0');
    assert.equal(expectedSurplus({ persistence, nowS: T })(T, T + 300), 123, 'no forecast: persistence');
    assert.equal(basisOf(sun, T, T, T + 300), 'forecast');
    assert.equal(basisOf(sun, T + FRESH_S + 1, T, T + 300), 'lastForecast', 'old: the last forecast');
    assert.equal(basisOf({ ...sun, stale: true }, T, T, T + 300), 'lastForecast', 'marked stale by its sender');
    assert.equal(basisOf(sun, T, T + H, T + H + 300), 'persistence');
    assert.equal(basisOf(undefined, T, T, T + 300), 'persistence');
    // The persistence forecast itself is unchanged: export plus the loads' draw, by time of day.
    const yesterday = new SurplusForecast([{ timestamp: T - DAY + 300, duration: 300, eReal: [-600 * 300, 0, 400 * 300] }], [0], [2], 'Australia/Sydney');
    assert.equal(yesterday.average(T, T + 300), 1000);
  });
});

describe('savings against a naive schedule (pure)', function () {
  const period = { start: T - 10 * H, end: T + 14 * H }; // the local day in Sydney
  const base = { period, runForS: H, naive: 'timer', powerW: 2000, surplusW: 0, maxGapS: 600 };

  it('the naive window: runFor ending at by, or from the start of the day', function () {
    assert.deepEqual(naiveWindow(period, H, 'timer'), { start: T + 13 * H, end: T + 14 * H });
    assert.deepEqual(naiveWindow(period, H, 'start'), { start: T - 10 * H, end: T - 9 * H });
  });

  it('the cost of running: grid at the import price, the sun it uses at the feed-in it would have earned', function () {
    // 2 kW for 1 h with 500 W of sun: 1.5 kWh at 0.30 + 0.5 kWh at 0.05 = 0.475.
    assert.equal(runCostMicros(2000, H, { importMicros: 300_000, exportMicros: 50_000 }, 500), 475_000);
    assert.equal(runCostMicros(2000, H, { importMicros: null, exportMicros: 0 }, 0), null);
  });

  it('accrues the load\'s and the naive schedule\'s cost as time passes; a new day moves today into the week', function () {
    const cheap = { importMicros: 80_000, exportMicros: 0 };
    const dear = { importMicros: 400_000, exportMicros: 0 };
    let m = accrueSavings(undefined, { ...base, nowS: T, ranS: 0, wasOn: false, price: cheap });
    // Ran 10:00–11:00 at 0.08 (12 evaluations of 5 minutes): 2 kWh × 0.08 = 0.16.
    for (let t = T + 300; t <= T + H; t += 300) m = accrueSavings(m, { ...base, nowS: t, ranS: 300, wasOn: true, price: cheap });
    assert.equal(Math.round(m.today.costMicros), 160_000);
    assert.equal(m.today.naiveMicros, 0);
    // The naive timer runs 23:00–24:00 at 0.40: 0.80; the load stays off.
    for (let t = T + 13 * H + 300; t <= T + 14 * H; t += 300) {
      m = accrueSavings({ ...m, at: t - 300 }, { ...base, nowS: t, ranS: 0, wasOn: false, price: dear });
    }
    assert.equal(Math.round(m.today.naiveMicros), 800_000);
    // A gap longer than maxGap is not counted (a restart): neither side.
    const gap = accrueSavings({ ...m, at: T + 2 * H }, { ...base, nowS: T + 3 * H, ranS: 3600, wasOn: true, price: dear });
    assert.equal(gap.today.costMicros, m.today.costMicros);
    const next = { start: period.end, end: period.end + DAY };
    const tomorrow = accrueSavings(m, { ...base, period: next, nowS: next.start + 60, ranS: 0, wasOn: false, price: dear });
    assert.deepEqual(tomorrow.days.map((d) => [d.start, Math.round(d.costMicros), Math.round(d.naiveMicros)]), [[period.start, 160_000, 800_000]]);
    assert.deepEqual([tomorrow.today.start, tomorrow.today.costMicros, tomorrow.today.naiveMicros], [next.start, 0, 0]);
    // The last stretch before the day's end is that day's, at the state the load had: 5 minutes of the timer at 0.40.
    const edge = accrueSavings({ ...m, at: period.end - 300, today: { ...m.today, naiveMicros: 0 } }, { ...base, period: next, nowS: next.start + 60, ranS: 0, wasOn: false, price: dear });
    assert.equal(Math.round(edge.days[0].naiveMicros), Math.round(2000 * 300 / 3.6e6 * 400_000));
    assert.equal(edge.today.naiveMicros, 0);
  });

  it('today as expected at its end adds the planned units and the naive units still to come', function () {
    const unit = (start, importMicros, surplusW = 0) => ({ start, end: start + 1800, importMicros, exportMicros: 50_000, surplusW, slotKey: '' });
    const units = [unit(T + 12 * H, 300_000, 2000), unit(T + 12 * H + 1800, 300_000, 2000), unit(T + 13 * H, 300_000), unit(T + 13 * H + 1800, 300_000)];
    const memory = { at: T, today: { start: period.start, end: period.end, costMicros: 10_000, naiveMicros: 0 }, days: [] };
    const day = expectedDay(memory, units, [true, true, false, false], { period, runForS: H, naive: 'timer', powerW: 2000, useSurplus: true });
    // Planned on the sun: 2 kWh at the feed-in 0.05 = 0.10 (+ 0.01 so far); the timer at 23:00 on the grid: 2 kWh × 0.30.
    assert.deepEqual([day.today.costMicros, day.today.naiveMicros], [110_000, 600_000]);
  });
});
