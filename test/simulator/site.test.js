'use strict';
// The believable site: energy balance, solar by daylight, switched loads, short-entry losses,
// determinism. Every test runs on a frozen sim clock.
const assert = require('node:assert/strict');
const { start, SIM_DEVICES } = require('./helpers');

const utc = (...a) => Date.UTC(...a) / 1000;
const SW = SIM_DEVICES.switch6M3SW;
const HOUR = 3600;
const DAY = 86400;

/** Local hour (0..23) of unix time t in a zone. */
function localHour(t, zone) {
  const text = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(t * 1000));
  return Number(text);
}

/** Devices whose channel 1 is the site's grid connection and the others its loads and solar. */
const BALANCED = [SIM_DEVICES.meter3M, SW, SIM_DEVICES.modbus6MOne, SIM_DEVICES.wifi6MW, SIM_DEVICES.cer6MWCER];

function assertBalanced(entries, device, categories, what) {
  assert.ok(entries.length > 0, `${device}: no ${what} entries`);
  for (const e of entries) {
    let expected = 0;
    categories.forEach((cat, i) => {
      if (i === 0) return;
      if (cat === 5) expected -= e.eReal[i];
      else if (cat > 0) expected += e.eReal[i];
    });
    assert.equal(e.eReal[0], expected, `${device} ${what} at ${e.timestamp}: grid ${e.eReal[0]} != loads - solar ${expected}`);
    assert.ok(e.eReal.every(Number.isInteger), 'whole Joules');
  }
}

