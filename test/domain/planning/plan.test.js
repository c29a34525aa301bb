'use strict';
// The run-target planner as pure code, on hand-worked cases: every expected plan below was worked out by
// hand from the prices given (costs in micro-units: a 1 kW load in a 30-minute unit uses 0.5 kWh).
const assert = require('node:assert/strict');
const { plan, startPenalty } = require('../../../dist/domain/planning/planner');
const { targetPeriod, parseBy } = require('../../../dist/domain/planning/period');
const { buildUnits } = require('../../../dist/domain/planning/units');
const { countRun } = require('../../../dist/domain/planning/runtime');
const { planTarget } = require('../../../dist/domain/planning/target');
const { readPrices } = require('../../../dist/domain/pricing/normalise');

const H = 3600;
const T = Date.UTC(2026, 6, 15, 0, 0, 0) / 1000; // 10:00 in Sydney, on a half-hour boundary
const utc = (t) => new Date(t * 1000).toISOString().replace('.000', '');

/** Units of `length` s from T with these import prices ($/kWh). */
function units(prices, { length = 1800, start = T, surplus = [], exportPrice = 0 } = {}) {
  return prices.map((p, i) => ({
    start: start + i * length, end: start + (i + 1) * length, importMicros: p === null ? null : Math.round(p * 1e6),
    exportMicros: Math.round(exportPrice * 1e6), surplusW: surplus[i] ?? 0, slotKey: `p${i}`,
  }));
}
const request = (u, extra = {}) => ({ units: u, powerW: 1000, needS: 0, on: false, mustRunS: 0, mustRestS: 0, minRunS: 0, minRestS: 0, useSurplus: false, ...extra });
const ons = (p) => p.units.map((u) => (u.on ? 1 : 0)).join('');
const reasons = (p) => p.units.map((u) => u.reason ?? '-').join(' ');

