'use strict';
const assert = require('node:assert/strict');
const api = require('../../dist/api');

describe('time parsing (parseTime)', () => {
  const nowMs = Date.UTC(2026, 2, 29, 12, 0, 0); // the day Europe/Berlin springs forward
  it('reads unix seconds, milliseconds, numeric text, Date and ISO text', () => {
    assert.equal(api.parseTime(1700000000), 1700000000);
    assert.equal(api.parseTime(1700000000123), 1700000000);
    assert.equal(api.parseTime('1700000000'), 1700000000);
    assert.equal(api.parseTime(new Date(1700000000000)), 1700000000);
    assert.equal(api.parseTime('2026-01-01T00:00:00Z'), Date.UTC(2026, 0, 1) / 1000);
  });
  it('reads ISO text without an offset in the given timezone', () => {
    assert.equal(api.parseTime('2026-07-01T00:00:00', { timezone: 'Europe/Berlin' }), Date.UTC(2026, 5, 30, 22) / 1000);
  });
  it('reads today and yesterday in the timezone, across a DST change', () => {
    const ctx = { timezone: 'Europe/Berlin', nowMs };
    assert.equal(api.parseTime('today', ctx), Date.UTC(2026, 2, 28, 23) / 1000);
    assert.equal(api.parseTime('yesterday', ctx), Date.UTC(2026, 2, 27, 23) / 1000);
    assert.equal(api.parseTime('today', { timezone: 'Australia/Sydney', nowMs }), Date.UTC(2026, 2, 28, 13) / 1000); // 23:00 AEDT
  });
  it('reads relative text', () => {
    const ctx = { nowMs };
    assert.equal(api.parseTime('-24h', ctx), nowMs / 1000 - 86400);
    assert.equal(api.parseTime('-7d', ctx), nowMs / 1000 - 7 * 86400);
    assert.equal(api.parseTime('+30m', ctx), nowMs / 1000 + 1800);
    assert.equal(api.parseTime('now', ctx), nowMs / 1000);
    assert.equal(api.parseTime('-1mo', ctx), Date.UTC(2026, 1, 28, 12) / 1000);
  });
  it('refuses what is not a time, and fractional seconds, with a readable reason', () => {
    assert.throws(() => api.parseTime('last tuesday'), (e) => e.code === 'INVALID_REQUEST' && /cannot read/.test(e.message));
    assert.throws(() => api.parseTime(1700000000.5), (e) => e.code === 'INVALID_REQUEST' && /whole number/.test(e.message));
    assert.throws(() => api.parseTime(-5), (e) => e.code === 'INVALID_REQUEST');
  });
});

describe('signal quality (spec 2.3)', () => {
  it('follows the LTE matrix at its corners and middle', () => {
    assert.equal(api.lteSignalQuality(-3, -79), 9);
    assert.equal(api.lteSignalQuality(-3, -113), 0);
    assert.equal(api.lteSignalQuality(-11, -99), 3); // row > -12, column > -100
    assert.equal(api.lteSignalQuality(-17, -83), 3); // row > -18, column > -84
    assert.equal(api.lteSignalQuality(-20, -70), 0);
    assert.equal(api.lteSignalQuality(undefined, -70), -1);
  });
  it('follows the WiFi RSSI table, with above -30 invalid', () => {
    const cases = [[-25, -1], [-30, 9], [-40, 9], [-41, 8], [-50, 8], [-51, 7], [-56, 6], [-61, 5], [-66, 4], [-71, 3], [-76, 2], [-81, 1], [-90, 1], [-91, 0]];
    for (const [rssi, q] of cases) assert.equal(api.wifiSignalQuality(rssi), q, `rssi ${rssi}`);
  });
  it('labels qualities and dBm values', () => {
    assert.deepEqual([-1, 0, 2, 3, 4, 5, 7, 8, 9].map(api.signalQualityLabel),
      ['Invalid or Unknown', 'Poor', 'Poor', 'Low', 'Low', 'Good', 'Good', 'Excellent', 'Excellent']);
    assert.equal(api.dbmLabel(0, '3G'), 'Invalid or Unknown');
    assert.equal(api.dbmLabel(-89, '3G'), 'Excellent');
    assert.equal(api.dbmLabel(-96, '3G'), 'Low');
    assert.equal(api.dbmLabel(-70, '4G'), 'Good');
    assert.equal(api.dbmLabel(-96, '4G'), 'Poor');
    assert.equal(api.dbmLabel(-71, 'wifi'), 'Poor');
    assert.equal(api.dbmLabel(-1, '4G'), 'Invalid or Unknown');
  });
});

