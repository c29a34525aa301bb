'use strict';
// The chart output of a read on the domain floor: long ranges thinned to maxPoints without stalling the event loop,
// entries of one clock period added into one point, power averaged over time.
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const { chartSeries, reduce } = require('../../../dist/domain/entries/outputs.js');
const { CATEGORY_COLOURS } = require('../../../dist/domain/entries/chart-colours.js');

const DAY = 86400;

describe('domain entries: the chart output of a year of 5-minute data (105,120 entries)', function () {
  const start = 1767186000;
  const entries = Array.from({ length: 105120 }, (_, i) => ({
    timestamp: start + (i + 1) * 300, duration: 300,
    eReal: [300 * (1000 + ((i * 37) % 500)), i === 70000 ? 300 * 9000 : 300 * 200],
  }));
  const names = () => ['Grid', 'Solar'];
  const dev = { channels: [{ label: 'Grid', categoryId: 1 }, { label: 'Solar', categoryId: 5 }] };

  it('reaches the chart as at most maxPoints per series, peaks kept, energy sums kept, without stalling the event loop', async () => {
    // Turns of the event loop while the chart is built, counted by turns rather than by time, so the test does not
    // depend on how fast or busy the host is: the work must give the loop a turn at least every 2,000 entries.
    let turns = 0;
    let building = true;
    const turn = () => { turns += 1; if (building) setImmediate(turn); };
    setImmediate(turn);
    const peaks = await chartSeries(entries, undefined, names, dev, false, { unit: 'W', maxPoints: 400, reduce: 'peaks' });
    building = false;
    const solar = peaks.points.filter((p) => p.series === 'Solar (W)');
    assert.ok(solar.length <= 400, `${solar.length}`);
    assert.equal(Math.max(...solar.map((p) => p.y)), 9000, 'the one 9 kW peak survives');
    assert.ok(turns >= Math.floor(entries.length / 2000), `the event loop had ${turns} turns while ${entries.length} entries were charted`);

    const energy = await chartSeries(entries, undefined, names, dev, false, { unit: 'kWh', maxPoints: 365, reduce: 'average' });
    const grid = energy.points.filter((p) => p.series === 'Grid (kWh)');
    assert.ok(grid.length <= 365);
    const total = entries.reduce((a, e) => a + e.eReal[0], 0) / 3.6e6;
    assert.ok(Math.abs(grid.reduce((a, p) => a + p.y, 0) - total) < 0.001 * grid.length, 'bucket sums keep the energy');
    assert.deepEqual(energy.colours, [CATEGORY_COLOURS[1], CATEGORY_COLOURS[5]]);
  });

  it('adds two entries of one clock period into one point: a live day and the record stamped at the next midnight', async () => {
    const { chartPlacement } = require('../../../dist/domain/entries/periods.js');
    const zone = 'Australia/Sydney';
    const day = DateTime.fromISO('2026-07-14', { zone }).toSeconds();
    // The day labelled 14 July covers 13 July 23:55 to 14 July 23:55; the record stamped 15 July 00:00 covers the 5 minutes after.
    const days = [{ timestamp: day + DAY - 300, duration: DAY, eReal: [36e6] }, { timestamp: day + DAY, duration: 300, eReal: [3.6e6] }];
    const place = chartPlacement('long', 'day', zone);
    const kwh = await chartSeries(days, undefined, names, dev, false, { unit: 'kWh', maxPoints: 0, reduce: 'average' }, place);
    assert.deepEqual(kwh.points, [{ series: 'Grid (kWh)', x: day * 1000, y: 11 }]);
    const watts = await chartSeries(days, undefined, names, dev, false, { unit: 'W', maxPoints: 0, reduce: 'average' }, place);
    assert.deepEqual(watts.points, [{ series: 'Grid (W)', x: day * 1000, y: Math.round((39.6e6 / (DAY + 300)) * 10) / 10 }], 'power averaged over both');
  });

  it('averages power over time in each bucket', () => {
    const list = { length: 4, x: [0, 300, 400, 700], y: [100, 200, 0, 50], duration: [300, 100, 300, 300] };
    const { x, y } = reduce(list, { unit: 'W', maxPoints: 2, reduce: 'average' });
    assert.deepEqual({ x, y }, { x: [0, 400], y: [125, 25] });
  });
});
