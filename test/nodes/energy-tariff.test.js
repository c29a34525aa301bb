'use strict';
// The tariff config node: its rows read as a person would read them, checked with readable errors.
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const { helper, nodeFile, startServer, stopServer, load } = require('../support/env');
const { buildTariff } = require('../../dist/domain/pricing/tariff.js');
const { parseMicros } = require('../../dist/domain/pricing/money.js');

const wall = (iso, zone = 'Australia/Sydney') => {
  const d = DateTime.fromISO(iso, { zone });
  return { date: d.toISODate(), weekday: d.weekday, minute: d.hour * 60 + d.minute, zone };
};

describe('energy-tariff', function () {
  before(function (done) { startServer(done); });
  after(async function () { await stopServer(); });
  afterEach(async function () { await helper.unload(); });

  it('prices by date, weekday and time of day; a window may wrap midnight; the first matching row wins', () => {
    const t = buildTariff({
      currency: 'AUD',
      importRates: [
        { since: '', days: 'all', from: '22:00', to: '07:00', price: '0.15' },
        { since: '', days: 'mon-fri', from: '14:00', to: '20:00', price: '0.52' },
        { since: '', days: 'all', from: '00:00', to: '24:00', price: '0.25' },
        { since: '2026-07-01', days: 'all', from: '00:00', to: '24:00', price: '0.31' },
      ],
      supplyCharges: [{ since: '', price: '1.05' }, { since: '2026-07-01', price: '1.10' }],
    });
    const p = (iso) => t.importPrice.microsAt(wall(iso));
    assert.equal(p('2026-06-10T23:30'), 150000); // Wed night
    assert.equal(p('2026-06-11T06:59'), 150000);
    assert.equal(p('2026-06-11T07:00'), 250000);
    assert.equal(p('2026-06-11T14:00'), 520000); // Thu peak
    assert.equal(p('2026-06-13T14:00'), 250000); // Sat: no peak
    assert.equal(p('2026-06-30T23:59'), 150000);
    assert.equal(p('2026-07-01T00:00'), 310000); // the new list from its date
    assert.equal(t.supplyCharge.microsOn('2026-06-30'), 1050000);
    assert.equal(t.supplyCharge.microsOn('2026-07-01'), 1100000);
    assert.equal(t.exportPrice.empty, true);
  });

  it('reads prices exactly as integers of micro-units', () => {
    assert.deepEqual(['0.1', 0.2875, '-0.05', '12', '.5', 0.000001].map(parseMicros), [100000, 287500, -50000, 12000000, 500000, 1]);
    assert.throws(() => parseMicros('0.1234567'), /more than 6 decimals/);
    assert.throws(() => parseMicros('abc'), /not a price/);
  });

  it('names the row and the problem', () => {
    const row = (r) => () => buildTariff({ currency: 'AUD', importRates: [{ since: '', days: 'all', from: '00:00', to: '24:00', price: '0.3' }, r] });
    assert.throws(row({ days: 'moon', from: '00:00', to: '24:00', price: 1 }), /import price row 2: days "moon"/);
    assert.throws(row({ from: '25:00', to: '24:00', price: 1 }), /import price row 2: "25:00" is not a time of day/);
    assert.throws(row({ from: '07:00', to: '07:00', price: 1 }), /covers nothing/);
    assert.throws(row({ since: '1/7/2026', price: 1 }), /"since" must be a date like 2026-07-01/);
    assert.throws(() => buildTariff({ currency: 'AUD', timezone: 'Mars/Base' }), /not a time zone name/);
    assert.throws(() => buildTariff({ currency: '' }), /currency/);
  });

  it('loads in Node-RED; a bad tariff is logged with its reason instead of stopping the deploy', async () => {
    await load([nodeFile('energy-tariff')], [
      { id: 'good', type: 'energy-tariff', currency: 'EUR', importRates: [{ since: '', days: 'all', from: '00:00', to: '24:00', price: '0.3' }] },
      { id: 'bad', type: 'energy-tariff', currency: 'EUR', importRates: [{ since: '', days: 'all', from: 'noon', to: '24:00', price: '0.3' }] },
    ], {});
    assert.equal(helper.getNode('good').tariff.currency, 'EUR');
    assert.match(helper.getNode('bad').problem, /import price row 1: "noon"/);
  });
});
