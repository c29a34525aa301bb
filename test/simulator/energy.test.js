'use strict';
const assert = require('node:assert/strict');
const { start, T0, SIM_DEVICES, sum } = require('./helpers');

const M = SIM_DEVICES.meter3M;
const utc = (...a) => Date.UTC(...a) / 1000;

describe('simulator: long energy', function () {
  let t;
  before(async () => { t = await start({ now: utc(2026, 5, 20, 12, 0, 0) }); });
  after(() => t.sim.close());

  it('partial boundary entries: fromTs 10:05 with 15m gives a first entry of 600 s, labelled with its first record', async () => {
    const from = utc(2026, 0, 15, 2, 5); // 13:05 in Sydney: the solar exports
    const r = await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 3600}&granularity=15m`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.map((e) => e.duration), [600, 900, 900, 900, 300]);
    assert.deepEqual(r.body.map((e) => e.timestamp), [from, from + 600, from + 1500, from + 2400, from + 3300], 'the records stamped 02:05 and 02:10, then whole quarters, then 03:00');
    const e = r.body[1];
    e.eReal.forEach((v, i) => assert.equal(v, e.eRealPositive[i] - e.eRealNegative[i]));
    assert.ok(e.eRealNegative.some((v) => v > 0), 'one channel exports');
    assert.ok(e.eReal.every(Number.isInteger));
  });

  it('is additive: a range split at bucket boundaries gives the same entries, and 5m sums to the day', async () => {
    const from = utc(2026, 2, 1, 0, 0);
    const whole = (await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 7 * 86400}`)).body;
    assert.equal(whole.length, 2016);
    const parts = [];
    for (let d = 0; d < 7; d++) {
      parts.push(...(await t.get(`/long-energy/${M}?fromTs=${from + d * 86400}&toTs=${from + (d + 1) * 86400}`)).body);
    }
    assert.deepEqual(parts, whole);
    const day = (await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 86400}&granularity=day&timezone=UTC`)).body;
    assert.equal(day.length, 1);
    assert.deepEqual(day[0].eReal, sum(whole.slice(0, 288), 'eReal'));
    assert.deepEqual(day[0].eRealNegative, sum(whole.slice(0, 288), 'eRealNegative'));
  });

  it('DST-correct day buckets in Europe/Berlin and Australia/Sydney', async () => {
    // Berlin springs forward on 2026-03-29; Sydney falls back on 2026-04-05.
    const berlinFrom = utc(2026, 2, 27, 23); // 28 Mar 00:00 CET
    const b = (await t.get(`/long-energy/${M}?fromTs=${berlinFrom}&toTs=${utc(2026, 2, 30, 22)}&granularity=day&timezone=Europe/Berlin`)).body;
    assert.deepEqual(b.map((e) => e.duration), [86400, 82800, 86400]);
    assert.equal(b[1].timestamp, utc(2026, 2, 28, 23), 'labelled 29 Mar 00:00 CET, its first record');
    assert.equal(b[2].timestamp, utc(2026, 2, 29, 22), 'labelled 30 Mar 00:00 CEST');
    const sydFrom = utc(2026, 3, 3, 13); // 4 Apr 00:00 AEDT
    const s = (await t.get(`/long-energy/${M}?fromTs=${sydFrom}&toTs=${sydFrom + 3 * 86400}&granularity=day&timezone=Australia/Sydney`)).body;
    assert.deepEqual(s.map((e) => e.duration), [86400, 90000, 86400 - 3600]);
    const hours = (await t.get(`/long-energy/${M}?fromTs=${berlinFrom + 86400}&toTs=${utc(2026, 2, 29, 22)}&granularity=hour&timezone=Europe/Berlin`)).body;
    assert.equal(hours.length, 23);
  });

  it('week buckets start on Monday and month buckets follow the calendar', async () => {
    const from = utc(2026, 0, 1); // a Thursday
    const w = (await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 14 * 86400}&granularity=week&timezone=UTC`)).body;
    assert.deepEqual(w.map((e) => e.duration), [4 * 86400, 7 * 86400, 3 * 86400]);
    const m = (await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${utc(2026, 3, 1)}&granularity=month&timezone=UTC`)).body;
    assert.deepEqual(m.map((e) => e.duration / 86400), [31, 28, 31]);
  });

  it('enforces spans, timezones and timestamps', async () => {
    const from = utc(2026, 0, 1);
    const long5m = await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 7 * 86400 + 1}`);
    assert.equal(long5m.status, 422);
    assert.equal(long5m.body.message, 'The requested time period is greater than 7 days');
    assert.equal((await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${utc(2026, 3, 1)}&granularity=hour&timezone=UTC`)).status, 200);
    const hour = await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${utc(2026, 3, 1) + 1}&granularity=hour&timezone=UTC`);
    assert.equal(hour.body.message, 'The requested time period is greater than 3 months');
    assert.equal((await t.get(`/long-energy/${M}?fromTs=${from}&granularity=day`)).status, 400);
    assert.equal((await t.get(`/long-energy/${M}?fromTs=${from}&granularity=day&timezone=Mars/Base`)).status, 400);
    assert.equal((await t.get(`/long-energy/${M}?fromTs=${from}.5`)).status, 400);
    const invalid = await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from}`);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.message, 'The provided fromTs or toTs value was invalid');
    assert.equal((await t.get(`/long-energy/${M}?fromTs=`)).body.message, 'The fromTs value must be specified');
    assert.equal((await t.get(`/long-energy/${M}?granularity=2h`)).status, 400);
  });

  it('defaults: fromTs is the first entry, toTs one week later; wrongly cased params are ignored', async () => {
    const r = await t.get(`/long-energy/${M}?fromts=${utc(2026, 0, 1)}`);
    assert.equal(r.body.length, 2016);
    assert.equal(r.body[0].timestamp, utc(2024, 0, 1, 0, 5));
    const first = await t.get(`/long-energy/${M}/first`);
    assert.deepEqual(first.body, r.body[0]);
  });

  it('no data after sim-now; latest is a single object; phases, kWh, kW and +pf options', async () => {
    const now = utc(2026, 5, 20, 12, 0, 0);
    const r = (await t.get(`/long-energy/${M}?fromTs=${now - 600}&toTs=${now + 600}`)).body;
    assert.equal(r[r.length - 1].timestamp, now);
    const latest = await t.get(`/long-energy/${M}/latest`);
    assert.ok(!Array.isArray(latest.body));
    assert.equal(latest.body.timestamp, now);
    assert.deepEqual((await t.get(`/long-energy/${M}/latest?fields[energy]=timestamp`)).body, { timestamp: now });
    const base = latest.body;
    const kwh = (await t.get(`/long-energy/${M}/latest?convert[energy]=kWh`)).body;
    assert.equal(kwh.eRealKwh[0], base.eReal[0] / 3600000);
    assert.ok(!('eReal' in kwh));
    const kw = (await t.get(`/long-energy/${M}/latest?convert[energy]=kW&fields[energy]=%2Bpf`)).body;
    assert.equal(kw.pRealNegativeKw[1], base.eRealNegative[1] / (1000 * base.duration));
    const pf = base.eReal.map((p, i) => (Math.hypot(p, base.eReactive[i]) === 0 ? null : Math.round((p / Math.hypot(p, base.eReactive[i])) * 1000) / 1000));
    assert.deepEqual(kw.powerFactor, pf);
    const spaced = (await t.get(`/long-energy/${M}/latest?fields[energy]=+pf`)).body;
    assert.deepEqual(spaced.powerFactor, pf);
    await t.patch(`/devices/${M}`, { phases: { count: 2 } });
    const grouped = (await t.get(`/long-energy/${M}/latest?filter[group]=phases&convert[energy]=kWh`)).body;
    assert.equal(grouped.groupedBy, 'phases');
    assert.equal(grouped.eRealKwh.length, 2);
    assert.equal(grouped.eRealKwh[0], (base.eReal[0] + base.eReal[1]) / 3600000);
  });

  it('rejects the invalid option combinations of 4.12', async () => {
    const bad = [
      'convert[energy]=kWh,kW', 'convert[energy]=kWh&convert[energy]=kW', 'fields[energy]=pf', 'fields[energy]=%2Bpf,timestamp',
      'fields[energy]=timestamp&convert[energy]=kW', 'fields[energy]=%2Bpf&filter[group]=phases', 'filter[group]=channels', 'convert[energy]=kwh',
    ];
    for (const q of bad) {
      const r = await t.get(`/long-energy/${M}/latest?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'BAD_REQUEST');
    }
    assert.equal((await t.get(`/long-energy/${M}?fields[energy]=timestamp`)).status, 400, 'timestamp only on first/latest');
  });
});

