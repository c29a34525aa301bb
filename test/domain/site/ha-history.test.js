'use strict';
// The history import's arithmetic (src/domain/site/ha-history.ts): hourly buckets of 5-minute records, the walk back
// from the live total, sums chained on HA's zero, the hours left to HA, resume points. No Home Assistant here: the
// real one is in test/ha/.
const assert = require('node:assert/strict');
const h = require('../../../dist/domain/site/ha-history.js');
const { countRecords, freshTotals } = require('../../../dist/domain/site/energy-totals.js');

const HOUR = 3600;
const KWH_J = 3_600_000;
const T0 = Date.UTC(2026, 2, 27, 0, 0, 0) / 1000; // the Friday before Europe's spring DST change
/** One channel on the grid: imports `wh(ts)` Wh per record (negative: exports). */
const LAYOUT = { channels: [{ index: 0, number: 1 }], grid: [0], solar: [] };
const record = (ts, wh) => ({ timestamp: ts, duration: 300, eReal: [wh * 3600], eRealPositive: [Math.max(0, wh) * 3600], eRealNegative: [Math.min(0, wh) * 3600] });
const wh = (ts) => ((ts / 300) % 7) + 1 + (ts % 3600 === 0 ? 2.5 : 0);
function records(from, to, skip = () => false) {
  const out = [];
  for (let ts = from + 300; ts <= to; ts += 300) if (!skip(ts)) out.push(record(ts, wh(ts)));
  return out;
}
/** The live totals after counting `recs` from `start` (as energy-mqtt counts them). */
function live(start, recs, nowS) {
  return countRecords(freshTotals(start), recs, LAYOUT, nowS).state;
}
const sumWh = (recs, from, to) => recs.filter((r) => r.timestamp > from && r.timestamp <= to).reduce((a, r) => a + r.eRealPositive[0] / 3600, 0);

