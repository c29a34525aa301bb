'use strict';
// The one price normaliser, on hand-written lists in every shape it reads (no Node-RED, no HTTP).
const assert = require('node:assert/strict');
const { readPrices, toSlots, periodAt, exportPeriods } = require('../../../dist/domain/pricing/normalise');

const T = Date.UTC(2026, 6, 15, 2, 0, 0) / 1000; // 2026-07-15 12:00 in Sydney
const iso = (t) => new Date(t * 1000).toISOString();
const read = (value, options = {}) => readPrices(value, { source: 'msg.prices', ...options });

describe('price normaliser', function () {
  it('own shape: times as unix s, ms or ISO, prices as numbers or decimal text; the last slot as long as the one before', function () {
    const list = read([
      { start: (T + 1800) * 1000, price: '0.31' },
      { start: T, end: T + 1800, price: 0.2875, exportPrice: 0.05, estimate: true },
      { start: iso(T + 3600), price: -0.02, spike: true },
    ]);
    assert.equal(list.shape, 'slots');
    assert.deepEqual(list.periods, [
      { start: T, end: T + 1800, micros: 287500, exportMicros: 50000, estimate: true },
      { start: T + 1800, end: T + 3600, micros: 310000 },
      { start: T + 3600, end: T + 5400, micros: -20000, spike: true },
    ]);
    assert.deepEqual(toSlots(list.periods)[0], { start: T, end: T + 1800, price: 0.2875, exportPrice: 0.05, estimate: true });
    assert.equal(periodAt(list.periods, T + 1799).micros, 287500);
    assert.equal(periodAt(list.periods, T + 1800).micros, 310000);
    assert.equal(periodAt(list.periods, T + 5400), undefined);
    assert.deepEqual(exportPeriods(list.periods), [{ start: T, end: T + 1800, micros: 50000 }]);
  });

  it('one slot without an end: refused by default, forever for energy-cost', function () {
    assert.throws(() => read([{ start: T, price: 0.3 }]), /msg\.prices\[0\]: the only slot has no end/);
    assert.equal(read([{ start: T, price: 0.3 }], { single: 'forever' }).periods[0].end, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(read(undefined).periods, []);
    assert.deepEqual(read([]).periods, []);
  });

  it('power-saver priceData (15-minute slots, the last with its end), and its msg.payload object', function () {
    const priceData = [
      { value: 0.2494, start: '2021-10-11T00:00:00.000+02:00' },
      { value: 0.2209, start: '2021-10-11T00:15:00.000+02:00' },
      { value: 0.2099, start: '2021-10-11T00:30:00.000+02:00', end: '2021-10-11T00:45:00.000+02:00' },
    ];
    const list = read({ source: 'Tibber', priceData });
    assert.equal(list.shape, 'power-saver');
    const t0 = Date.parse('2021-10-10T22:00:00Z') / 1000;
    assert.deepEqual(list.periods.map((p) => [p.start - t0, p.end - t0, p.micros]), [[0, 900, 249400], [900, 1800, 220900], [1800, 2700, 209900]]);
    assert.equal(read(priceData).shape, 'power-saver');
  });

  it('Tibber: tibber-query\'s answer, today and tomorrow of the first home with prices', function () {
    const priceInfo = {
      today: [{ total: 0.4675, startsAt: '2021-12-14T23:00:00.000+01:00' }],
      tomorrow: [{ total: 0.4488, startsAt: '2021-12-15T00:00:00.000+01:00' }, { total: 0.4344, startsAt: '2021-12-15T01:00:00.000+01:00' }],
    };
    const list = read({ viewer: { homes: [{ currentSubscription: null }, { currentSubscription: { priceInfo } }] } });
    assert.equal(list.shape, 'tibber');
    assert.deepEqual(list.periods.map((p) => [iso(p.start), p.end - p.start, p.micros]), [
      ['2021-12-14T22:00:00.000Z', 3600, 467500], ['2021-12-14T23:00:00.000Z', 3600, 448800], ['2021-12-15T00:00:00.000Z', 3600, 434400],
    ]);
    assert.throws(() => read({ viewer: { homes: [{ currentSubscription: { priceInfo: { today: [{ total: 'x', startsAt: '2021-12-14T23:00:00+01:00' }] } } }] } }),
      /msg\.prices\.viewer\.homes\[0\]\.currentSubscription\.priceInfo\.today\[0\]\.total: "x" is not a price/);
  });

  it('Nord Pool: per MWh divided by 1000; the first node\'s local times read in the given zone', function () {
    const plus = read([{ timestamp: '2026-07-15T00:00:00.000+02:00', price: 45.67, currency: 'EUR', area: 'NO1' }, { timestamp: '2026-07-15T01:00:00.000+02:00', price: -3.2, currency: 'EUR', area: 'NO1' }]);
    assert.equal(plus.shape, 'nordpool');
    assert.deepEqual(plus.periods.map((p) => p.micros), [45670, -3200]);
    const first = read([
      { Area: 'Oslo', Timestamp: '2026-07-15 00:00', StartTime: '2026-07-15 00:00', EndTime: '2026-07-15 01:00', Price: 512.3, Valuta: 'NOK/MWh' },
      { Area: 'Oslo', Timestamp: '2026-07-15 01:00', StartTime: '2026-07-15 01:00', EndTime: '2026-07-15 02:00', Price: 498, Valuta: 'NOK/MWh' },
    ], { timezone: 'Europe/Oslo' });
    assert.deepEqual(first.periods.map((p) => [iso(p.start), iso(p.end), p.micros]), [
      ['2026-07-14T22:00:00.000Z', '2026-07-14T23:00:00.000Z', 512300], ['2026-07-14T23:00:00.000Z', '2026-07-15T00:00:00.000Z', 498000],
    ]);
  });

  it('Home Assistant\'s Nord Pool sensor: attributes.raw_today and raw_tomorrow', function () {
    const list = read({ attributes: {
      raw_today: [{ start: '2026-07-15T23:00:00+02:00', end: '2026-07-16T00:00:00+02:00', value: 0.81 }],
      raw_tomorrow: [{ start: '2026-07-16T00:00:00+02:00', end: '2026-07-16T01:00:00+02:00', value: 0.79 }],
    } });
    assert.equal(list.shape, 'home-assistant');
    assert.deepEqual(list.periods.map((p) => p.micros), [810000, 790000]);
  });

  it('Amber: slots from endTime − duration (startTime is one second late), feed-in negated into the export price, flags kept', function () {
    const interval = (type, channelType, end, perKwh, extra = {}) => ({
      type, date: '2026-07-15', duration: 30, spotPerKwh: 6.1, perKwh, nemTime: '', startTime: new Date((end - 1799) * 1000).toISOString(),
      endTime: new Date(end * 1000).toISOString(), renewables: 40, channelType, spikeStatus: 'none', descriptor: 'low', ...extra,
    });
    const list = read([
      interval('CurrentInterval', 'general', T + 1800, 24.33, { estimate: true }),
      interval('ForecastInterval', 'general', T + 3600, 310.5, { spikeStatus: 'potential' }),
      interval('CurrentInterval', 'controlledLoad', T + 1800, 15, { estimate: true }),
      interval('CurrentInterval', 'feedIn', T + 1800, -8.30172, { estimate: true }),
      interval('ForecastInterval', 'feedIn', T + 3600, 1.5),
    ]);
    assert.equal(list.shape, 'amber');
    assert.deepEqual(list.periods, [
      { start: T, end: T + 1800, micros: 243300, exportMicros: 83017, estimate: true },
      { start: T + 1800, end: T + 3600, micros: 3105000, exportMicros: -15000, estimate: true, spike: true },
    ]);
    assert.throws(() => read([interval('ForecastInterval', 'feedIn', T + 3600, 1.5)]), /msg\.prices\[0\] \(feedIn ending .*\): the feedIn interval .* has no general interval \(a partial list\)/);
    assert.throws(() => read([interval('ActualInterval', 'general', T, 'x')]), /msg\.prices\[0\] \(general ending 2026-07-15T02:00:00\.000Z\): perKwh "x" is not a number/);
  });

  it('refuses a bad or partial list whole, naming the slot', function () {
    const ok = { start: T, end: T + 1800, price: 0.2 };
    assert.throws(() => read([ok, { start: T + 1800, price: 'abc' }]), /msg\.prices\[1\]\.price: "abc" is not a price/);
    assert.throws(() => read([ok, { start: T + 1800, price: '0.1234567' }]), /msg\.prices\[1\]\.price: .*more than 6 decimals/);
    assert.throws(() => read([ok, { start: 'soon', price: 0.1 }]), /msg\.prices\[1\]\.start: cannot read "soon"/);
    assert.throws(() => read([ok, { start: T + 900, end: T + 2700, price: 0.1 }]), /msg\.prices\[1\]: the slot starting 2026-07-15T02:15:00\.000Z overlaps the one starting 2026-07-15T02:00:00\.000Z/);
    assert.throws(() => read([ok, { start: T, end: T + 900, price: 0.1 }]), /msg\.prices\[1\]: a second slot starting/);
    assert.throws(() => read([ok, { start: T + 3600, end: T + 5400, price: 0.1 }]), /msg\.prices\[1\]: nothing covers 2026-07-15T02:30:00\.000Z to 2026-07-15T03:00:00\.000Z .*\(a partial list\)/);
    assert.throws(() => read([ok, { start: T + 1800, end: T + 1800, price: 0.1 }]), /msg\.prices\[1\]: the slot starting .* ends before it starts/);
    assert.throws(() => read([ok, 7]), /msg\.prices\[1\] must be an object \{start, price\}, not 7/);
    assert.throws(() => read([ok, { ...ok, start: T + 1800, end: T + 3600, estimate: 'yes' }]), /msg\.prices\[1\]\.estimate must be true or false/);
    assert.throws(() => read({ hello: 1 }), /msg\.prices is not a price list this package knows/);
    assert.throws(() => read('0.3'), /msg\.prices is not a price list/);
    assert.throws(() => read(Array.from({ length: 40001 }, (_, i) => ({ start: T + i * 300, price: 0.1 }))), /more than 40000/);
  });
});
