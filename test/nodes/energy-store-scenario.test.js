'use strict';
// Issue 19's day: an energy-query in follow mode (long energy, 5-minute, every 15 simulated minutes) into an
// energy-store on a real PostgreSQL, with the database stopped for 2 hours and Node-RED stopped for 6 hours in
// between; after the restart the store's `resume` tells the query where its history ends. At the end the database
// must hold every entry the service has for the day once (0 missing, 0 duplicate rows) and each channel's kWh must
// equal the service's long-energy sum within 0.1 Wh. All on the simulator's clock, which the test steps.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, statusesOf, until, TEST_NOW_S,
} = require('../support/env');
const { startPostgres, POSTGRES_BIN_DIR } = require('../support/postgres-server');
const { requireServer, tempDir, sumByChannel, serviceClient } = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');

const DEVICE = SIM_DEVICES.switch6M3SW;
const STEP_S = 900;
const STEPS = 96; // a day
const DB_DOWN = [20, 28]; // steps: 2 hours
const RED_DOWN = [50, 74]; // steps: 6 hours

describe('energy-store: a day of follow mode through a database outage and a Node-RED restart', function () {
  this.timeout(180000);
  let sim;
  let pg;
  let userDir;

  before(async function () {
    requireServer(this, POSTGRES_BIN_DIR, 'PostgreSQL (postgresql)');
    pg = await startPostgres();
    sim = await startClockedSimulator({ tps: 50 });
    userDir = tempDir();
    useSimClock(sim, { userDir });
    await new Promise((resolve) => startServer(resolve));
  });
  after(async function () {
    await stopServer();
    await sim?.close();
    await pg?.destroy();
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });


  it('ends with 0 missing and 0 duplicate rows, and every channel\'s kWh equal to the service\'s within 0.1 Wh', async function () {
    const startTs = TEST_NOW_S;
    const flow = [
      // Follows from its first trigger (15 minutes back, the day's start): without the store's resume (output 3,
      // the query's first trigger after a restart) the 6 hours Node-RED was stopped would be missing.
      { id: 'query', type: 'energy-query', api: 'api', deviceId: DEVICE, kind: 'long', query: 'range', granularity: '5m', fromTs: '-15m', toTs: 'now', output: 'entries', follow: true, catchUp: 1, wires: [['store']] },
      { id: 'store', type: 'energy-store', backend: 'postgres', connection: pg.connection, retention: 0, queueLimit: 100, wires: [['written'], ['read'], ['query']] },
    ];
    const credentials = { api: { apiKey: sim.keys.full }, store: { password: pg.password } };
    let nodes = await flowWith(sim, flow, { credentials, config: { tps: 50 } });
    let written = messagesOf(nodes.written);
    let statuses = statusesOf(nodes.store);
    const states = [];
    const errors = [];

    const step = async () => {
      sim.control.setClock({ advance: STEP_S });
      const before = written.length;
      nodes.query.receive({});
      // Three new 5-minute entries every 15 minutes: the store answers each follow msg once.
      await until(() => written.length > before || errors.length, 20000, 'the store answered');
      states.push(written[written.length - 1].payload.state);
    };

    for (let i = 0; i < STEPS; i += 1) {
      if (i === DB_DOWN[0]) await pg.stop();
      if (i === DB_DOWN[1]) await pg.start();
      if (i === RED_DOWN[0]) await helper.unload(); // Node-RED stops
      if (i >= RED_DOWN[0] && i < RED_DOWN[1]) {
        sim.control.setClock({ advance: STEP_S });
        continue;
      }
      if (i === RED_DOWN[1]) {
        // Node-RED starts again: same flow, same user directory; the store tells the query where to resume.
        nodes = await flowWith(sim, flow, { credentials, config: { tps: 50 } });
        written = messagesOf(nodes.written);
        statuses = statusesOf(nodes.store);
        sim.control.setClock({ advance: STEP_S });
        const before = written.length;
        assert.deepEqual(nodes.query.context().keys(), [], 'Node-RED kept no follow state: only the store knows where to resume');
        nodes.store.receive({ topic: 'resume' });
        await until(() => written.length > before, 20000, 'the resumed follow wrote the gap');
        states.push(written[written.length - 1].payload.state);
        continue;
      }
      await step();
      if (nodes.caught.received) errors.push(nodes.caught.received);
    }
    const endTs = sim.control.now();
    // Whatever is still queued is written (the retry after the outage runs on its own timer).
    await until(async () => (await pg.query("SELECT coalesce(max(newest), 0)::bigint AS n FROM energy_streams"))[0].n >= endTs - 600, 30000, 'the queue drained');

    assert.ok(states.includes('queued'), 'entries were queued while the database was down');
    assert.ok(statuses.length > 0);
    const caught = messagesOf(nodes.caught);
    assert.deepEqual(caught, [], 'no error reached Catch');

    const service = await (async () => {
      const client = serviceClient(sim);
      try {
        // The follow emits every entry stamped from startTs on; read from a period earlier so the entry whose period
        // straddles startTs is there whichever way the service selects by a range's ends.
        return (await client.getLongEnergy(DEVICE, { fromTs: startTs - 300, toTs: endTs, granularity: '5m' })).filter((e) => e.timestamp >= startTs);
      } finally {
        await client.close();
      }
    })();
    const rows = await pg.query("SELECT ts::bigint AS ts, channel, e_real FROM energy WHERE device = 'D630000000002' AND kind = 'long' AND granularity = '5m' ORDER BY ts, channel");
    const stored = new Map();
    for (const r of rows) {
      const key = `${r.ts}/${r.channel}`;
      assert.ok(!stored.has(key), `duplicate row ${key}`);
      stored.set(key, r);
    }
    const expected = new Set(service.flatMap((e) => e.eReal.map((_, c) => `${e.timestamp}/${c + 1}`)));
    const missing = [...expected].filter((k) => !stored.has(k));
    const extra = [...stored.keys()].filter((k) => !expected.has(k));
    assert.deepEqual({ missing: missing.length, extra: extra.length }, { missing: 0, extra: 0 }, `missing ${missing.slice(0, 5)}; extra ${extra.slice(0, 5)}`);
    assert.equal(rows.length, service.length * 6);
    assert.ok(service.length >= 280, `a day of 5-minute entries (${service.length})`);

    const serviceWh = sumByChannel(service).map((j) => j / 3600);
    const storedWh = [];
    for (const r of rows) storedWh[r.channel - 1] = (storedWh[r.channel - 1] ?? 0) + Number(r.e_real) / 3600;
    serviceWh.forEach((wh, c) => assert.ok(Math.abs(wh - storedWh[c]) <= 0.1, `channel ${c + 1}: stored ${storedWh[c]} Wh, service ${wh} Wh`));
  });
});
