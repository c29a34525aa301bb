'use strict';
// The history import's run (src/domain/site/ha-history-import.ts) against the simulator over real HTTP, with Home
// Assistant's side played by a strict double of its websocket commands as HA 2025.4's recorder/websocket_api.py
// defines them (the metadata schema refuses unknown keys; an import upserts by statistic and start). The real HA is
// in test/ha/; here are what it cannot be made to do on demand: go away mid-import, lack the recorder.
const assert = require('node:assert/strict');
const { startSimulator, SIM_DEVICES } = require('../../../dist/simulator');
const { EnergyApiClient } = require('../../../dist/api');
const { importHistory } = require('../../../dist/domain/site/ha-history-import.js');
const { countRecords, freshTotals, energyLayout, recordEnergy } = require('../../../dist/domain/site/energy-totals.js');
const { HaError } = require('../../../dist/ha/websocket.js');

const HOUR = 3600;
const DEV = SIM_DEVICES.switch6M3SW;
const NOW = Date.UTC(2026, 5, 15, 12, 7, 0) / 1000;
const LIVE_FROM = NOW - 2 * 86400 - 1500; // energy-mqtt first ran then
const TOTALS = ['grid_imported', 'grid_exported', 'solar_produced', 'c3_imported'];
const ZERO = 0.0043; // the live total when HA first saw it (kWh): its sums start there
const METADATA_KEYS = ['has_mean', 'has_sum', 'name', 'source', 'statistic_id', 'unit_of_measurement'];

/** HA's side: the registry, the recorder's statistics (hourly rows by statistic), and its websocket commands. */
function fakeHa({ hourly, unit = 'kWh', recorder = true, failAtImport }) {
  let imports = 0;
  let gone = false;
  const calls = [];
  const reads = [];
  const ha = {
    version: '2025.4.4',
    calls,
    reads,
    hourly,
    async call(msg) {
      calls.push(msg.type);
      if (gone) throw new HaError('closed', 'Home Assistant closed the connection');
      switch (msg.type) {
        case 'config/entity_registry/list':
          return TOTALS.map((t) => ({ platform: 'mqtt', unique_id: `${DEV}_${t}`, entity_id: `sensor.home_${t}`, disabled_by: null }));
        case 'recorder/get_statistics_metadata':
          if (!recorder) throw new HaError('unknown_command', 'Home Assistant: Unknown command. (unknown_command)');
          return msg.statistic_ids.filter((id) => hourly.has(id)).map((id) => ({ statistic_id: id, statistics_unit_of_measurement: unit, has_sum: true, source: 'recorder' }));
        case 'recorder/statistics_during_period': {
          const from = Date.parse(msg.start_time) / 1000;
          const to = msg.end_time ? Date.parse(msg.end_time) / 1000 : Infinity;
          reads.push(to - from);
          if (msg.period === '5minute') return {};
          return Object.fromEntries(msg.statistic_ids.filter((id) => hourly.has(id))
            .map((id) => [id, [...hourly.get(id).values()].filter((r) => r.start >= from && r.start < to).sort((a, b) => a.start - b.start).map((r) => ({ ...r, start: r.start * 1000 }))]));
        }
        case 'recorder/import_statistics': {
          imports += 1;
          if (failAtImport !== undefined && imports >= failAtImport) {
            gone = true;
            throw new HaError('closed', 'Home Assistant closed the connection');
          }
          assert.deepEqual(Object.keys(msg.metadata).sort(), METADATA_KEYS, 'HA 2025.4 takes exactly these metadata keys');
          const rows = hourly.get(msg.metadata.statistic_id) ?? new Map();
          for (const r of msg.stats) {
            const start = Date.parse(r.start) / 1000;
            assert.equal(start % HOUR, 0);
            rows.set(start, { start, state: r.state, sum: r.sum });
          }
          hourly.set(msg.metadata.statistic_id, rows);
          return null;
        }
        default:
          throw new HaError('unknown_command', `Unknown command ${msg.type}`);
      }
    },
    close() {},
  };
  return ha;
}

