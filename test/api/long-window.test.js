'use strict';
// The client returns exactly the periods asked for whatever the service's reading of a long range:
// the live service's (by timestamp, coarse entries labelled with their first record) or the spec's
// (by coverage). Both readings are served by the simulator (longWindow) over real HTTP.
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const { EnergyApiClient, coveredPeriod, readingOf, parseTime, GRANULARITIES } = require('../../dist/api');
const { startSimulator, SIM_DEVICES: D, SIM_KEYS: K } = require('../../dist/simulator');

const READINGS = ['timestamp', 'coverage'];
const utc = (...a) => Date.UTC(...a) / 1000;
const sumOf = (entries, field = 'eReal') => entries.reduce((acc, e) => e[field].map((v, i) => (acc[i] ?? 0) + v), []);

describe('long-energy readings: what a response shows, what a read covers', function () {
  const at = (timestamp, duration = 300) => ({ timestamp, duration });
  it('an entry starting before fromTs only comes from timestamp selection, one stamped at toTs only from coverage', function () {
    const request = { fromTs: 6000, toTs: 9000 };
    const decisive = (reading) => ({ reading, decisive: true });
    assert.deepEqual(readingOf([at(6000), at(6300)], request), decisive('timestamp'), 'stamped exactly at an aligned fromTs');
    assert.deepEqual(readingOf([at(6600, 900)], request), decisive('timestamp'), 'a 15-minute entry labelled 300 s after fromTs');
    assert.deepEqual(readingOf([at(6300), at(9000)], request), decisive('coverage'), 'stamped at toTs');
    assert.deepEqual(readingOf([at(6900, 900), at(8700, 1800)], request), { reading: 'coverage', decisive: false }, 'starting at fromTs: coverage, or a device without data before it');
    assert.deepEqual(readingOf([at(6300, 300)], { fromTs: 5890, toTs: 9000 }), { reading: 'coverage', decisive: false }, 'starting at the first record boundary after fromTs');
    assert.equal(readingOf([at(7200), at(8700)], request), undefined, 'data starting later: nothing to tell');
    assert.equal(readingOf([], request), undefined);
    assert.equal(readingOf([at(6000), at(9000)], request), undefined, 'contradictory: no verdict');
  });

  it('a 5-minute read covers its whole records under both readings; a coarse one the service\'s buckets, 5 minutes early under the live reading', function () {
    const F = utc(2026, 5, 1);
    const T = F + 86400;
    for (const reading of READINGS) assert.deepEqual(coveredPeriod(F, T, '5m', reading), { fromTs: F, toTs: T, shiftS: 0 });
    assert.deepEqual(coveredPeriod(F + 7, T + 7, '5m', 'timestamp'), { fromTs: F + 300, toTs: T, shiftS: 0 });
    assert.deepEqual(coveredPeriod(F, T, 'day', 'coverage'), { fromTs: F, toTs: T, shiftS: 0 });
    assert.deepEqual(coveredPeriod(F, T, 'day', 'timestamp'), { fromTs: F - 300, toTs: T - 300, shiftS: -300 });
  });

  it('refuses a longWindow option it does not know', function () {
    assert.throws(() => new EnergyApiClient({ baseUrl: 'http://127.0.0.1:9/v3', apiKey: K.full, longWindow: 'labels' }), /longWindow must be "timestamp" or "coverage"/);
  });
});

