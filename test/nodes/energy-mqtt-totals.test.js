'use strict';
// energy-mqtt's energy totals (issue 18): counted from whole 5-minute long-energy records, each once, late
// ones when they come; over a simulated day equal to the API's long-energy sums within 1 Wh; never lower
// across an outage of the device, a restart of Node-RED (persistent context store) and of the broker.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { helper, load } = require('../support/env');
const { EnergyApiClient } = require('../../dist/api');
const { DEV, NODES, until, useMqttSuite } = require('./energy-mqtt-fixtures');

const totals = require('../../dist/nodes/energy-mqtt/totals.js');

const HOUR = 3600;
const KWH_J = 3_600_000;
/** The totals of the solar home (6 channels; Grid and Solar), as published under the base topic. */
const TOTALS = [
  ...[1, 2, 3, 4, 5, 6].flatMap((n) => [[`channel/${n}/imported`, `c${n}_imported`], [`channel/${n}/exported`, `c${n}_exported`]]),
  ['site/grid_imported', 'grid_imported'], ['site/grid_exported', 'grid_exported'], ['site/solar_produced', 'solar_produced'],
];

describe('energy-mqtt totals: counting 5-minute records (pure)', function () {
  const layout = { channels: [{ index: 0, number: 1 }, { index: 1, number: 2 }], grid: [0], solar: [1] };
  const record = (ts, grid, solar, duration = 300) => ({
    timestamp: ts, duration, eReal: [grid, solar], eRealPositive: [Math.max(grid, 0), Math.max(solar, 0)], eRealNegative: [Math.max(-grid, 0), Math.max(-solar, 0)],
  });
  const T = 1_800_000_000 - (1_800_000_000 % 300);

  it('counts each record once, however often the reads return it, and skips partial entries', function () {
    let state = totals.freshTotals(T);
    ({ state } = totals.countRecords(state, [record(T, 100, 0), record(T + 300, 200, 0), record(T + 600, -50, 400)], layout, T + 600));
    const again = totals.countRecords(state, [record(T + 300, 200, 0), record(T + 600, -50, 400), record(T + 900, 999, 0, 150)], layout, T + 1000);
    assert.equal(again.counted, 0);
    assert.deepEqual(again.state.joules, { c1_imported: 200, c1_exported: 50, c2_imported: 400, c2_exported: 0, grid_imported: 200, grid_exported: 50, solar_produced: 400 });
    assert.equal(again.state.through, T + 600);
  });

  it('awaits a record missing between counted ones, adds it once when it comes, and gives it up after a day', function () {
    let { state } = totals.countRecords(totals.freshTotals(T), [record(T + 300, 10, 0), record(T + 900, 30, 0)], layout, T + 900);
    assert.deepEqual(state.gaps, [T + 600]);
    assert.equal(totals.readRange(state, T + 1000).fromTs, T + 300, 'the next read starts a record before the oldest awaited');
    let step = totals.countRecords(state, [record(T + 600, 20, 0), record(T + 900, 30, 0)], layout, T + 1000);
    assert.equal(step.counted, 1);
    assert.equal(step.state.joules.grid_imported, 60);
    assert.deepEqual(step.state.gaps, []);
    step = totals.countRecords(step.state, [record(T + 600, 20, 0)], layout, T + 2000);
    assert.equal(step.counted, 0, 'never twice');
    ({ state } = totals.countRecords(totals.freshTotals(T), [record(T + 300, 10, 0), record(T + 900, 30, 0)], layout, T + 900));
    assert.deepEqual(totals.countRecords(state, [], layout, T + 600 + totals.LATE_HORIZON_S).state.gaps, [], 'given up after the horizon');
    assert.equal(totals.hasNews(totals.freshTotals(T), T + 299), false, 'no read before a new record can exist');
    assert.equal(totals.hasNews(totals.freshTotals(T), T + 300), true);
  });

  it('nets a multi-phase grid across its phases per 5-minute record, as a meter bills; one phase keeps its own parts', function () {
    const threePhase = { channels: [0, 1, 2].map((index) => ({ index, number: index + 1 })), grid: [0, 1, 2], solar: [] };
    const entry = (ts, phases) => ({
      timestamp: ts, duration: 300, eReal: phases.map(([pos, neg]) => pos - neg), eRealPositive: phases.map(([pos]) => pos), eRealNegative: phases.map(([, neg]) => neg),
    });
    // Phase 1 imports 100 J while phase 2 exports 40 J: the site imported 60 J. Then the phases export more than they import.
    const { state } = totals.countRecords(totals.freshTotals(T), [entry(T + 300, [[100, 0], [0, 40], [0, 0]]), entry(T + 600, [[10, 0], [0, 70], [5, 15]])], threePhase, T + 600);
    assert.equal(state.joules.grid_imported, 60);
    assert.equal(state.joules.grid_exported, 70);
    assert.deepEqual([state.joules.c1_imported, state.joules.c2_exported], [110, 110], 'each phase\'s own totals keep its parts');
    // One grid channel: its positive and negative parts within the record, as measured.
    const single = totals.countRecords(totals.freshTotals(T), [record(T + 300, 0, 0)].map((e) => ({ ...e, eReal: [-20, 0], eRealPositive: [30, 0], eRealNegative: [50, 0] })), layout, T + 300);
    assert.deepEqual([single.state.joules.grid_imported, single.state.joules.grid_exported], [30, 50]);
  });

  it('publishes kWh with 4 decimals, so rounding never makes a total go down', function () {
    assert.equal(totals.kwh(1_234_567), '0.3429');
    let last = -1;
    for (let j = 0; j < 10_000; j += 97) {
      const v = Number(totals.kwh(j));
      assert.ok(v >= last);
      last = v;
    }
  });
});