describe('modbus scaling (spec 2.12)', () => {
  it('turns 0.01-unit counters into kWh and kvarh and leaves other fields', () => {
    const scaled = api.scaleModbusEntry({ timestamp: 1, model: 'PMC-220', kWh_Imp: 12345, kvarh_Exp: 250, _V: 230.5, kVAh: 99 });
    assert.deepEqual(scaled, { timestamp: 1, model: 'PMC-220', kWh_Imp: 123.45, kvarh_Exp: 2.5, _V: 230.5, kVAh: 99 });
  });
});

describe('device update validation (spec 4.3)', () => {
  const device = {
    id: 'F3RM000000001', model: '3RM', label: '', uninitialised: false,
    channels: [1, 2, 3].map((n) => ({ id: `F3RM000000001_C${n}`, ctRating: 3000, label: '', categoryId: -1 })),
    switches: [], phases: { count: 1 }, comms: { type: 'cellular' }, shortEnergyReportingInterval: 30,
  };
  const check = (update, extra = {}) => api.checkDeviceUpdate(update, { deviceId: device.id, device, ...extra }).map((p) => p.message);

  it('accepts a valid update', () => {
    assert.deepEqual(check({ label: 'Main board', channels: [{ id: 'F3RM000000001_C1', label: 'Oven' }], phases: { count: 3 } }), []);
  });
  it('names each broken field', () => {
    assert.match(check({ label: 'x'.repeat(65) })[0], /^label must be at most 64 characters/);
    assert.match(check({ channels: [{ id: 'F3RM000000001_C1', label: 'y'.repeat(65) }] })[0], /channels\[0\]\.label must be at most 64/);
    assert.match(check({ shortEnergyReportingInterval: 60 })[0], /read-only/);
    assert.match(check({ timezone: 'Mars/Olympus' })[0], /not a TZ database name/);
    assert.match(check({ channels: [{ id: 'F3RM000000001_C1', ctRating: 400 }] })[0], /Rogowski.*3000/);
    assert.match(check({ channels: [{ id: 'F3RM000000001_C4', label: 'x' }] })[0], /does not exist/);
    assert.match(check({ channels: [{ id: 'B300000000001_C1', label: 'x' }] })[0], /not a channel of F3RM000000001/);
    assert.match(check({ phases: { count: 0 } })[0], /grouping is required/);
    assert.match(check({ phases: { count: 2, grouping: [{ included: ['F3RM000000001_C1'] }, { included: ['F3RM000000001_C1'] }] } })[0], /more than one group/);
    assert.match(check({ channels: [{ id: 'F3RM000000001_C1', categoryId: 99 }] }, { categoryIds: [-1, 0, 1] })[0], /not a known channel category/);
    assert.match(check({ comms: { wifi: { ssid: 'x', psk: 'secret123' } } })[0], /only on the 6MW/);
    assert.match(check({ switches: [{ id: 'F3RM000000001_S1', state: 'open' }] })[0], /does not exist|switching/);
  });
  it('refuses a switch state other than open/closed and a switch on an uninitialised device', () => {
    const sw = { ...device, id: 'D6M3SW0000007', model: '6M+3SW', uninitialised: true, switches: [{ id: 'D6M3SW0000007_S1', state: 'open' }], channels: [] };
    const problems = (u) => api.checkDeviceUpdate(u, { deviceId: sw.id, device: sw }).map((p) => p.message);
    assert.match(problems({ switches: [{ id: 'D6M3SW0000007_S1', state: 'on' }] })[0], /state must be one of "open", "closed"/);
    assert.match(problems({ switches: [{ id: 'D6M3SW0000007_S1', state: 'closed' }] })[0], /never connected/);
  });
});