describe('simulator: the believable site', function () {
  this.timeout(60000);
  const NOW = utc(2026, 0, 20, 3, 7, 0); // 14:07 in Sydney, summer
  let t;
  before(async () => { t = await start({ now: NOW }); });
  after(() => t.sim.close());

  it('Grid = loads - solar to the joule in every 5-minute record and every short entry, on every site', async () => {
    for (const id of BALANCED) {
      const dev = (await t.get(`/devices/${id}`)).body;
      const categories = dev.channels.map((c) => c.categoryId);
      assert.equal(categories[0], 1, `${id}: channel 1 is Grid connect`);
      const long = (await t.get(`/long-energy/${id}?fromTs=${NOW - 2 * DAY}&toTs=${NOW}`)).body;
      assert.equal(long.length, 2 * 288, 'the records stamped in the two days; the one in progress (stamped 03:10) is not there');
      assert.equal(long.at(-1).timestamp, NOW - 120);
      assertBalanced(long, id, categories, '5m');
      const short = (await t.get(`/short-energy/${id}?fromTs=${NOW - 6 * HOUR}&toTs=${NOW}`)).body;
      assertBalanced(short, id, categories, 'short');
      const hours = (await t.get(`/long-energy/${id}?fromTs=${NOW - 2 * DAY}&toTs=${NOW}&granularity=hour&timezone=UTC`)).body;
      assertBalanced(hours, id, categories, 'hour');
    }
  });

  it('channel labels and categories of the solar home say what they measure', async () => {
    const dev = (await t.get(`/devices/${SW}`)).body;
    assert.equal(dev.timezone, 'Australia/Sydney');
    assert.deepEqual(dev.channels.map((c) => [c.label, c.categoryId, c.categoryLabel]), [
      ['Grid', 1, 'Grid connect'], ['Solar', 5, 'Solar generation'], ['Hot water', 6, 'Hot water'],
      ['Pool pump', 3, 'Pool pump'], ['EV charger', 7, 'Electric vehicle'], ['House', 2, 'Lighting & Power'],
    ]);
    assert.deepEqual(dev.switches.map((s) => [s.label, s.state]), [['Hot water', 'open'], ['Pool pump', 'open'], ['EV charger', 'open']]);
  });

  it('solar produces only in daylight in the device\'s timezone, with a curve and different days', async () => {
    for (const id of BALANCED) {
      const dev = (await t.get(`/devices/${id}`)).body;
      const solar = dev.channels.findIndex((c) => c.categoryId === 5);
      const records = (await t.get(`/long-energy/${id}?fromTs=${NOW - 7 * DAY}&toTs=${NOW - 1 * HOUR}`)).body;
      let night = 0;
      let day = 0;
      for (const e of records) {
        const h = localHour(e.timestamp - 150, dev.timezone);
        assert.ok(e.eReal[solar] >= 0, 'solar never draws');
        if (h >= 22 || h < 4) {
          night++;
          assert.equal(e.eReal[solar], 0, `${id}: solar at ${h}h local (${e.timestamp})`);
        }
        if (h >= 11 && h < 14) day += e.eReal[solar];
      }
      assert.ok(night > 0 && day > 0, `${id}: night records ${night}, midday energy ${day}`);
    }
    const days = (await t.get(`/long-energy/${SW}?fromTs=${utc(2026, 0, 1, 13)}&toTs=${utc(2026, 0, 15, 13)}&granularity=day&timezone=Australia/Sydney`)).body;
    const solarDays = days.map((e) => e.eReal[1]);
    assert.equal(new Set(solarDays).size, solarDays.length, 'every day is different');
    assert.ok(Math.max(...solarDays) > 1.3 * Math.min(...solarDays), `weather varies: ${solarDays}`);
    const winter = (await t.get(`/long-energy/${SW}?fromTs=${utc(2025, 5, 1, 14)}&toTs=${utc(2025, 5, 15, 14)}&granularity=day&timezone=Australia/Sydney`)).body;
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(mean(winter.map((e) => e.eReal[1])) < 0.8 * mean(solarDays), 'less in winter');
  });

  it('loads have shapes: evening above the small hours, and days differ', async () => {
    const from = utc(2026, 0, 5, 13); // Tuesday 6 Jan 00:00 Sydney
    const hours = (await t.get(`/long-energy/${SIM_DEVICES.meter3M}?fromTs=${from}&toTs=${from + 7 * DAY}&granularity=hour&timezone=Australia/Sydney`)).body;
    // Each hour entry is labelled with its first record: the start of its local hour.
    const house = (h) => hours.filter((e) => localHour(e.timestamp, 'Australia/Sydney') === h).map((e) => e.eReal[2]);
    const sum = (xs) => xs.reduce((a, b) => a + b, 0);
    assert.ok(sum(house(18)) > 1.5 * sum(house(3)), 'cooking and lights in the evening');
    assert.equal(new Set(house(18)).size, 7);
  });

  it('short entries are the records split exactly, with a few percent lost as UDP loses them', async () => {
    const from = NOW - 12 * HOUR;
    const short = (await t.get(`/short-energy/${SW}?fromTs=${from}&toTs=${NOW}`)).body;
    const expected = 12 * HOUR / 30;
    const lostShare = 1 - short.length / expected;
    assert.ok(lostShare > 0.005 && lostShare < 0.08, `lost ${lostShare}`);
    assert.deepEqual((await t.get(`/short-energy/${SW}?fromTs=${from}&toTs=${NOW}`)).body, short, 'the same entries are lost on every read');
    const long = (await t.get(`/long-energy/${SW}?fromTs=${from}&toTs=${NOW}`)).body;
    let complete = 0;
    for (const record of long) {
      const parts = short.filter((e) => e.timestamp > record.timestamp - 300 && e.timestamp <= record.timestamp);
      if (parts.length !== 10) continue;
      complete++;
      const sums = record.eReal.map((_, i) => parts.reduce((a, e) => a + e.eReal[i], 0));
      assert.deepEqual(sums, record.eReal, `record ${record.timestamp}`);
    }
    assert.ok(complete > 50);
  });

  it('is deterministic for a seed and differs with another seed', async () => {
    const q = `/long-energy/${SW}?fromTs=${NOW - DAY}&toTs=${NOW}&granularity=hour&timezone=UTC`;
    const again = await start({ now: NOW });
    const other = await start({ now: NOW, seed: 7 });
    try {
      const mine = (await t.get(q)).body;
      assert.deepEqual((await again.get(q)).body, mine);
      assert.notDeepEqual((await other.get(q)).body, mine);
    } finally {
      await again.sim.close();
      await other.sim.close();
    }
  });
});

