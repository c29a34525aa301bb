'use strict';
// energy-tariff + energy-cost in a real Node-RED runtime, against tariffs worked out by hand.
const assert = require('node:assert/strict');
const { DateTime } = require('luxon');
const {
  helper, statusesOf, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, TEST_NOW_S,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const messages = require('../../src/nodes/energy-cost/locales/en-US/energy-cost.json');

const SYD = 'Australia/Sydney';
const KWH = 3600000;
const at = (iso, zone = SYD) => DateTime.fromISO(iso, { zone }).toSeconds();
/** A long entry of one channel (the grid): import and export in Joules over [start, end). */
const entry = (startIso, endIso, importJ, exportJ = 0, zone = SYD) => {
  const start = at(startIso, zone);
  const end = at(endIso, zone);
  return { timestamp: end, duration: end - start, eReal: [importJ - exportJ], eRealPositive: [importJ], eRealNegative: [exportJ] };
};
const flat = (price) => [{ since: '', days: 'all', from: '00:00', to: '24:00', price }];

describe('energy-cost', function () {
  const nodes = [nodeFile('energy-api'), nodeFile('energy-query'), nodeFile('energy-tariff'), nodeFile('energy-cost')];

  before(function (done) { startServer(done); });
  after(async function () { await stopServer(); });
  afterEach(async function () { await helper.unload(); });

  async function setup(tariff, props = {}) {
    await helper.unload();
    const flow = [
      { id: 'tariff', type: 'energy-tariff', name: 't', currency: 'AUD', timezone: '', importRates: flat('0.30'), exportRates: [], supplyCharges: [], ...tariff },
      { id: 'cost', type: 'energy-cost', tariff: 'tariff', api: '', channels: '1', timezone: SYD, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await load(nodes, flow, {});
    return { cost: helper.getNode('cost'), out: helper.getNode('out'), caught: helper.getNode('caught') };
  }

  async function run(ctx, payload, extra = {}) {
    const got = nextMessage(ctx.out, 5000);
    ctx.cost.receive({ payload, ...extra });
    return (await got).payload;
  }

  async function refused(ctx, payload, pattern, extra = {}) {
    const got = nextMessage(ctx.caught, 5000);
    ctx.cost.receive({ payload, ...extra });
    const msg = await got;
    assert.match(msg.error.message, pattern);
    assert.ok(msg.apiError, 'msg.apiError for the Catch node');
  }

  it('its status counts days in words that fit the number: 1 day, 2 days', async () => {
    const ctx = await setup({});
    const statuses = statusesOf(ctx.cost);
    await run(ctx, [entry('2026-01-14T14:00', '2026-01-14T14:15', 900000)]);
    // The test helper loads no message catalogs: a status names its message by key.
    assert.equal(statuses.at(-1).text, 'energy-cost.status.doneOneDay');
    assert.match(messages['energy-cost'].status.doneOneDay, /^1 day · net __net__/);
    await run(ctx, [entry('2026-01-14T14:00', '2026-01-14T14:15', 900000), entry('2026-01-15T14:00', '2026-01-15T14:15', 900000)]);
    assert.equal(statuses.at(-1).text, 'energy-cost.status.done');
    assert.match(messages['energy-cost'].status.done, /^__days__ days · net __net__/);
  });

  it('a time-of-use edge inside a 15-minute entry splits its energy pro rata by time', async () => {
    // Peak from 14:05 on weekdays. Wed 2026-01-14 14:00-14:15, 0.25 kWh:
    // 5 min off-peak: 0.083333 kWh x 0.20 = 0.0166667; 10 min peak: 0.166667 kWh x 0.50 = 0.0833333; sum exactly 0.10.
    const ctx = await setup({ importRates: [
      { since: '', days: 'mon-fri', from: '14:05', to: '20:00', price: '0.50' },
      { since: '', days: 'all', from: '00:00', to: '24:00', price: '0.20' },
    ] });
    const out = await run(ctx, [entry('2026-01-14T14:00', '2026-01-14T14:15', 900000)]);
    assert.equal(out.entries.length, 1);
    assert.deepEqual(
      { kwh: out.entries[0].importKwh, cost: out.entries[0].importCost, ts: out.entries[0].timestamp },
      { kwh: 0.25, cost: 0.1, ts: at('2026-01-14T14:15') },
    );
    // The same entry on a Saturday is all off-peak: 0.25 x 0.20
    const sat = await run(ctx, [entry('2026-01-17T14:00', '2026-01-17T14:15', 900000)]);
    assert.equal(sat.entries[0].importCost, 0.05);
  });

  it('a price list that starts at midnight prices each side of it, also inside one entry', async () => {
    // Kathmandu (+05:45): 30-minute entries are aligned in UTC, so one covers 23:45-00:15 local.
    const ctx = await setup({ importRates: [...flat('0.20'), { since: '2026-03-01', days: 'all', from: '00:00', to: '24:00', price: '0.25' }] }, { timezone: 'Asia/Kathmandu' });
    const out = await run(ctx, [entry('2026-02-28T23:45', '2026-03-01T00:15', KWH / 2, 0, 'Asia/Kathmandu')]);
    // 0.25 kWh x 0.20 = 0.05 on Feb 28, 0.25 kWh x 0.25 = 0.0625 on Mar 1
    assert.equal(out.entries[0].importCost, 0.1125);
    assert.deepEqual(out.days.map((d) => [d.date, d.importKwh, d.importCost]), [['2026-02-28', 0.25, 0.05], ['2026-03-01', 0.25, 0.0625]]);
    assert.equal(out.total.importCost, 0.1125);
  });

  it('a 25-hour DST day: the repeated hour is priced twice, the supply charge is one day', async () => {
    // Sydney 2026-04-05: 03:00 AEDT becomes 02:00 AEST. One day entry of 25 kWh, 1 kWh per hour;
    // 02:00-03:00 costs 1.00 and happens twice: 2 x 1.00 + 23 x 0.20 = 6.60; supply 1.00; net 7.60.
    const ctx = await setup({
      importRates: [{ since: '', days: 'all', from: '02:00', to: '03:00', price: '1.00' }, ...flat('0.20')],
      supplyCharges: [{ since: '', price: '1.00' }],
    });
    const day = entry('2026-04-05T00:00', '2026-04-06T00:00', 25 * KWH);
    assert.equal(day.duration, 25 * 3600);
    const out = await run(ctx, [day]);
    assert.equal(out.days.length, 1);
    assert.deepEqual(
      (({ date, hours, coveredHours, importKwh, importCost, supplyCharge, netCost }) => ({ date, hours, coveredHours, importKwh, importCost, supplyCharge, netCost }))(out.days[0]),
      { date: '2026-04-05', hours: 25, coveredHours: 25, importKwh: 25, importCost: 6.6, supplyCharge: 1, netCost: 7.6 },
    );
  });

  it('a 23-hour DST day: the skipped hour costs nothing, hourly entries add up to the day', async () => {
    // Sydney 2026-10-04: 02:00 AEST becomes 03:00 AEDT; 23 hourly entries of 1 kWh: 23 x 0.20 = 4.60.
    const ctx = await setup({
      importRates: [{ since: '', days: 'all', from: '02:00', to: '03:00', price: '1.00' }, ...flat('0.20')],
      supplyCharges: [{ since: '', price: '1.00' }],
    });
    const start = at('2026-10-04T00:00');
    const end = at('2026-10-05T00:00');
    assert.equal(end - start, 23 * 3600);
    const hourly = [];
    for (let t = start; t < end; t += 3600) hourly.push({ timestamp: t + 3600, duration: 3600, eRealPositive: [KWH], eRealNegative: [0], eReal: [KWH] });
    const out = await run(ctx, hourly);
    assert.equal(out.entries.length, 23);
    assert.ok(out.entries.every((e) => e.importCost === 0.2));
    assert.deepEqual([out.days[0].hours, out.days[0].importCost, out.days[0].supplyCharge, out.days[0].netCost], [23, 4.6, 1, 5.6]);
    // Half a day covered: half the supply charge (11.5 of 23 h, pro rata)
    const half = await run(ctx, hourly.slice(0, 11).concat([{ timestamp: hourly[11].timestamp - 1800, duration: 1800, eRealPositive: [KWH / 2], eRealNegative: [0], eReal: [KWH / 2] }]));
    assert.deepEqual([half.days[0].coveredHours, half.days[0].supplyCharge], [11.5, 0.5]);
  });

  it('export credit, net cost and sums that add up exactly over many entries', async () => {
    // 288 five-minute entries of 0.1 kWh import and 0.05 kWh export at 0.3 / 0.07: floating point
    // would drift; the day is exactly 28.8 kWh x 0.3 = 8.64 and 14.4 kWh x 0.07 = 1.008.
    const ctx = await setup({ importRates: flat('0.3'), exportRates: flat('0.07'), supplyCharges: [{ since: '', price: '0.99' }] });
    const start = at('2026-05-11T00:00');
    const list = Array.from({ length: 288 }, (_, i) => ({ timestamp: start + (i + 1) * 300, duration: 300, eRealPositive: [KWH / 10], eRealNegative: [KWH / 20], eReal: [KWH / 20] }));
    const out = await run(ctx, list);
    const d = out.days[0];
    assert.deepEqual([d.importKwh, d.exportKwh, d.importCost, d.exportCredit, d.supplyCharge, d.netCost], [28.8, 14.4, 8.64, 1.008, 0.99, 8.622]);
    assert.equal(out.entries.reduce((a, e) => a + Math.round(e.importCost * 1e6), 0), 8640000, 'the entries add up to the day in micro-units');
    assert.deepEqual(out.total, { coveredHours: 24, importKwh: 28.8, exportKwh: 14.4, importCost: 8.64, exportCredit: 1.008, supplyCharge: 0.99, netCost: 8.622, approximate: false });
    assert.equal(d.approximate, false, '5-minute entries never cross a midnight');
  });

  it('marks the days an entry crossing midnight was split between (a live day entry: 23:55 to 23:55)', async () => {
    const ctx = await setup({ importRates: flat('0.30') });
    const out = await run(ctx, [entry('2026-05-10T23:55', '2026-05-11T23:55', 24 * KWH)]);
    assert.deepEqual(out.days.map((d) => [d.date, d.coveredHours, d.approximate]), [['2026-05-10', 0.083333, true], ['2026-05-11', 23.916667, true]]);
    assert.deepEqual(out.days.map((d) => Math.round(d.importKwh * 1e6) / 1e6), [0.083333, 23.916667], 'the entry\'s energy shared out by time');
    assert.equal(out.total.approximate, true);
    const hours = await run(ctx, [entry('2026-05-11T00:00', '2026-05-11T01:00', KWH), entry('2026-05-11T01:00', '2026-05-11T02:00', KWH)]);
    assert.deepEqual([hours.days[0].approximate, hours.total.approximate], [false, false]);
  });

  it('kWh are not rounded: the entries of a day add up to the day', async () => {
    // 1801 J is 0.000500277… kWh: rounded to 6 decimals each of 288 entries would lose 0.000080 kWh on the day.
    const ctx = await setup({});
    const start = at('2026-05-11T00:00');
    const list = Array.from({ length: 288 }, (_, i) => ({ timestamp: start + (i + 1) * 300, duration: 300, eRealPositive: [1801], eRealNegative: [0], eReal: [1801] }));
    const out = await run(ctx, list);
    assert.equal(out.entries[0].importKwh, 1801 / KWH);
    assert.equal(out.days[0].importKwh, (288 * 1801) / KWH);
    const sum = out.entries.reduce((a, e) => a + e.importKwh, 0);
    assert.ok(Math.abs(sum - out.days[0].importKwh) < 1e-12, `entries ${sum} kWh, day ${out.days[0].importKwh} kWh`);
    assert.equal(out.total.importKwh, out.days[0].importKwh);
  });

  it('short energy and kWh-converted entries: import and export from the sign of each reading', async () => {
    const ctx = await setup({ importRates: flat('0.30'), exportRates: flat('0.10') });
    const t = at('2026-05-11T12:00');
    const short = [
      { timestamp: t + 30, duration: 30, eReal: [36000, 5] },
      { timestamp: t + 60, duration: 30, eReal: [-72000, 5] },
    ];
    const out = await run(ctx, short);
    assert.deepEqual(out.entries.map((e) => [e.importKwh, e.exportKwh]), [[0.01, 0], [0, 0.02]]);
    assert.deepEqual([out.total.importCost, out.total.exportCredit, out.total.netCost], [0.003, 0.002, 0.001]);
    const kwh = await run(ctx, [{ timestamp: t + 300, duration: 300, eRealKwh: [0.5], eRealPositiveKwh: [0.75], eRealNegativeKwh: [0.25] }]);
    assert.deepEqual([kwh.entries[0].importKwh, kwh.entries[0].exportKwh, kwh.entries[0].netCost], [0.75, 0.25, 0.2]);
  });

  it('msg.prices (spot prices) replace the import price where they cover, the tariff elsewhere', async () => {
    const ctx = await setup({ importRates: flat('0.30') });
    const t = at('2026-05-11T12:00');
    // 12:00-12:30 at 0.10, 12:30-13:00 at 0.40 (the last lasts as long as the one before); 13:00-13:30 tariff 0.30
    const prices = [{ start: t * 1000, price: 0.1 }, { start: new Date((t + 1800) * 1000).toISOString(), price: '0.40' }];
    const list = [0, 1, 2].map((i) => ({ timestamp: t + (i + 1) * 1800, duration: 1800, eRealPositive: [KWH], eRealNegative: [0], eReal: [KWH] }));
    const out = await run(ctx, list, { prices });
    assert.deepEqual(out.entries.map((e) => e.importCost), [0.1, 0.4, 0.3]);
  });

  it('a spot-only tariff (no import rows) names the time msg.prices does not cover', async () => {
    const ctx = await setup({ importRates: [] });
    const t = at('2026-05-11T12:00');
    const list = [0, 1, 2].map((i) => ({ timestamp: t + (i + 1) * 1800, duration: 1800, eRealPositive: [KWH], eRealNegative: [0], eReal: [KWH] }));
    const prices = [{ start: t, price: 0.1 }, { start: t + 1800, price: 0.2 }];
    await refused(ctx, list, /no import price for Mon 2026-05-11 13:00 \(Australia\/Sydney\)/, { prices });
  });

  it('says why when the input or the tariff cannot be priced', async () => {
    const ctx = await setup({ importRates: [{ since: '', days: 'mon-fri', from: '00:00', to: '24:00', price: '0.30' }] });
    const sat = entry('2026-01-17T10:00', '2026-01-17T10:05', 1000);
    await refused(ctx, [sat], /no import price for Sat 2026-01-17 10:00/);
    await refused(ctx, 'hello', /msg.payload must be energy entries/);
    await refused(ctx, [{ timestamp: sat.timestamp, eReal: [1] }], /has no duration/);
    await refused(ctx, [{ ...sat, groupedBy: 'phases' }], /grouped by phase/);
    await refused(ctx, [{ timestamp: sat.timestamp, duration: 300, eReal: [1] }], /channel 1|no import price/);
  });

  it('refuses an entry of more than a year, or one outside 1970 to 2100, at once (found by the fuzz: its days were never done)', async () => {
    const ctx = await setup({});
    const started = Date.now();
    // 11.6 million days, one by one: the node ran out of memory before it answered.
    await refused(ctx, [{ timestamp: 8.64e12, duration: 1e12, eReal: [1] }], /covers 11574074 days: an entry of more than a year/);
    await refused(ctx, [{ timestamp: Number.MAX_SAFE_INTEGER, duration: 300, eReal: [1] }], /outside 1970 to 2100/);
    await refused(ctx, [{ timestamp: 600, duration: 3600, eReal: [1] }], /outside 1970 to 2100/);
    assert.ok(Date.now() - started < 2000, 'refused before any day is worked out');
    // A year in one entry (a leap year, in the tariff's zone) is still priced.
    const year = await run(ctx, [entry('2024-01-01T00:00', '2025-01-01T00:00', 366 * KWH)]);
    assert.deepEqual([year.days.length, year.total.importKwh, year.total.importCost], [366, 366, 109.8]);
  });

  it('refuses a msg nested thousands of levels deep before the Catch node gets a copy of it (found by the fuzz: the copy never ended)', async () => {
    const ctx = await setup({});
    let deep = [];
    for (let i = 0; i < 3000; i += 1) deep = [deep];
    const prices = { attributes: { raw_today: [{ start: '2026-01-17T10:00:00Z', end: Infinity, value: deep }] } };
    await refused(ctx, [entry('2026-01-17T10:00', '2026-01-17T10:05', 1000)], /msg.prices is nested more than 100 levels deep/, { prices });
  });

  it('without channels picked and without an API to find the Grid channel, says how to fix it', async () => {
    const ctx = await setup({}, { channels: '' });
    await refused(ctx, [entry('2026-01-17T10:00', '2026-01-17T10:05', 1000)], /no channels picked and no device to read them from/, { deviceId: 'D630000000002' });
    const two = await setup({}, { channels: 'D630000000002_C1, 3' });
    const out = await run(two, [{ timestamp: at('2026-01-17T10:05'), duration: 300, eRealPositive: [KWH, 0, KWH], eRealNegative: [0, 0, 0], eReal: [KWH, 0, KWH] }], { deviceId: 'D630000000002' });
    assert.deepEqual([out.channels, out.total.importKwh], [['D630000000002_C1', 'D630000000002_C3'], 2]);
    await refused(two, [entry('2026-01-17T10:00', '2026-01-17T10:05', 1000)], /channel 3 is not in the entry/, { deviceId: 'D630000000002' });
  });

  it('a tariff with a bad row makes the cost node say which row', async () => {
    const ctx = await setup({ importRates: [{ since: '2026-13-01', days: 'all', from: '00:00', to: '24:00', price: '0.3' }] });
    await refused(ctx, [entry('2026-01-17T10:00', '2026-01-17T10:05', 1000)], /tariff is not usable: import price row 1: "since" must be a date/);
    assert.equal(helper.getNode('tariff').problem.includes('row 1'), true);
  });

  describe('with energy-query and the simulator', function () {
    let sim;
    const T0 = TEST_NOW_S - 12; // on a 5-minute boundary
    before(async function () { sim = await startClockedSimulator({ now: T0 }); }); // the nodes on its clock too
    after(async function () {
      helper.settings({});
      await sim.close();
    });

    it('finds the Grid connect channel and its kWh equal the sum of the API entries', async () => {
      const { EnergyApiClient } = require('../../dist/api/index.js');
      const client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full });
      const devices = await Promise.all(Object.values(SIM_DEVICES).slice(0, 3).map((id) => client.getDevice(id).catch(() => null)));
      const device = devices.find((d) => d && (d.channels || []).some((c) => c.categoryId === 1));
      const grid = device.channels.findIndex((c) => c.categoryId === 1);
      const api = apiConfig(sim);
      const flow = [
        api.node,
        { id: 'tariff', type: 'energy-tariff', currency: 'AUD', timezone: '', importRates: flat('0.30'), exportRates: flat('0.05'), supplyCharges: [{ since: '', price: '1.20' }] },
        { id: 'q', type: 'energy-query', api: 'api', deviceId: device.id, kind: 'long', query: 'range', fromTs: String(T0 - 2 * 86400), toTs: String(T0), granularity: 'hour', timezone: '', convert: '', output: 'entries', wires: [['cost', 'raw']] },
        { id: 'raw', type: 'helper' },
        { id: 'cost', type: 'energy-cost', tariff: 'tariff', api: 'api', channels: '', timezone: '', wires: [['out']] },
        { id: 'out', type: 'helper' },
      ];
      await load(nodes, flow, api.credentials);
      const raw = nextMessage(helper.getNode('raw'));
      const out = nextMessage(helper.getNode('out'));
      helper.getNode('q').receive({});
      const entries = (await raw).payload;
      const result = (await out).payload;
      const sumJ = (field) => entries.reduce((a, e) => a + Math.abs(e[field][grid]), 0);
      assert.ok(entries.length >= 47, `${entries.length} entries`);
      assert.deepEqual(result.channels, [`${device.id}_C${grid + 1}`]);
      assert.equal(result.timezone, device.timezone);
      assert.equal(result.total.importKwh, sumJ('eRealPositive') / KWH);
      assert.equal(result.total.exportKwh, sumJ('eRealNegative') / KWH);
      assert.equal(Math.round(result.total.importCost * 1e6), result.days.reduce((a, d) => a + Math.round(d.importCost * 1e6), 0));
      assert.ok(result.days.length >= 2 && result.days.length <= 3);
      assertNoKey(sim.keys.full, result, loggedText());
      await client.close();
    });

    it('days and prices use one zone: the node\'s, else the tariff\'s, else the device\'s, else msg.timezone, whether or not channels are picked', async () => {
      const device = await (async () => {
        const { EnergyApiClient } = require('../../dist/api/index.js');
        const client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full });
        try { return await client.getDevice(SIM_DEVICES.switch6M3SW); } finally { await client.close(); }
      })();
      assert.notEqual(device.timezone, 'UTC');
      const api = apiConfig(sim);
      const zoneWith = async (tariffZone, nodeZone) => {
        await helper.unload();
        await load(nodes, [
          api.node,
          { id: 'tariff', type: 'energy-tariff', currency: 'AUD', timezone: tariffZone, importRates: flat('0.30'), exportRates: [], supplyCharges: [] },
          { id: 'cost', type: 'energy-cost', tariff: 'tariff', api: 'api', channels: '1', timezone: nodeZone, wires: [['out']] },
          { id: 'out', type: 'helper' },
        ], api.credentials);
        const out = nextMessage(helper.getNode('out'));
        helper.getNode('cost').receive({ payload: [entry('2026-05-11T10:00', '2026-05-11T10:05', 1000)], deviceId: device.id, timezone: 'UTC' });
        return (await out).payload.timezone;
      };
      assert.equal(await zoneWith('', ''), device.timezone, 'the device before msg.timezone, with channels picked too');
      assert.equal(await zoneWith('Europe/Berlin', ''), 'Europe/Berlin');
      assert.equal(await zoneWith('Europe/Berlin', 'Asia/Kathmandu'), 'Asia/Kathmandu');
    });
  });

  describe('yesterday\'s cost from the simulator on a clock the test sets', function () {
    let sim;
    before(async function () { sim = await startClockedSimulator(); });
    after(async function () {
      helper.settings({});
      await sim.close();
    });

    async function yesterday(granularity) {
      const api = apiConfig(sim);
      await load(nodes, [
        api.node,
        { id: 'tariff', type: 'energy-tariff', currency: 'AUD', timezone: '', importRates: flat('0.30'), exportRates: flat('0.05'), supplyCharges: [] },
        { id: 'q', type: 'energy-query', api: 'api', deviceId: SIM_DEVICES.switch6M3SW, kind: 'long', query: 'range', fromTs: 'yesterday', toTs: 'today', granularity, timezone: '', convert: '', output: 'entries', wires: [['cost']] },
        { id: 'cost', type: 'energy-cost', tariff: 'tariff', api: 'api', channels: '', timezone: '', wires: [['out']] },
        { id: 'out', type: 'helper' },
      ], api.credentials);
      const out = nextMessage(helper.getNode('out'));
      helper.getNode('q').receive({});
      const msg = await out;
      await helper.unload();
      return msg;
    }

    it('is exact from 5-minute entries (one day, 24 hours covered); a day entry of the live service is marked approximate', async () => {
      const exact = await yesterday('5m');
      const date = DateTime.fromSeconds(exact.fromTs, { zone: SYD }).toISODate();
      assert.deepEqual(exact.payload.days.map((d) => [d.date, d.coveredHours, d.approximate]), [[date, 24, false]]);
      assert.equal(exact.payload.entries.length, 288);
      const byDay = await yesterday('day');
      assert.deepEqual(byDay.period, { fromTs: exact.fromTs - 300, toTs: exact.toTs - 300, shiftS: -300 });
      assert.deepEqual(byDay.payload.days.map((d) => [d.coveredHours, d.approximate]), [[0.083333, true], [23.916667, true]], '23:55 to 23:55: five minutes of the day before');
    });
  });
});