describe('range planner', () => {
  const now = Date.UTC(2026, 6, 1, 9, 31, 12) / 1000;
  it('splits short energy into 12-hour spans and refuses ranges past the 31-day retention', () => {
    const from = now - 3 * 86400;
    const ranges = api.planShortRanges(from, now, now);
    assert.equal(ranges.length, 6);
    assert.equal(ranges[0].fromTs, from);
    assert.equal(ranges.at(-1).toTs, now);
    ranges.forEach((r, i) => { assert.ok(r.toTs - r.fromTs <= 12 * 3600); if (i) assert.equal(r.fromTs, ranges[i - 1].toTs); });
    assert.throws(() => api.planShortRanges(now - 40 * 86400, now - 32 * 86400, now), /kept for 31 days/);
    assert.equal(api.planShortRanges(now - 40 * 86400, now, now)[0].fromTs, now - 31 * 86400);
  });
  it('puts long-energy seams on bucket boundaries in the timezone and within the span limit', () => {
    for (const [granularity, zone] of [['hour', 'Australia/Sydney'], ['day', 'Europe/Berlin'], ['week', 'Europe/Berlin'], ['month', 'Australia/Sydney'], ['5m', undefined], ['30m', undefined]]) {
      const from = Date.UTC(2020, 0, 1, 0, 7) / 1000;
      const to = Date.UTC(2026, 5, 1) / 1000;
      const ranges = api.planLongRanges(from, to, granularity, zone, now);
      assert.equal(ranges[0].fromTs, from);
      assert.equal(ranges.at(-1).toTs, to);
      ranges.slice(1).forEach((r, i) => {
        assert.equal(r.fromTs, ranges[i].toTs);
        assert.equal(api.floorToBucket(r.fromTs, granularity, zone ?? 'UTC'), r.fromTs, `${granularity} seam ${r.fromTs} on a boundary`);
      });
      // Each request, with the 300 s a 5-minute read asks for beyond its periods, stays within the limit.
      ranges.forEach((r) => {
        const request = api.longRequestRange(r, granularity);
        assert.equal(request.toTs - r.toTs, granularity === '5m' ? 300 : 0);
        assert.ok(request.toTs - request.fromTs <= api.LONG_MAX_SPAN_S[granularity], `${granularity} request of ${request.toTs - request.fromTs} s`);
      });
    }
  });
  it('asks nothing before 2019 or in the future', () => {
    assert.deepEqual(api.planLongRanges(Date.UTC(2010, 0, 1) / 1000, Date.UTC(2018, 0, 1) / 1000, 'day', 'UTC', now), []);
    assert.deepEqual(api.planLongRanges(now + 86400, now + 2 * 86400, '5m', undefined, now), []);
    assert.equal(api.planModbusRanges(now - 30 * 86400, now, now).length, 5);
  });
  it('plans a range ending far in the future (toTs 1e17 s) as one ending now: no span after now, no loop up to toTs', () => {
    const far = 1e17;
    const from = now - 2 * 86400;
    const short = api.planShortRanges(from, far, now);
    assert.equal(short.length, 5);
    const long = api.planLongRanges(from, far, '5m', 'Europe/Berlin', now);
    assert.equal(long.length, 1);
    assert.deepEqual(api.planLongRanges(from, far, 'day', 'Australia/Sydney', now).map((r) => r.fromTs), [from]);
    const modbus = api.planModbusRanges(from, far, now);
    assert.equal(modbus.length, 1);
    for (const r of [...short, ...long, ...modbus]) assert.ok(r.fromTs <= now, `span from ${r.fromTs} starts by now`);
  });
  it('splits a year of 5-minute data into 53 requests', () => {
    const to = api.floorToBucket(now, '5m', 'UTC');
    assert.equal(api.planLongRanges(to - 365 * 86400, to, '5m', undefined, now).length, 53);
  });
});