describe('simulator: switched loads', function () {
  this.timeout(60000);
  // 08:30 on Wednesday 14 January in Sydney: the morning showers emptied part of the tank.
  const START = utc(2026, 0, 13, 21, 30);
  let t;
  beforeEach(async () => { t = await start({ now: START }); });
  afterEach(() => t.sim.close());

  const C = { grid: 0, hotWater: 2, pool: 3, ev: 4 };
  const longFrom = async (from, to) => (await t.get(`/long-energy/${SW}?fromTs=${from}&toTs=${to}`)).body;

  it('open switches draw nothing; a closed switch draws from its pickup on, and history is not rewritten', async () => {
    t.sim.control.setClock({ advance: 30 * 60 });
    const before = await longFrom(START, START + 30 * 60);
    assert.equal(before.length, 6);
    for (const e of before) {
      assert.equal(e.eReal[C.hotWater], 0);
      assert.equal(e.eReal[C.pool], 0);
      assert.equal(e.eReal[C.ev], 0);
    }
    const patchedAt = t.sim.control.now() + 10; // mid-slot: pickup at the next report
    t.sim.control.setClock({ now: patchedAt });
    const r = await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S1`, state: 'closed' }, { id: `${SW}_S2`, state: 'closed' }] });
    assert.equal(r.status, 202);
    t.sim.control.setClock({ advance: 25 });
    const device = (await t.get(`/devices/${SW}`)).body;
    assert.deepEqual(device.switches.slice(0, 2).map((s) => s.state), ['closed', 'closed']);
    const pickup = Math.ceil((patchedAt + 1) / 30) * 30;
    t.sim.control.setClock({ advance: HOUR });
    assert.deepEqual(await longFrom(START, START + 30 * 60), before, 'the records before the change are unchanged');
    const short = (await t.get(`/short-energy/${SW}?fromTs=${pickup - 600}&toTs=${pickup + 1800}`)).body;
    for (const e of short) {
      const afterPickup = e.timestamp > pickup;
      if (!afterPickup) {
        assert.equal(e.eReal[C.pool], 0, `pool before pickup at ${e.timestamp}`);
        assert.equal(e.eReal[C.hotWater], 0, `hot water before pickup at ${e.timestamp}`);
      } else {
        assert.ok(e.eReal[C.pool] > 30000 && e.eReal[C.pool] < 36000, `pool ~1100 W at ${e.timestamp}: ${e.eReal[C.pool]}`);
      }
      assert.equal(e.eReal[C.ev], 0, 'the EV charger is still open');
    }
    const heating = short.filter((e) => e.timestamp > pickup && e.timestamp <= pickup + 1200);
    assert.ok(heating.length > 30);
    for (const e of heating) assert.equal(e.eReal[C.hotWater], 3600 * 30, 'the thermostat calls for heat: 3600 W');
    const after = await longFrom(pickup + 300 - (pickup % 300), pickup + 1800);
    for (const e of after) {
      assert.ok(e.eReal[C.grid] > e.eReal[C.pool] - e.eReal[1], 'the grid channel carries the new loads');
    }
  });

  it('a hot-water heater stops when its tank is full although its switch stays closed', async () => {
    await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S1`, state: 'closed' }] });
    t.sim.control.reportNow(SW);
    // 08:30 to 18:00 in Sydney, across 00:00 UTC (11:00 local): no draws after the morning showers.
    t.sim.control.setClock({ advance: 9.5 * HOUR });
    const records = await longFrom(START, START + 9.5 * HOUR);
    const heat = records.map((e) => e.eReal[C.hotWater]);
    assert.equal(heat[1], 3600 * 300, 'full power once closed');
    const full = heat.findIndex((e, i) => i > 1 && e === 0);
    assert.ok(full > 0, 'the thermostat stopped the heater');
    assert.ok(heat.slice(full).every((e) => e === 0), 'the tank stays full all day: no restart at the UTC day boundary');
    assert.equal((await t.get(`/devices/${SW}`)).body.switches[0].state, 'closed');
  });
});