describe('run-target planner (pure, hand-worked)', function () {
  describe('the period a target belongs to', function () {
    it('by 24:00 is the local day: 24 h, 23 h when the clocks go forward, 25 h when they go back; Brisbane has no DST', function () {
      const at = (iso, zone, by = '') => targetPeriod(Date.parse(iso) / 1000, zone, parseBy(by));
      const hours = (p) => (p.end - p.start) / H;
      const normal = at('2026-07-15T02:00:00Z', 'Australia/Sydney');
      assert.deepEqual([utc(normal.start), hours(normal)], ['2026-07-14T14:00:00Z', 24]);
      // Sydney: DST starts on the first Sunday of October (2026-10-04) and ends on the first Sunday of April (2026-04-05).
      const spring = at('2026-10-04T02:00:00Z', 'Australia/Sydney');
      assert.deepEqual([utc(spring.start), utc(spring.end), hours(spring)], ['2026-10-03T14:00:00Z', '2026-10-04T13:00:00Z', 23]);
      const autumn = at('2026-04-05T02:00:00Z', 'Australia/Sydney');
      assert.deepEqual([utc(autumn.start), utc(autumn.end), hours(autumn)], ['2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z', 25]);
      assert.equal(hours(at('2026-10-04T02:00:00Z', 'Australia/Brisbane')), 24);
    });

    it('by 17:00 runs from 17:00 to 17:00; by 06:00 puts the deadline past midnight', function () {
      const p = (iso, by) => targetPeriod(Date.parse(iso) / 1000, 'Australia/Sydney', parseBy(by));
      // 16:00 and 18:00 Sydney time (UTC+10) on 2026-07-15.
      assert.deepEqual(Object.values(p('2026-07-15T06:00:00Z', '17:00')).map(utc), ['2026-07-14T07:00:00Z', '2026-07-15T07:00:00Z']);
      assert.deepEqual(Object.values(p('2026-07-15T08:00:00Z', '17:00')).map(utc), ['2026-07-15T07:00:00Z', '2026-07-16T07:00:00Z']);
      // 22:00 on the 15th: the target of the night is met by 06:00 on the 16th.
      assert.deepEqual(Object.values(p('2026-07-15T12:00:00Z', '06:00')).map(utc), ['2026-07-14T20:00:00Z', '2026-07-15T20:00:00Z']);
      assert.equal(parseBy('00:00'), 1440);
      assert.throws(() => parseBy('25:00'), /by "25:00" is not a local time/);
    });
  });

  it('ties: of equal prices the earliest, in one block (a run started costs 15 minutes of the load at 0.20)', function () {
    const p = plan(request(units([0.3, 0.1, 0.1, 0.1, 0.1, 0.3]), { needS: 2 * 1800 }), T);
    assert.equal(ons(p), '011000');
    assert.equal(reasons(p), '- cheapest cheapest - - -');
    // 2 units × 0.5 kWh × 0.10 $/kWh.
    assert.equal(p.costMicros, 100000);
    assert.equal(p.shortS, 0);
    // A 1 kW load: 0.25 kWh at 0.20 $/kWh.
    assert.equal(startPenalty(1000), 50000);
  });

  it('two cheap units apart make two blocks only when what they save beats a second start (50000 for 1 kW)', function () {
    // 0.10 and 0.11 apart (0.5 kWh each): 50000 + 55000 + 2 × 50000 = 205000; next to the 0.10 only 0.5: 300000 + 50000.
    assert.equal(ons(plan(request(units([0.5, 0.10, 0.5, 0.11, 0.5]), { needS: 3600 }), T)), '01010');
    // 0.10 and 0.18 together: 50000 + 90000 + 50000 = 190000; 0.10 and 0.10 apart: 100000 + 100000 = 200000.
    assert.equal(ons(plan(request(units([0.5, 0.10, 0.18, 0.5, 0.10]), { needS: 3600 }), T)), '01100');
    assert.equal(ons(plan(request(units([0.5, 0.10, 0.21, 0.5, 0.10]), { needS: 3600 }), T)), '01001');
  });

  it('a target that needs every remaining unit runs them all for the deadline; one more is short', function () {
    const all = plan(request(units([0.4, 0.2, 0.3, 0.5]), { needS: 4 * 1800 }), T);
    assert.equal(ons(all), '1111');
    assert.equal(reasons(all), 'deadline deadline deadline deadline');
    const short = plan(request(units([0.4, 0.2, 0.3, 0.5]), { needS: 5 * 1800 }), T);
    assert.equal(ons(short), '1111');
    assert.equal(short.shortS, 1800);
  });

  it('maxPrice refuses a spike: the plan goes around it, and falls short rather than buy there', function () {
    const prices = [0.20, 3.00, 0.25, 0.22];
    const p = plan(request(units(prices), { needS: 3 * 1800, maxPriceMicros: 500000 }), T);
    assert.equal(ons(p), '1011');
    assert.equal(p.units[1].tooExpensive, true);
    const short = plan(request(units(prices), { needS: 4 * 1800, maxPriceMicros: 500000 }), T);
    assert.equal(ons(short), '1011');
    assert.equal(short.shortS, 1800);
    assert.equal(reasons(short), 'deadline - deadline deadline');
  });

  it('negative prices at or below cheapBelow always run, even with the target met', function () {
    const p = plan(request(units([0.10, -0.05, -0.02, 0.30]), { needS: 0, cheapBelowMicros: 0 }), T);
    assert.equal(ons(p), '0110');
    assert.equal(reasons(p), '- cheapBelow cheapBelow -');
    // Paid to run: −0.025 − 0.01 $.
    assert.equal(p.costMicros, -35000);
  });

  it('surplus mode: cheapBelow counts the surplus at the lost feed-in, so a surplus whose export would cost always runs', function () {
    // Import 0.05 $/kWh everywhere; exporting costs 0.06 $/kWh (export −0.06) in the first three units.
    const u = units([0.05, 0.05, 0.05, 0.05], { surplus: [1000, 500, 0, 1000] }).map((x, i) => ({ ...x, exportMicros: i < 3 ? -60000 : 20000 }));
    const p = plan(request(u, { needS: 0, cheapBelowMicros: 0, useSurplus: true }), T);
    // Unit 0: all surplus, −0.06; unit 1: half, 0.025 − 0.03 < 0; unit 2: no surplus, 0.05; unit 3: the export earns.
    assert.equal(ons(p), '1100');
    assert.equal(reasons(p), 'cheapBelow cheapBelow - -');
    // The same surplus in price mode buys at the import price: not cheap.
    assert.equal(ons(plan(request(u, { needS: 0, cheapBelowMicros: 0 }), T)), '0000');
  });

  it('5-minute units: minBlock makes one block of three cheap units rather than scattered singles', function () {
    const prices = [0.05, 0.05, 0.01, 0.05, 0.05, 0.02, 0.02, 0.02, 0.05, 0.05, 0.05, 0.05];
    const u = units(prices, { length: 300 });
    const big = (extra) => plan({ ...request(u, { needS: 600, ...extra }), powerW: 3600 }, T);
    // 0.3 kWh per unit: units 5–7 cost 3 × 6000 (+ the third beyond the target) and one start.
    assert.equal(ons(big({ minRunS: 900 })), '000001110000');
    // Without minBlock: 2 and 5 (3000 + 6000 + two starts) lose to 5 and 6 (12000 + one start).
    assert.equal(ons(big({})), '000001100000');
  });

  it('holds: a block that must run keeps running through a price rise; minOff keeps it off', function () {
    const u = units([0.9, 0.9, 0.1, 0.1]);
    const running = plan(request(u, { on: true, needS: 3600, mustRunS: 2400, blockReason: 'cheapest' }), T);
    assert.equal(ons(running), '1100');
    assert.equal(reasons(running), 'cheapest cheapest - -');
    const resting = plan(request(units([0.1, 0.1, 0.9, 0.9]), { on: false, needS: 3600, mustRestS: 1800 }), T);
    assert.equal(ons(resting), '0110');
  });

  it('surplus mode: solar the load uses costs the lost feed-in, so a sunny unit beats a cheaper grid unit', function () {
    // Unit 1: 0.08 import but no sun; unit 2: 0.20 import, surplus covers the load, feed-in 0.05.
    const u = units([0.30, 0.08, 0.20, 0.30], { surplus: [0, 0, 1200, 0], exportPrice: 0.05 });
    const p = plan(request(u, { needS: 1800, useSurplus: true }), T);
    assert.equal(ons(p), '0010');
    assert.equal(reasons(p), '- - surplus -');
    assert.equal(plan(request(u, { needS: 1800, useSurplus: false }), T).units[1].on, true);
  });

  it('units are 5 minutes on the clock, priced from their slot; now cuts the first one short', function () {
    const prices = readPrices([{ start: T, end: T + 1800, price: 0.2 }, { start: T + 1800, end: T + 3600, price: 0.3 }], { source: 'msg.prices' }).periods;
    const u = buildUnits({ nowS: T + 640, endS: T + 2400, prices, tariff: [], surplus: () => 0 });
    assert.deepEqual(u.map((x) => [x.start - T, x.end - T, x.importMicros, x.slotKey]), [
      [640, 900, 200000, `p${T}`], [900, 1200, 200000, `p${T}`], [1200, 1500, 200000, `p${T}`], [1500, 1800, 200000, `p${T}`],
      [1800, 2100, 300000, `p${T + 1800}`], [2100, 2400, 300000, `p${T + 1800}`],
    ]);
    const none = buildUnits({ nowS: T, endS: T + 900, prices: [], tariff: [], surplus: () => 0 });
    assert.deepEqual(none.map((x) => x.importMicros), [null, null, null], 'no price known: unpriced units');
  });

  it('run time counts while on, the part of an interval before a change, and nothing across a long gap', function () {
    const period = { start: T, end: T + 24 * H };
    let run = countRun(undefined, { nowS: T + 60, period, on: false, maxGapS: 600 });
    run = countRun(run, { nowS: T + 120, period, on: true, sinceS: T + 90, maxGapS: 600 });
    assert.equal(run.seconds, 30);
    run = countRun(run, { nowS: T + 240, period, on: false, sinceS: T + 200, maxGapS: 600 });
    assert.equal(run.seconds, 110);
    run = countRun(run, { nowS: T + 300, period, on: false, drawnWhileOffS: 20, maxGapS: 600 });
    assert.equal(run.seconds, 130);
    assert.equal(countRun(run, { nowS: T + 3000, period, on: true, maxGapS: 600 }).seconds, 130, 'a gap longer than maxGap is not counted');
    const next = { start: T + 24 * H, end: T + 48 * H };
    assert.equal(countRun({ ...run, on: true, at: T + 24 * H - 100 }, { nowS: T + 24 * H + 50, period: next, on: true, maxGapS: 600 }).seconds, 50, 'a new period starts from 0');
  });
});