describe('Home Assistant history: hourly buckets, the walk back, sums chained on HA\'s zero', function () {
  it('walks back from the live total: each hour boundary holds the total then (records stamped at their end go to the hour they end in)', function () {
    const start = T0;
    const through = T0 + 3 * 86400 + 25 * 60; // not on an hour
    const recs = records(start, through);
    const totals = live(start, recs, through + 60);
    assert.equal(totals.through, through);
    const walked = h.walkBack(h.startPoint(totals), recs, LAYOUT, T0, totals);
    // Every boundary: the records up to it.
    for (const [b, joules] of walked.boundaries) {
      assert.ok(Math.abs(joules.grid_imported / 3600 - sumWh(recs, start, b)) < 1e-6, `total at ${new Date(b * 1000).toISOString()}`);
    }
    assert.equal(walked.boundaries.size, 3 * 24 + 1);
    assert.equal(walked.point.at, T0);
    assert.ok(Math.abs(walked.point.joules.grid_imported) < 1e-6, 'back at the start: nothing counted before it');
    // A record stamped 01:00 belongs to 00:00-01:00: the 01:00 boundary holds it, 00:00 does not.
    const b1 = walked.boundaries.get(T0 + HOUR).grid_imported - walked.boundaries.get(T0).grid_imported;
    assert.ok(Math.abs(b1 / 3600 - sumWh(recs, T0, T0 + HOUR)) < 1e-6);
  });

  it('before the node first counted, the total is below 0 by what came after: hours before the live sensor get their own energy', function () {
    const first = T0 + 2 * 86400; // energy-mqtt started here
    const through = first + 5 * HOUR;
    const all = records(T0, through);
    const totals = live(first, all.filter((r) => r.timestamp > first), through);
    const walked = h.walkBack(h.startPoint(totals), all, LAYOUT, T0, totals);
    const at = (b) => walked.boundaries.get(b).grid_imported / 3600;
    assert.ok(Math.abs(at(first)) < 1e-6);
    assert.ok(Math.abs(at(T0) + sumWh(all, T0, first)) < 1e-6, 'the total two days earlier is minus their energy');
    for (let b = T0; b < through - HOUR; b += HOUR) assert.ok(Math.abs(at(b + HOUR) - at(b) - sumWh(all, b, b + HOUR)) < 1e-6);
  });

  it('records the live total has not counted (awaited late ones, newer than it) are left out of the walk, so it lands where the live count is', function () {
    const through = T0 + 6 * HOUR;
    const late = T0 + 2 * HOUR + 600;
    const seen = records(T0, through, (ts) => ts === late);
    const totals = live(T0, seen, through + 60);
    assert.deepEqual(totals.gaps, [late]);
    // The late record has arrived at the service by the time the import reads; and one newer than `through`.
    const read = [...records(T0, through), record(through + 300, 50)];
    const walked = h.walkBack(h.startPoint(totals), read, LAYOUT, T0, totals);
    assert.ok(Math.abs(walked.point.joules.grid_imported) < 1e-6, 'the walk ends at 0 where counting started: nothing counted twice');
  });

  it('two windows walked one after the other (resumed) give the same boundaries as one walk', function () {
    const through = T0 + 9 * 86400;
    const recs = records(T0, through);
    const totals = live(T0, recs, through);
    const once = h.walkBack(h.startPoint(totals), recs, LAYOUT, T0, totals);
    const w1 = h.windowBelow(through, T0);
    assert.equal(w1.toTs - w1.fromTs, h.HISTORY_WINDOW_S, 'one request of 5-minute long energy (7 days less an hour)');
    const first = h.walkBack(h.startPoint(totals), recs.filter((r) => r.timestamp > w1.fromTs), LAYOUT, w1.fromTs, totals);
    const resumed = h.checkResume(JSON.parse(JSON.stringify({ through: totals.through, gaps: totals.gaps, point: first.point, zeros: { x: 1 }, fromS: T0 })));
    assert.ok(resumed, 'the resume point survives a JSON round trip (a context store)');
    const w2 = h.windowBelow(resumed.point.at, T0);
    assert.equal(w2.fromTs, T0);
    const second = h.walkBack(resumed.point, recs.filter((r) => r.timestamp > w2.fromTs && r.timestamp <= w2.toTs), LAYOUT, w2.fromTs, resumed);
    for (const [b, j] of [...first.boundaries, ...second.boundaries]) assert.ok(Math.abs(j.grid_imported - once.boundaries.get(b).grid_imported) < 1e-6, `boundary ${b}`);
    assert.equal(h.windowsBetween(through, T0), 2);
    assert.equal(h.windowsBetween(T0 + 365 * 86400, T0), 53, 'a year of a device is 53 requests');
  });

  it('sums chain on HA\'s zero: no jump where the import meets HA\'s own hours, a gap filled so HA\'s later sums stand', function () {
    // The live sensor started at T0 + 2 days; HA's zero is the first state it saw (1.2345 kWh then).
    const first = T0 + 2 * 86400;
    const through = T0 + 4 * 86400;
    const all = records(T0, through);
    const totals = live(first, all.filter((r) => r.timestamp > first), through);
    const walked = h.walkBack(h.startPoint(totals), all, LAYOUT, T0, totals);
    const F = (b) => walked.boundaries.get(b).grid_imported / KWH_J; // kWh
    const zero = 0.0123;
    // HA's own hourly rows: from the live sensor's first hour on, except an outage (day 3, 10:00-14:00: no rows).
    const outage = (s) => s >= T0 + 3 * 86400 + 10 * HOUR && s < T0 + 3 * 86400 + 14 * HOUR;
    const own = [];
    for (let s = first; s + HOUR <= through; s += HOUR) if (!outage(s)) own.push({ start: s * 1000, state: F(s + HOUR), sum: F(s + HOUR) - zero });
    const view = h.statisticView(own, []);
    assert.ok(Math.abs(h.zeroOf(view) - zero) < 1e-9);
    const missing = h.missingHours(view, T0, totals.through);
    assert.equal(missing.length, 48 + 4, 'the two days before the sensor and the outage\'s 4 hours; not the hours HA compiles itself');
    assert.equal(missing.filter(outage).length, 4);
    const rows = h.importRows('grid_imported', missing, walked.boundaries, zero);
    const merged = new Map([...own.map((r) => [r.start / 1000, r.sum]), ...rows.map((r) => [r.start, r.sum])]);
    const starts = [...merged.keys()].sort((a, b) => a - b);
    assert.equal(starts.length, 4 * 24, 'every hour of the four days, once');
    // Each hour's change (what the Energy dashboard shows) is the records of that hour, within 0.01 Wh, across both meetings.
    for (let i = 1; i < starts.length; i += 1) {
      const s = starts[i];
      const change = (merged.get(s) - merged.get(starts[i - 1])) * 1000;
      assert.ok(Math.abs(change - sumWh(all, s, s + HOUR)) < 0.02, `hour ${new Date(s * 1000).toISOString()}: ${change} Wh`);
    }
    // Imported rows' state is the total then: sum + zero.
    for (const r of rows) assert.ok(Math.abs(r.state - r.sum - zero) < 1e-4);
  });

  it('hours are HA\'s UTC hours: a local day across the spring DST change has 23 of them, and its energy is theirs', function () {
    const through = T0 + 4 * 86400;
    const recs = records(T0, through);
    const totals = live(T0, recs, through);
    const walked = h.walkBack(h.startPoint(totals), recs, LAYOUT, T0, totals);
    // 29 March 2026 in Europe/Berlin: 00:00 CET (23:00 UTC on the 28th) to 00:00 CEST (22:00 UTC on the 29th).
    const dayStart = Date.UTC(2026, 2, 28, 23) / 1000;
    const dayEnd = Date.UTC(2026, 2, 29, 22) / 1000;
    const hours = [...walked.boundaries.keys()].filter((b) => b >= dayStart && b < dayEnd);
    assert.equal(hours.length, 23);
    const day = (walked.boundaries.get(dayEnd).grid_imported - walked.boundaries.get(dayStart).grid_imported) / 3600;
    assert.ok(Math.abs(day - sumWh(recs, dayStart, dayEnd)) < 1e-6);
    for (const b of walked.boundaries.keys()) assert.equal(b % HOUR, 0);
  });

  it('the hour of HA\'s newest row and later ones are left to HA, and so is any hour with a 5-minute row', function () {
    const view = h.statisticView([{ start: (T0 + 2 * HOUR) * 1000, state: 1, sum: 0 }], [{ start: new Date((T0 + 5 * HOUR + 600) * 1000).toISOString(), state: 2, sum: 1 }]);
    assert.deepEqual(h.missingHours(view, T0, T0 + 10 * HOUR), [T0, T0 + HOUR, T0 + 3 * HOUR, T0 + 4 * HOUR]);
    assert.deepEqual(h.missingHours(view, T0, T0 + 3 * HOUR + 300), [T0, T0 + HOUR], 'nor later than the live total has counted');
    assert.deepEqual(h.missingHours(h.statisticView([], []), T0, T0 + 10 * HOUR), [], 'no row in HA: nothing to chain on yet');
  });

  it('HA\'s import metadata: has_mean before 2026.11, mean_type and unit_class from then', function () {
    const { importMetadata } = require('../../../dist/domain/site/ha-history-import.js');
    assert.deepEqual(importMetadata('2025.4.4', 'sensor.x'), { has_sum: true, name: null, source: 'recorder', statistic_id: 'sensor.x', unit_of_measurement: 'kWh', has_mean: false });
    assert.deepEqual(importMetadata('2026.11.0', 'sensor.x'), { has_sum: true, name: null, source: 'recorder', statistic_id: 'sensor.x', unit_of_measurement: 'kWh', mean_type: 0, unit_class: 'energy' });
    assert.equal(importMetadata('2027.1.0', 'sensor.x').mean_type, 0);
    assert.equal(importMetadata('2026.10.2', 'sensor.x').has_mean, false);
  });
});
