'use strict';
// The cost arithmetic of energy-cost, on the domain floor: grid energy of an entry, priced piece by piece.
const assert = require('node:assert/strict');
const api = require('../../../dist/api');
const { computeCost } = require('../../../dist/domain/pricing/entry-cost.js');
const { gridEnergy, KWH_J } = require('../../../dist/domain/entries/grid-energy.js');
const { buildTariff } = require('../../../dist/domain/pricing/tariff.js');

const ZONE = 'Australia/Brisbane'; // no DST: a day is 24 hours
const T0730 = Date.UTC(2026, 6, 14, 21, 30) / 1000; // 2026-07-15 07:30 in Brisbane (UTC+10)

const tariff = buildTariff({
  currency: 'AUD',
  importRates: [{ from: '00:00', to: '07:00', price: 0.1 }, { from: '07:00', to: '24:00', price: 0.3 }],
  exportRates: [{ from: '00:00', to: '24:00', price: 0.05 }],
  supplyCharges: [{ price: 1.2 }],
});

describe('domain pricing: the cost of energy entries', () => {
  it('reads an entry\'s grid energy in whole Joules, import and export apart, whatever unit it came in', () => {
    assert.deepEqual(gridEnergy({ timestamp: T0730, duration: 3600, eReal: [KWH_J, 5] }, [0], 0), { start: T0730 - 3600, end: T0730, importJ: KWH_J, exportJ: 0 });
    assert.deepEqual(gridEnergy({ timestamp: T0730, duration: 3600, eRealKwh: [1.5, 0], eRealPositiveKwh: [2, 0], eRealNegativeKwh: [-0.5, 0] }, [0], 0),
      { start: T0730 - 3600, end: T0730, importJ: 2 * KWH_J, exportJ: 0.5 * KWH_J });
    assert.throws(() => gridEnergy({ timestamp: T0730, duration: 3600, groupedBy: 'phases', eReal: [1] }, [0], 2),
      (err) => err instanceof api.MsgError && err.code === 'BAD_MSG' && /entry 3 .* grouped by phase/.test(err.message));
  });

  it('splits an entry across a price change by time and adds the entries up to the day, with the supply charge pro rata', () => {
    // 06:30 to 07:30: half the kWh at 0.10 before 07:00, half at 0.30 after.
    const energy = gridEnergy({ timestamp: T0730, duration: 3600, eReal: [KWH_J] }, [0], 0);
    const result = computeCost([energy], { tariff, zone: ZONE });
    assert.equal(result.currency, 'AUD');
    assert.deepEqual(result.entries, [{ timestamp: T0730, start: T0730 - 3600, duration: 3600, importKwh: 1, exportKwh: 0, importCost: 0.2, exportCredit: 0, netCost: 0.2 }]);
    assert.equal(result.days.length, 1);
    const [day] = result.days;
    assert.equal(day.date, '2026-07-15');
    assert.equal(day.coveredHours, 1);
    assert.equal(day.supplyCharge, 0.05, 'one hour of a 1.20 daily charge');
    assert.equal(day.netCost, 0.25);
    assert.equal(result.total.netCost, 0.25);
  });

  it('msg prices win where they cover the instant; without an import price anywhere it is a PriceError', () => {
    const energy = gridEnergy({ timestamp: T0730, duration: 3600, eReal: [KWH_J] }, [0], 0);
    const prices = [{ start: T0730 - 3600, end: T0730, micros: 1_000_000 }];
    assert.equal(computeCost([energy], { tariff, zone: ZONE, importPrices: prices }).entries[0].importCost, 1);
    const exportOnly = buildTariff({ currency: 'AUD', exportRates: [{ from: '00:00', to: '24:00', price: 0.05 }] });
    assert.throws(() => computeCost([energy], { tariff: exportOnly, zone: ZONE }), (err) => err instanceof api.PriceError && /no import price/.test(err.message));
  });
});