describe('simulator: short energy', function () {
  let t;
  // No lost entries here, so counts are exact; losses have their own test (site.test.js).
  before(async () => { t = await start({ shortLoss: 0 }); });
  after(() => t.sim.close());

  it('defaults to the last hour with 30 s entries ending at the period end', async () => {
    const r = await t.get(`/short-energy/${M}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 120);
    assert.equal(r.body[0].timestamp, T0 - 3600);
    assert.equal(r.body[119].timestamp, T0 - 30);
    const e = r.body[0];
    assert.deepEqual(Object.keys(e), ['timestamp', 'duration', 'frequency', 'eReal', 'eReactive', 'vRMS', 'iRMS']);
    assert.equal(e.duration, 30);
    assert.equal(typeof e.frequency, 'number');
    const latest = (await t.get(`/short-energy/${M}/latest`)).body;
    assert.equal(latest.timestamp, T0);
  });

  it('12 hour span, 31 day retention, 204 for the uninitialised device', async () => {
    const span = await t.get(`/short-energy/${M}?fromTs=${T0 - 86400}&toTs=${T0 - 86400 + 12 * 3600 + 1}`);
    assert.equal(span.status, 422);
    assert.equal(span.body.message, 'The requested time period is greater than 12 hours');
    const old = await t.get(`/short-energy/${M}?fromTs=${T0 - 40 * 86400}&toTs=${T0 - 40 * 86400 + 3600}`);
    assert.deepEqual(old.body, []);
    const first = (await t.get(`/short-energy/${M}/first?fields[energy]=timestamp`)).body;
    assert.equal(first.timestamp, T0 - 31 * 86400);
    assert.equal((await t.get(`/short-energy/${SIM_DEVICES.uninitialised}`)).status, 204);
    assert.equal((await t.get(`/short-energy/${SIM_DEVICES.uninitialised}/latest`)).status, 204);
    assert.equal((await t.get(`/long-energy/${SIM_DEVICES.uninitialised}/first`)).status, 204);
  });

  it('short entries add up to the long entry of the same period', async () => {
    const from = T0 - 3600 - 420; // 09:00
    const short = (await t.get(`/short-energy/${M}?fromTs=${from + 30}&toTs=${from + 301}`)).body;
    // The record stamped 09:05 covers 09:00-09:05.
    const long = (await t.get(`/long-energy/${M}?fromTs=${from + 300}&toTs=${from + 600}`)).body;
    assert.equal(long[0].timestamp, from + 300);
    assert.equal(short.length, 10);
    assert.deepEqual(sum(short, 'eReal'), long[0].eReal);
  });
});

describe('simulator: live-service energy rules', function () {
  const NOW = utc(2026, 0, 15, 10, 7, 0);
  let t;
  before(async () => { t = await start({ now: NOW }); });
  after(() => t.sim.close());

  it('long energy is built from whole 5-minute records: boundaries, multiples of 300, nothing for the 5 minutes in progress', async () => {
    const r = (await t.get(`/long-energy/${M}?fromTs=${utc(2026, 0, 15, 8, 7)}&toTs=${utc(2026, 0, 15, 8, 58)}`)).body;
    assert.equal(r[0].timestamp, utc(2026, 0, 15, 8, 10), 'the first record stamped at or after 08:07 (it covers 08:05-08:10)');
    assert.equal(r[r.length - 1].timestamp, utc(2026, 0, 15, 8, 55), 'the record 08:55-09:00 is not inside the range');
    assert.ok(r.every((e) => e.timestamp % 300 === 0 && e.duration === 300));
    for (const [g, zone] of [['15m', 'UTC'], ['hour', 'Asia/Kathmandu'], ['day', 'Australia/Adelaide'], ['week', 'Australia/Sydney']]) {
      const q = `/long-energy/${M}?fromTs=${utc(2026, 0, 1, 0, 7)}&toTs=${utc(2026, 0, 14, 23, 58)}&granularity=${g}&timezone=${zone}`;
      const entries = (await t.get(q)).body;
      assert.ok(entries.length > 0, g);
      assert.ok(entries.every((e) => e.timestamp % 300 === 0 && e.duration % 300 === 0 && e.duration > 0), `${g} in ${zone}`);
    }
    const latest = (await t.get(`/long-energy/${M}/latest`)).body;
    assert.equal(latest.timestamp, utc(2026, 0, 15, 10, 5), 'the record 10:05-10:10 is still in progress at 10:07');
    const upToNow = (await t.get(`/long-energy/${M}?fromTs=${NOW - 3600}&toTs=${NOW + 3600}`)).body;
    assert.equal(upToNow[upToNow.length - 1].timestamp, utc(2026, 0, 15, 10, 5));
  });

  it('weeks are ISO weeks: Monday 00:00 in the request\'s timezone', async () => {
    const from = utc(2025, 11, 31, 13); // Thursday 1 January 2026 00:00 in Sydney
    const weeks = (await t.get(`/long-energy/${M}?fromTs=${from}&toTs=${from + 21 * 86400}&granularity=week&timezone=Australia/Sydney`)).body;
    const mondays = [utc(2026, 0, 4, 13), utc(2026, 0, 11, 13)]; // Mondays 5 and 12 January 00:00 AEDT
    assert.deepEqual(weeks.map((e) => e.timestamp), [from, ...mondays], 'each week labelled with its first record');
    assert.equal(weeks[1].duration, 7 * 86400);
    assert.equal(weeks[2].duration, Math.floor(NOW / 300) * 300 - mondays[1] + 300, 'the week in progress holds the records up to the last one');
    assert.equal(weeks[0].duration, 4 * 86400, 'Thursday to Monday');
    const berlin = (await t.get(`/long-energy/${M}?fromTs=${utc(2025, 11, 31, 23)}&toTs=${utc(2026, 0, 11, 23)}&granularity=week&timezone=Europe/Berlin`)).body;
    assert.equal(berlin[1].timestamp, utc(2026, 0, 4, 23), 'Monday 5 January 00:00 CET');
  });

  it('omitted parameters default as the live service does', async () => {
    const from = utc(2025, 11, 1);
    const days = (await t.get(`/long-energy/${M}?fromTs=${from}&granularity=day&timezone=UTC`)).body;
    assert.equal(days[days.length - 1].timestamp, utc(2026, 0, 15), 'toTs = fromTs + 3 years, cut at the data: today so far');
    assert.equal(days[days.length - 1].duration, Math.floor(NOW / 300) * 300 - utc(2026, 0, 15) + 300);
    assert.equal(days.length, 46);
    const hours = (await t.get(`/long-energy/${M}?fromTs=${utc(2025, 9, 1)}&granularity=hour&timezone=UTC`)).body;
    assert.equal(hours[hours.length - 1].timestamp, utc(2025, 11, 31, 23), 'hour: toTs = fromTs + 3 months');
    const first = (await t.get(`/long-energy/${M}?granularity=30m`)).body;
    assert.deepEqual([first[0].timestamp, first[0].duration], [utc(2024, 0, 1, 0, 5), 1500], 'fromTs = the first record, 00:05');
    assert.equal(first.length, 31 * 48 + 1, '30m: 31 days from 00:05, the last half hour holding only the record stamped 00:00');
    const zero = await t.get(`/long-energy/${M}?fromTs=0&toTs=${from}`);
    assert.equal(zero.status, 422);
    const shortBefore = (await t.get(`/short-energy/${M}?toTs=${NOW - 7200}`)).body;
    assert.ok(shortBefore[0].timestamp >= NOW - 3 * 3600 && shortBefore[shortBefore.length - 1].timestamp < NOW - 7200);
    assert.ok(shortBefore[0].timestamp < NOW - 3 * 3600 + 300, 'the hour before toTs');
    const old = (await t.get(`/short-energy/${M}?fromTs=${NOW - 3 * 3600}`)).body;
    assert.ok(old[old.length - 1].timestamp > NOW - 300, 'fromTs more than an hour ago: up to now');
    const recent = (await t.get(`/short-energy/${M}?fromTs=${NOW - 1800}`)).body;
    assert.ok(recent[recent.length - 1].timestamp > NOW - 300, 'fromTs within the hour: fromTs + 1 h, cut at now');
  });
});