describe('client under both readings of a long range', function () {
  this.timeout(60000);
  const NOW = utc(2026, 6, 20, 2, 7, 12);
  const sims = {};
  const clients = {};
  const open = (sim, extra = {}) => new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: K.full, tps: 200, now: () => sim.control.now() * 1000, ...extra });

  before(async () => {
    for (const reading of READINGS) {
      sims[reading] = await startSimulator({ port: 0, tps: 1000, now: NOW, longWindow: reading });
      clients[reading] = open(sims[reading]);
    }
  });
  after(async () => {
    for (const reading of READINGS) {
      await clients[reading].close();
      await sims[reading].close();
    }
  });

  it('a 5-minute day is its 288 records under both readings, the same entries; one request each', async () => {
    const F = utc(2026, 6, 10, 14); // 11 July 00:00 in Sydney
    const got = {};
    for (const reading of READINGS) {
      sims[reading].control.clearLog();
      got[reading] = await clients[reading].getLongEnergy(D.switch6M3SW, { fromTs: F, toTs: F + 86400, granularity: '5m' });
      assert.equal(got[reading].length, 288, reading);
      assert.deepEqual([got[reading][0].timestamp, got[reading].at(-1).timestamp], [F + 300, F + 86400], reading);
      const requests = sims[reading].control.log();
      assert.deepEqual(requests.map((r) => [r.query.fromTs, r.query.toTs]), [[String(F), String(F + 86400 + 300)]], 'asks for 300 s more than the periods');
      assert.equal(clients[reading].longWindow(), reading, 'learnt from the response');
    }
    assert.deepEqual(got.timestamp, got.coverage);
  });

  it('a 5-minute read across many request seams neither skips nor repeats a record', async () => {
    for (const reading of READINGS) {
      const F = utc(2026, 3, 1, 0, 5);
      const T = F + 30 * 86400;
      sims[reading].control.clearLog();
      const entries = await clients[reading].getLongEnergy(D.meter3M, { fromTs: F, toTs: T, granularity: '5m' });
      const requests = sims[reading].control.log();
      assert.equal(requests.length, 5, `${reading}: 30 days in spans of at most 7 days less 300 s`);
      requests.forEach((r) => assert.ok(Number(r.query.toTs) - Number(r.query.fromTs) <= 7 * 86400, 'each request within the 7-day limit'));
      assert.equal(entries.length, 30 * 288);
      entries.forEach((e, i) => assert.equal(e.timestamp, F + 300 * (i + 1), `${reading}: entry ${i}`));
    }
  });

  it('coarse entries are stamped at the end of what they cover: the same energy as the 5-minute records inside', async () => {
    const F = utc(2026, 5, 28, 14); // 29 June 00:00 in Sydney
    for (const reading of READINGS) {
      for (const g of GRANULARITIES.filter((x) => x !== '5m')) {
        const entries = await clients[reading].getLongEnergy(D.switch6M3SW, { fromTs: F, toTs: F + 3 * 86400, granularity: g, timezone: 'Australia/Sydney' });
        const period = coveredPeriod(F, F + 3 * 86400, g, reading);
        const records = await clients[reading].getLongEnergy(D.switch6M3SW, { fromTs: period.fromTs, toTs: period.toTs, granularity: '5m' });
        assert.equal(entries[0].timestamp - entries[0].duration, period.fromTs, `${reading} ${g}: starts where the period does`);
        assert.equal(entries.at(-1).timestamp, period.toTs, `${reading} ${g}: ends where the period does`);
        for (const e of entries) {
          const inside = records.filter((r) => r.timestamp - 300 >= e.timestamp - e.duration && r.timestamp <= e.timestamp);
          assert.equal(inside.length * 300, e.duration, `${reading} ${g} entry ending ${e.timestamp}`);
          assert.deepEqual(e.eReal, sumOf(inside), `${reading} ${g} entry ending ${e.timestamp}`);
        }
      }
    }
  });

  it('a fresh client learns the reading from its first read of whole coarse buckets', async () => {
    const F = utc(2026, 5, 28, 14);
    for (const reading of READINGS) {
      const fresh = open(sims[reading]);
      try {
        assert.equal(fresh.longWindow(), 'timestamp', 'the live reading until a response says otherwise');
        const days = await fresh.getLongEnergy(D.meter3M, { fromTs: F, toTs: F + 2 * 86400, granularity: 'day', timezone: 'Australia/Sydney' });
        assert.equal(fresh.longWindow(), reading);
        const shift = reading === 'timestamp' ? 300 : 0;
        assert.deepEqual(days.map((e) => e.timestamp), [F + 86400 - shift, F + 2 * 86400 - shift]);
      } finally {
        await fresh.close();
      }
    }
  });

  it('a response that only suggests coverage (a read from where the device\'s data begins) does not undo a decisive one', async () => {
    const client = open(sims.timestamp);
    try {
      const dataStart = utc(2024, 0, 1);
      await client.getLongEnergy(D.meter3M, { fromTs: utc(2026, 5, 1), toTs: utc(2026, 5, 2), granularity: 'hour', timezone: 'UTC' });
      assert.equal(client.longWindow(), 'timestamp');
      const records = await client.getLongEnergy(D.meter3M, { fromTs: dataStart, toTs: dataStart + 3600, granularity: '5m' });
      assert.equal(records[0].timestamp, dataStart + 300, 'the first record covers the first 5 minutes of data');
      assert.equal(client.longWindow(), 'timestamp', 'a first entry starting at fromTs: no data before it, not another reading');
    } finally {
      await client.close();
    }
  });

  it('a client whose option fixes the reading keeps it, whatever the responses show', async () => {
    const fixed = open(sims.timestamp, { longWindow: 'coverage' });
    try {
      const F = utc(2026, 5, 28, 14);
      const [day] = await fixed.getLongEnergy(D.meter3M, { fromTs: F, toTs: F + 86400, granularity: 'day', timezone: 'Australia/Sydney' });
      assert.equal(fixed.longWindow(), 'coverage');
      assert.equal(day.timestamp, F, 'taken as the spec says: the label is left as the end');
    } finally {
      await fixed.close();
    }
  });
});

