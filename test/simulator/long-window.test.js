'use strict';
// Which long-energy entries a range selects, under the live service's reading (timestamp, the default)
// and the spec's (coverage). Every coarse entry is checked against the 5-minute records it must add up,
// grouped here by the rule as real-service.md states it (not by the simulator's code).
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const { start, SIM_DEVICES } = require('./helpers');
const { parseCli } = require('../../dist/simulator/cli.js');

const M = SIM_DEVICES.switch6M3SW;
const utc = (...a) => Date.UTC(...a) / 1000;
const NOW = utc(2026, 10, 16, 1, 7, 30);
const FIXED = { '5m': 300, '15m': 900, '30m': 1800 };
const SUMMED = ['eReal', 'eRealPositive', 'eRealNegative', 'eReactive', 'eReactivePositive', 'eReactiveNegative'];

/** Start of the clock bucket holding t: epoch-aligned for 5m/15m/30m, local calendar units (ISO weeks) otherwise. */
function bucketOf(t, g, zone) {
  if (FIXED[g]) return Math.floor(t / FIXED[g]) * FIXED[g];
  return DateTime.fromSeconds(t, { zone }).startOf(g).toSeconds();
}

/** The entries a range must give, from the 5-minute records (by stamp) and the reading's rule. */
function expected(records, g, zone, fromTs, toTs, reading) {
  const chosen = reading === 'timestamp'
    ? records.filter((r) => r.timestamp >= fromTs && r.timestamp < toTs)
    : records.filter((r) => r.timestamp - 300 >= fromTs && r.timestamp <= toTs);
  const groups = new Map();
  for (const r of chosen) {
    // The live service groups a record by its stamp; the spec's reading by the period it covers.
    const key = bucketOf(reading === 'timestamp' ? r.timestamp : r.timestamp - 300, g, zone);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return [...groups.values()].map((list) => {
    const out = {
      timestamp: reading === 'timestamp' ? list[0].timestamp : list.at(-1).timestamp,
      duration: 300 * list.length,
    };
    for (const f of SUMMED) out[f] = list[0][f].map((_, c) => list.reduce((a, r) => a + r[f][c], 0));
    out.vRMSMin = list[0].vRMSMin.map((_, c) => Math.min(...list.map((r) => r.vRMSMin[c])));
    out.iRMSMax = list[0].iRMSMax.map((_, c) => Math.max(...list.map((r) => r.iRMSMax[c])));
    return out;
  });
}

const pick = (e) => ({ timestamp: e.timestamp, duration: e.duration, ...Object.fromEntries([...SUMMED, 'vRMSMin', 'iRMSMax'].map((f) => [f, e[f]])) });

describe('simulator: which long-energy entries a range selects (longWindow)', function () {
  this.timeout(60000);
  let t;
  before(async () => { t = await start({ now: NOW }); });
  after(() => t.sim.close());

  const long = async (query, reading) => {
    t.sim.control.setLimits({ longWindow: reading });
    const r = await t.get(`/long-energy/${M}?${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  /** Every 5-minute record stamped in [a, b), read by stamp a week at a time. */
  async function records(a, b) {
    const out = [];
    for (let f = a; f < b; f += 7 * 86400) out.push(...await long(`fromTs=${f}&toTs=${Math.min(b, f + 7 * 86400)}`, 'timestamp'));
    return out;
  }

  it('5-minute records: timestamp selects the stamps fromTs <= t < toTs, coverage the periods inside the range; the records are the same', async () => {
    const F = utc(2026, 3, 4, 13); // 5 April 00:00 in Sydney
    const T = F + 86400;
    const byStamp = await long(`fromTs=${F}&toTs=${T}`, 'timestamp');
    const byCoverage = await long(`fromTs=${F}&toTs=${T}`, 'coverage');
    assert.equal(byStamp.length, 288);
    assert.equal(byCoverage.length, 288);
    assert.deepEqual([byStamp[0].timestamp, byStamp.at(-1).timestamp], [F, T - 300], 'the recorded live response: first = fromTs, last = toTs - 300');
    assert.deepEqual([byCoverage[0].timestamp, byCoverage.at(-1).timestamp], [F + 300, T]);
    assert.deepEqual(byStamp.slice(1), byCoverage.slice(0, -1), 'one record is the same record under both readings');
    // Unaligned ends: stamps at or after fromTs; periods wholly inside the range.
    const odd = await long(`fromTs=${F + 7}&toTs=${F + 1207}`, 'timestamp');
    assert.deepEqual(odd.map((e) => e.timestamp), [F + 300, F + 600, F + 900, F + 1200]);
    const oddCoverage = await long(`fromTs=${F + 7}&toTs=${F + 1207}`, 'coverage');
    assert.deepEqual(oddCoverage.map((e) => e.timestamp), [F + 600, F + 900, F + 1200]);
  });

  const cases = [
    ['15m with partial edges', '15m', 'UTC', utc(2026, 5, 3, 9, 5), utc(2026, 5, 3, 12, 10)],
    ['30m from an odd second', '30m', 'UTC', utc(2026, 5, 3, 9, 0, 7), utc(2026, 5, 4, 9, 0, 7)],
    ['hour in a zone 45 minutes off the hour', 'hour', 'Asia/Kathmandu', utc(2026, 5, 2, 18, 15), utc(2026, 5, 3, 18, 15)],
    ['hour over the 25-hour day in Sydney', 'hour', 'Australia/Sydney', utc(2026, 3, 4, 13), utc(2026, 3, 5, 14)],
    ['day over both DST changes in Sydney', 'day', 'Australia/Sydney', utc(2026, 3, 2, 13), utc(2026, 3, 7, 14)],
    ['day over the 23-hour day in Sydney', 'day', 'Australia/Sydney', utc(2026, 9, 1, 14), utc(2026, 9, 5, 13)],
    ['day over the 23-hour and 25-hour days in London', 'day', 'Europe/London', utc(2026, 2, 27), utc(2026, 2, 31, 23)],
    ['ISO weeks from a Thursday in Sydney', 'week', 'Australia/Sydney', utc(2026, 0, 7, 13), utc(2026, 1, 11, 13)],
    ['months in London, across a DST change', 'month', 'Europe/London', utc(2026, 1, 1), utc(2026, 4, 1, 3)],
    ['days up to now (the day in progress)', 'day', 'America/New_York', utc(2026, 10, 12, 5), NOW + 3 * 86400],
  ];
  for (const [name, g, zone, fromTs, toTs] of cases) {
    it(`${name}: each entry adds up exactly the records its reading assigns it`, async () => {
      const recs = await records(fromTs - 86400, Math.min(toTs, NOW) + 86400);
      for (const reading of ['timestamp', 'coverage']) {
        const got = await long(`fromTs=${fromTs}&toTs=${toTs}&granularity=${g}&timezone=${zone}`, reading);
        const want = expected(recs, g, zone, fromTs, toTs, reading);
        assert.ok(want.length >= 2, 'the case has entries');
        assert.deepEqual(got.map(pick), want, `${reading} reading`);
      }
    });
  }

  it('a day entry labelled D 00:00 holds the records stamped D 00:00 to D 23:55 (288, 276 or 300 of them)', async () => {
    for (const [zone, day, count] of [
      ['Australia/Sydney', '2026-04-05', 300], ['Australia/Sydney', '2026-10-04', 276], ['Australia/Sydney', '2026-06-01', 288],
      ['Europe/London', '2026-03-29', 276], ['Europe/London', '2026-10-25', 300],
    ]) {
      const d = DateTime.fromISO(day, { zone });
      const D = d.toSeconds();
      const next = d.plus({ days: 1 }).toSeconds();
      const [entry] = await long(`fromTs=${D}&toTs=${next}&granularity=day&timezone=${zone}`, 'timestamp');
      assert.deepEqual([entry.timestamp, entry.duration], [D, 300 * count], `${day} in ${zone}`);
      const recs = await records(D, next);
      assert.equal(recs.length, count);
      assert.deepEqual([recs[0].timestamp, recs.at(-1).timestamp], [D, next - 300]);
      assert.deepEqual(entry.eReal, recs[0].eReal.map((_, c) => recs.reduce((a, r) => a + r.eReal[c], 0)));
      const [spec] = await long(`fromTs=${D}&toTs=${next}&granularity=day&timezone=${zone}`, 'coverage');
      assert.deepEqual([spec.timestamp, spec.duration], [next, next - D], 'the spec: stamped at the end of the day it covers');
    }
  });

  it('first and latest are 5-minute records under both readings; defaults start at the first record', async () => {
    for (const reading of ['timestamp', 'coverage']) {
      t.sim.control.setLimits({ longWindow: reading });
      const first = (await t.get(`/long-energy/${M}/first`)).body;
      const latest = (await t.get(`/long-energy/${M}/latest`)).body;
      assert.deepEqual([first.timestamp, first.duration], [utc(2024, 0, 1, 0, 5), 300], reading);
      assert.deepEqual([latest.timestamp, latest.duration], [Math.floor(NOW / 300) * 300, 300], reading);
      const defaults = (await t.get(`/long-energy/${M}`)).body;
      assert.equal(defaults[0].timestamp, first.timestamp, `${reading}: the default range starts with the first record`);
      assert.equal(defaults.length, 2016, reading);
    }
  });

  it('is set at start, by --long-window and under /__sim/limits; reset restores the start option; bad values are refused', async () => {
    assert.equal(parseCli(['--long-window', 'coverage'], {}).longWindow, 'coverage');
    assert.equal(parseCli([], {}).longWindow, undefined);
    assert.throws(() => parseCli(['--long-window', 'label'], {}), /--long-window must be timestamp or coverage/);
    const F = utc(2026, 5, 1);
    const firstOf = async () => (await t.get(`/long-energy/${M}?fromTs=${F}&toTs=${F + 900}`)).body[0].timestamp;
    t.sim.control.reset();
    assert.equal(await firstOf(), F, 'the live reading by default');
    const set = await fetch(`${t.sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ longWindow: 'coverage' }) });
    assert.equal(set.status, 200);
    assert.equal(await firstOf(), F + 300);
    const bad = await fetch(`${t.sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ longWindow: 'ends' }) });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /longWindow must be timestamp or coverage/);
    t.sim.control.reset();
    assert.equal(await firstOf(), F, 'reset: back to the start option');
    const spec = await start({ now: NOW, longWindow: 'coverage' });
    try {
      assert.equal((await spec.get(`/long-energy/${M}?fromTs=${F}&toTs=${F + 900}`)).body[0].timestamp, F + 300);
      spec.sim.control.reset();
      assert.equal((await spec.get(`/long-energy/${M}?fromTs=${F}&toTs=${F + 900}`)).body[0].timestamp, F + 300);
    } finally {
      await spec.sim.close();
    }
  });
});