describe('Home Assistant history import: a run against the simulator, HA\'s side a strict double', function () {
  this.timeout(60000);
  let sim;
  let client;
  let device;
  let records;
  let totals;
  let layout;

  before(async function () {
    sim = await startSimulator({ port: 0, host: '127.0.0.1', now: NOW });
    sim.control.setLimits({ tps: 100 });
    client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 100, now: () => sim.control.now() * 1000 });
    device = await client.getDevice(DEV);
    layout = energyLayout(device);
    records = await client.getLongEnergy(DEV, { fromTs: NOW - 12 * 86400, toTs: NOW + 300, granularity: '5m' });
    totals = countRecords(freshTotals(LIVE_FROM), records, layout, NOW).state;
  });
  after(async function () { await sim?.close(); });

  const wh = (total, from, to) => records.filter((r) => r.timestamp > from && r.timestamp <= to).reduce((a, r) => a + (recordEnergy(r, layout)[total] ?? 0), 0) / 3600;
  /** HA's own hourly rows, as it compiles them from the live sensor (here without the read's lag), but for an outage. */
  function ownRows() {
    const hourly = new Map();
    for (const total of TOTALS) {
      const rows = new Map();
      const first = Math.ceil(LIVE_FROM / HOUR) * HOUR;
      let kwh = wh(total, LIVE_FROM, first) / 1000;
      for (let s = first; s + HOUR <= Math.floor(NOW / HOUR) * HOUR; s += HOUR) {
        kwh += wh(total, s, s + HOUR) / 1000;
        const outage = s >= NOW - 20 * HOUR && s < NOW - 17 * HOUR;
        if (!outage) rows.set(s, { start: s, state: kwh, sum: kwh - ZERO });
      }
      hourly.set(`sensor.home_${total}`, rows);
    }
    return hourly;
  }
  const host = (ha, store) => ({
    client, call: {}, nowMs: () => sim.control.now() * 1000, ha,
    loadResume: async (id) => store.get(id),
    saveResume: async (id, r) => { if (r === undefined) store.delete(id); else store.set(id, JSON.parse(JSON.stringify(r))); },
    progress: () => undefined,
  });
  const devices = () => [{ device, sensors: TOTALS.map((t) => ({ total: t, uniqueId: `${DEV}_${t}` })), totals: () => totals }];
  const fromS = NOW - 10 * 86400;
  const requests = () => sim.control.log().filter((r) => r.path.includes('/long-energy/')).length;

  it('every hour of the range is there, each hour\'s change is the service\'s energy of that hour (the outage too), and a second run writes nothing', async function () {
    const ha = fakeHa({ hourly: ownRows() });
    const before = requests();
    const outcome = await importHistory(host(ha, new Map()), devices(), fromS);
    assert.equal(requests() - before, 2, 'ten days: two requests of 7 days');
    assert.equal(outcome.requests, 2);
    assert.ok(ha.reads.every((s) => s <= 30 * 86400), 'HA\'s statistics read in pieces of at most 30 days');
    for (const total of TOTALS) {
      const rows = ha.hourly.get(`sensor.home_${total}`);
      const end = Math.floor(NOW / HOUR) * HOUR - HOUR;
      for (let s = Math.floor(fromS / HOUR) * HOUR + HOUR; s <= end; s += HOUR) {
        assert.ok(rows.has(s) && rows.has(s - HOUR), `${total} ${new Date(s * 1000).toISOString()}`);
        const change = (rows.get(s).sum - rows.get(s - HOUR).sum) * 1000;
        assert.ok(Math.abs(change - wh(total, s, s + HOUR)) < 0.05, `${total} ${new Date(s * 1000).toISOString()}: ${change} Wh, service ${wh(total, s, s + HOUR)}`);
      }
    }
    const snapshot = JSON.stringify([...ha.hourly].map(([id, m]) => [id, [...m.values()]]));
    const again = await importHistory(host(ha, new Map()), devices(), fromS);
    assert.deepEqual(again.imported, {});
    assert.equal(again.requests, 0, 'nothing missing: no request');
    assert.equal(JSON.stringify([...ha.hourly].map(([id, m]) => [id, [...m.values()]])), snapshot);
  });

  it('HA going away mid-import: the run fails with its error; the next one resumes from where it got and ends as an uninterrupted one', async function () {
    const whole = fakeHa({ hourly: ownRows() });
    await importHistory(host(whole, new Map()), devices(), fromS);
    const store = new Map();
    const cut = fakeHa({ hourly: ownRows(), failAtImport: 6 });
    await assert.rejects(importHistory(host(cut, store), devices(), fromS), (err) => err instanceof HaError && err.code === 'closed');
    assert.ok(store.get(DEV), 'the resume point after the first window');
    const before = requests();
    const back = fakeHa({ hourly: cut.hourly });
    await importHistory(host(back, store), devices(), fromS);
    assert.equal(requests() - before, 1, 'only the window not done');
    assert.equal(store.size, 0, 'done: no resume point left');
    for (const total of TOTALS) {
      const a = [...whole.hourly.get(`sensor.home_${total}`).values()].sort((x, y) => x.start - y.start);
      const b = [...back.hourly.get(`sensor.home_${total}`).values()].sort((x, y) => x.start - y.start);
      assert.deepEqual(b, a, `${total}: as if never cut`);
    }
  });

  it('an HA without the recorder, a statistic kept in Wh: refused with a clear error before anything is written', async function () {
    const none = fakeHa({ hourly: ownRows(), recorder: false });
    await assert.rejects(importHistory(host(none, new Map()), devices(), fromS), /Home Assistant has no recorder/);
    assert.ok(!none.calls.includes('recorder/import_statistics'));
    const wh = fakeHa({ hourly: ownRows(), unit: 'Wh' });
    await assert.rejects(importHistory(host(wh, new Map()), devices(), fromS), /keeps sensor\.home_grid_imported in Wh, not in kWh.*nothing was imported/);
    assert.ok(!wh.calls.includes('recorder/import_statistics'));
  });

  it('a sensor HA has no statistics of yet waits (nothing imported for it, no request)', async function () {
    const ha = fakeHa({ hourly: new Map() });
    const before = requests();
    const outcome = await importHistory(host(ha, new Map()), devices(), fromS);
    assert.equal(requests(), before);
    assert.deepEqual(outcome.imported, {});
    assert.equal(Object.keys(outcome.waiting).length, TOTALS.length);
  });
});