describe('"yesterday" at every granularity, in two timezones, DST days included, under both readings', function () {
  this.timeout(120000);
  const sims = {};
  const clients = {};
  before(async () => {
    for (const reading of READINGS) {
      sims[reading] = await startSimulator({ port: 0, tps: 1000, now: utc(2026, 0, 1), longWindow: reading });
      clients[reading] = new EnergyApiClient({ baseUrl: sims[reading].baseUrl, apiKey: K.full, tps: 200, now: () => sims[reading].control.now() * 1000 });
    }
  });
  after(async () => {
    for (const reading of READINGS) {
      await clients[reading].close();
      await sims[reading].close();
    }
  });

  const days = [
    ['Australia/Sydney', '2026-04-05', 300], ['Australia/Sydney', '2026-10-04', 276], ['Australia/Sydney', '2026-07-14', 288],
    ['Europe/London', '2026-03-29', 276], ['Europe/London', '2026-10-25', 300],
  ];
  for (const [zone, date, records] of days) {
    it(`${date} in ${zone} (${records} records)`, async () => {
      const device = zone === 'Europe/London' ? D.wifi6MW : D.switch6M3SW;
      const nowMs = DateTime.fromISO(date, { zone }).plus({ days: 1, hours: 10 }).toMillis();
      const F = parseTime('yesterday', { timezone: zone, nowMs });
      const T = parseTime('today', { timezone: zone, nowMs });
      assert.equal(DateTime.fromSeconds(F, { zone }).toISODate(), date);
      for (const reading of READINGS) {
        const client = clients[reading];
        sims[reading].control.setClock({ now: nowMs / 1000 });
        const fiveMinutes = await client.getLongEnergy(device, { fromTs: F, toTs: T, granularity: '5m' });
        assert.equal(fiveMinutes.length, records, `${reading}: exactly the day's records`);
        assert.deepEqual([fiveMinutes[0].timestamp - 300, fiveMinutes.at(-1).timestamp], [F, T], `${reading}: midnight to midnight`);
        // The 5 minutes before the day too, for the live reading's coarse entries.
        const [before] = await client.getLongEnergy(device, { fromTs: F - 300, toTs: F, granularity: '5m' });
        const all = [before, ...fiveMinutes];
        for (const g of GRANULARITIES.filter((x) => x !== '5m')) {
          const entries = await client.getLongEnergy(device, { fromTs: F, toTs: T, granularity: g, timezone: zone });
          assert.equal(client.longWindow(), reading);
          const period = coveredPeriod(F, T, g, reading);
          assert.deepEqual([period.fromTs, period.toTs], reading === 'coverage' ? [F, T] : [F - 300, T - 300], `${reading} ${g}`);
          let start = period.fromTs;
          for (const e of entries) {
            assert.equal(e.timestamp - e.duration, start, `${reading} ${g}: entries follow each other without a gap`);
            start = e.timestamp;
            const inside = all.filter((r) => r.timestamp - 300 >= e.timestamp - e.duration && r.timestamp <= e.timestamp);
            assert.equal(inside.length * 300, e.duration);
            assert.deepEqual(e.eReal, sumOf(inside), `${reading} ${g}: the energy of exactly what it covers`);
          }
          assert.equal(start, period.toTs, `${reading} ${g}: up to the end of the period`);
        }
      }
    });
  }
});