describe('energy-mqtt totals against the API over a simulated day (real Mosquitto, simulator)', function () {
  this.timeout(60000);
  const f = useMqttSuite();
  const contexts = helper._context;
  let dir;

  /** The published total of `rest`, in J. */
  const publishedJ = (rest) => Number(f.state(rest)) * KWH_J;
  /** The newest record the totals count (their attributes). */
  const countedThrough = () => JSON.parse(f.state('energy/attributes')).counted_through_ts;

  /** Sums of the simulator's 5-minute records stamped in (from, through], by total key, in J. */
  async function apiSums(from, through) {
    const client = new EnergyApiClient({ baseUrl: f.sim.baseUrl, apiKey: f.sim.keys.full, tps: 100, now: () => f.sim.control.now() * 1000 });
    try {
      const entries = await client.getLongEnergy(DEV, { fromTs: from - 300, toTs: through + 300, granularity: '5m' });
      const records = entries.filter((e) => e.timestamp > from && e.timestamp <= through && e.duration === 300);
      const layout = { channels: [1, 2, 3, 4, 5, 6].map((number, index) => ({ index, number })), grid: [0], solar: [1] };
      const sums = totals.countRecords({ through: from, gaps: [], joules: {} }, records, layout, f.sim.control.now()).state.joules;
      return { sums, records: records.length };
    } finally {
      await client.close();
    }
  }

  /** Every total's history on the broker goes up or stays (HA reads a decrease as a meter reset). */
  function assertNeverDecreased() {
    for (const [rest] of TOTALS) {
      const values = f.ha.history(f.topic(rest)).map((m) => Number(m.payload));
      for (let i = 1; i < values.length; i += 1) assert.ok(values[i] >= values[i - 1], `${rest} went from ${values[i - 1]} down to ${values[i]}`);
    }
  }

  async function assertTotalsEqualApi(from) {
    const through = countedThrough();
    const { sums, records } = await apiSums(from, through);
    for (const [rest, key] of TOTALS) {
      const diff = Math.abs(publishedJ(rest) - (sums[key] ?? 0));
      assert.ok(diff <= 3600, `${rest}: published ${f.state(rest)} kWh, the records sum to ${((sums[key] ?? 0) / KWH_J).toFixed(4)} kWh (${diff.toFixed(0)} J apart)`);
    }
    return records;
  }

  it('over a day with a two-hour outage of the device: equal to the long-energy sums within 1 Wh, offline during the outage, late records added once', async function () {
    const ctx = await f.setup({ interval: 0, energyInterval: 300 });
    await f.send(ctx);
    await until(() => f.state('energy/attributes') !== undefined, 'the first totals');
    const from = countedThrough();
    const start = f.sim.control.now();
    f.sim.control.setOutage(DEV, { from: start + 6 * HOUR, to: start + 8 * HOUR });
    const availability = [];
    for (let hour = 1; hour <= 24; hour += 1) {
      f.step(HOUR);
      await f.send(ctx);
      availability.push([hour, f.state('availability')]);
    }
    assert.deepEqual(availability.filter(([, a]) => a === 'offline').map(([h]) => h), [7], 'offline once its last report is older than 900 s, online again after');
    const lateOnes = f.ha.history(f.topic('energy/attributes')).map((m) => JSON.parse(m.payload).counted_through_ts);
    assert.ok(lateOnes.includes(start + 6 * HOUR - (start % 300)), 'the totals stopped at the outage');
    const records = await assertTotalsEqualApi(from);
    assert.equal(records, 24 * 12, 'a day of 5-minute records, the outage\'s two hours included');
    assert.ok(publishedJ('site/solar_produced') > 0 && publishedJ('site/grid_exported') > 0 && publishedJ('site/grid_imported') > 0);
    assertNeverDecreased();

    // Nothing new: no read, nothing counted twice.
    const longReads = f.requests().filter((r) => r.path.includes('/long-energy/')).length;
    const before = f.state('site/grid_imported');
    await f.send(ctx);
    assert.equal(f.requests().filter((r) => r.path.includes('/long-energy/')).length, longReads);
    assert.equal(f.state('site/grid_imported'), before);
  });

  describe('restarts', function () {
    const useStore = (enabled) => f.useSettings(enabled ? { contextStorage: { default: { module: 'localfilesystem', config: { dir, flushInterval: 0 } } } } : {});
    beforeEach(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-mqtt-ctx-'));
    });
    afterEach(async function () {
      await helper.unload();
      await contexts.close();
      f.useSettings();
      contexts.init(helper._settings);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Starts Node-RED as its own start does: the context stores loaded before the node is created (the
     * config nodes first, then the energy-mqtt node deployed), its module loaded afresh so nothing is kept
     * in memory from the earlier start.
     */
    async function startNodeRed() {
      const moduleDir = `${path.sep}dist${path.sep}nodes${path.sep}energy-mqtt${path.sep}`;
      for (const file of Object.keys(require.cache)) if (file.includes(moduleDir)) delete require.cache[file];
      const { flow, credentials } = f.flow({ interval: 0, energyInterval: 300 });
      await load(NODES(), flow.filter((n) => n.id !== f.id), credentials);
      await contexts.load();
      await helper._redNodes.setFlows(flow, credentials, 'full');
      await until(() => Boolean(helper.getNode(f.id)), 'the energy-mqtt node deployed');
      // Until the broker node is connected it queues what the node publishes, and f.send cannot tell when it arrives.
      await until(() => Boolean(helper.getNode('broker')?.connected), 'the broker connection');
      return f.watch();
    }

    /** Stops the process: flows stopped, the store flushed and closed, the runtime unloaded. */
    async function stopNodeRed() {
      await helper._redNodes.stopFlows();
      await contexts.close();
      contexts.init(helper._settings);
      await helper.unload();
    }

    /** Two hours counted, Node-RED stopped for an hour and started again; returns the node and where counting began. */
    async function runAcrossRestart() {
      let ctx = await startNodeRed();
      await f.send(ctx);
      await until(() => f.state('energy/attributes') !== undefined, 'the first totals');
      const from = countedThrough();
      for (let hour = 1; hour <= 2; hour += 1) {
        f.step(HOUR);
        await f.send(ctx);
      }
      const beforeRestart = publishedJ('channel/6/imported');
      await stopNodeRed();
      f.step(HOUR);
      ctx = await startNodeRed();
      await f.send(ctx);
      return { ctx, from, beforeRestart };
    }

    it('control: without a persistent store a restart of Node-RED starts the totals again from 0 (the module is really fresh)', async function () {
      useStore(false);
      const { beforeRestart } = await runAcrossRestart();
      assert.ok(publishedJ('channel/6/imported') < beforeRestart, 'HA would see a meter reset');
    });

    it('never lower across a restart of Node-RED and of the broker; the broker going away is one warning, and everything is sent again when it is back', async function () {
      useStore(true);
      const { ctx, from, beforeRestart } = await runAcrossRestart();
      assert.ok(publishedJ('channel/6/imported') > beforeRestart, 'the hour Node-RED was down is counted on top');
      const files = fs.readdirSync(dir, { recursive: true }).filter((name) => String(name).endsWith('.json'));
      assert.ok(files.some((name) => fs.readFileSync(path.join(dir, String(name)), 'utf8').includes('energyMqttTotals')), 'the totals are on disk');

      // The broker stops: one warning while the node goes on reading; back, it sends discovery and the totals again.
      const configs = f.ha.history(f.configTopic()).length;
      await f.broker.stop();
      await until(() => ctx.statuses.some((s) => /brokerDown/.test(s.text)), 'the broker status');
      for (let hour = 1; hour <= 3; hour += 1) {
        f.step(HOUR);
        await f.send(ctx);
      }
      assert.equal(ctx.warnings.filter((w) => /errors\.brokerDown/.test(w)).length, 1, 'one warning for the whole outage');
      const counted = countedThrough();
      await f.broker.start();
      await until(() => f.ha.history(f.configTopic()).length > configs, 'discovery again', 10000);
      await until(() => countedThrough() > counted, 'the totals counted while the broker was away');
      await until(() => ctx.statuses.at(-1).fill === 'green', 'the status back to green');
      assert.equal(ctx.warnings.filter((w) => /errors\.brokerDown/.test(w)).length, 1);

      f.step(HOUR);
      await f.send(ctx);
      await assertTotalsEqualApi(from);
      assertNeverDecreased();
    });
  });
});