describe('run-target planning on a device clock (planTarget)', function () {
  const settings = (target, extra = {}) => ({
    mode: 'price', channels: [0], loadPower: 1000, onAbove: 0, offBelow: 0, margin: 200, limit: 0, windowS: 120, minOnS: 0, minOffS: 0,
    maxOffS: 0, priority: 1, staleAfterS: 600, failSafe: 'hold', dryRun: false, timeoutS: 180,
    target: { runForS: 0, byMinute: 1440, minBlockS: 0, ...target }, ...extra,
  });
  const hourly = (fromIso, hours, price) => readPrices(Array.from({ length: hours }, (_, i) => ({ start: Date.parse(fromIso) / 1000 + i * H, price: price(i) })).concat([]), { source: 'msg.prices' }).periods;
  const run = (input) => planTarget({
    memory: { state: 'off' }, zone: 'Australia/Sydney', tariff: () => [], powerW: 1000, measuredSurplusW: null, expectedSurplusW: () => 0,
    drawnWhileOffS: 0, holdLeftS: 0, ...input,
  });

  it('a 23-hour day: 23 h needs every hour (deadline); 24 h is short by one hour', function () {
    // 2026-10-04 00:00 AEST = 2026-10-03T14:00Z; 23 hourly prices to the next midnight (AEDT).
    const prices = hourly('2026-10-03T14:00:00Z', 23, (i) => 0.1 + (i % 5) / 100);
    const now = Date.parse('2026-10-03T14:00:00Z');
    const all = run({ settings: settings({ runForS: 23 * H }), now, prices });
    assert.equal(all.state.period.end - all.state.period.start, 23 * H);
    assert.equal(all.state.plannedS, 23 * H);
    assert.equal(all.state.shortS, 0);
    assert.ok(all.state.plan.every((u) => u.on && u.reason === 'deadline'));
    const short = run({ settings: settings({ runForS: 24 * H }), now, prices });
    assert.equal(short.state.shortS, H);
  });

  it('a 25-hour day: 24 h leaves out the one dearest hour', function () {
    // 2026-04-05 00:00 AEDT = 2026-04-04T13:00Z; the hour at index 19 costs the most.
    const prices = hourly('2026-04-04T13:00:00Z', 25, (i) => (i === 19 ? 0.9 : 0.2));
    const r = run({ settings: settings({ runForS: 24 * H }), now: Date.parse('2026-04-04T13:00:00Z'), prices });
    assert.equal(r.state.period.end - r.state.period.start, 25 * H);
    const off = r.state.plan.map((u, i) => (u.on ? null : i)).filter((i) => i !== null);
    // 5-minute units: the dearest hour is units 228 to 239.
    assert.deepEqual(off, Array.from({ length: 12 }, (_, i) => 228 + i));
  });

  it('15-minute prices in Brisbane (no DST): 45 min in one block where a cheaper slot apart is not worth a second start', function () {
    // 13:00 Brisbane (UTC+10) = 03:00Z; 0.25 kWh per 15 minutes for 1 kW; a start costs 0.05.
    const t0 = Date.parse('2026-10-04T03:00:00Z') / 1000;
    const prices = readPrices([0.30, 0.10, 0.12, 0.11, 0.30, 0.09, 0.30, 0.30].map((price, i) => ({ start: t0 + i * 900, end: t0 + (i + 1) * 900, price })), { source: 'msg.prices' }).periods;
    const r = run({ settings: settings({ runForS: 2700, byMinute: 13 * 60 + 120 }), zone: 'Australia/Brisbane', now: t0 * 1000, prices });
    assert.equal(r.state.period.end - r.state.period.start, 24 * H, 'Brisbane has no DST day');
    const on = r.state.units.filter((u, i) => r.state.plan[i].on);
    // 0.10 + 0.12 + 0.11 in one block (82500 + one start) beats 0.09 + 0.10 + 0.11 in three (75000 + three starts).
    assert.deepEqual([utc(on[0].start), utc(on.at(-1).end)], ['2026-10-04T03:15:00Z', '2026-10-04T04:00:00Z']);
    assert.equal(r.state.costMicros, 82500);
  });

  it('a deadline past midnight: 2 h by 06:00 at 22:00 takes the cheapest night hours', function () {
    // 22:00 on 2026-07-15 in Sydney (UTC+10) to 06:00: hours 22, 23, 0, 1, 2, 3, 4, 5.
    const prices = hourly('2026-07-15T12:00:00Z', 8, (i) => [0.30, 0.25, 0.20, 0.12, 0.11, 0.20, 0.25, 0.30][i]);
    const r = run({ settings: settings({ runForS: 2 * H, byMinute: 360 }), now: Date.parse('2026-07-15T12:00:00Z'), prices });
    assert.equal(utc(r.state.period.end), '2026-07-15T20:00:00Z');
    assert.equal(r.now.on, false);
    assert.equal(utc(r.state.nextStart), '2026-07-15T15:00:00Z', '01:00 local');
    assert.equal(r.state.plannedS, 2 * H);
  });

  it('a price update in the middle of a running block does not stop it before minBlock; after it, it does', function () {
    const start = Date.parse('2026-07-15T02:00:00Z');
    const prices = hourly('2026-07-15T02:00:00Z', 6, (i) => (i < 2 ? 0.9 : 0.1)); // the new list: now expensive
    const memory = { state: 'on', since: start - 20 * 60_000, block: { start: start - 20 * 60_000, until: start + 40 * 60_000, reason: 'cheapest' } };
    const mid = run({ settings: settings({ runForS: 3 * H, minBlockS: H }), memory, now: start, prices });
    assert.equal(mid.now.on, true);
    assert.equal(mid.now.reason, 'cheapest');
    const after = run({ settings: settings({ runForS: 3 * H, minBlockS: H }), memory, now: start + 40 * 60_000, prices });
    assert.equal(after.now.on, false);
    assert.equal(after.memory.block, undefined);
  });
});
