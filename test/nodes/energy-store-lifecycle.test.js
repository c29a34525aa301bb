'use strict';
// energy-store under redeploys: stopped mid-write, mid-read and while its database is away, 20 times, it leaves no
// timer, worker thread or socket behind, sends nothing after close, and every entry it took is in the database once
// (what was still queued at a stop is written at the next start).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, useSimClock, startServer, stopServer, flowWith, messagesOf, until, TEST_NOW_S,
} = require('../support/env');
const { startPostgres, POSTGRES_BIN_DIR } = require('../support/postgres-server');
const { HAS_SQLITE, requireServer, tempDir, serviceClient } = require('../support/store');
const { SIM_DEVICES } = require('../../dist/simulator');
const { skipBecause } = require('../support/skip');

const DEVICE = SIM_DEVICES.switch6M3SW;
const REDEPLOYS = 20;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function countResources() {
  const counts = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

describe('energy-store: redeploys leave nothing behind and lose nothing', function () {
  this.timeout(120000);
  let sim;
  let pg;
  let userDir;
  let week;

  before(async function () {
    requireServer(this, POSTGRES_BIN_DIR, 'PostgreSQL (postgresql)');
    pg = await startPostgres();
    sim = await startClockedSimulator();
    const client = serviceClient(sim);
    week = await client.getLongEnergy(DEVICE, { fromTs: TEST_NOW_S - 7 * 86400, toTs: TEST_NOW_S, granularity: '5m' });
    await client.close();
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


  for (const backend of ['postgres', 'sqlite']) {
    it(`${backend}: ${REDEPLOYS} redeploys mid-write and mid-read`, async function () {
      if (backend === 'sqlite' && !HAS_SQLITE) skipBecause(this, `node:sqlite needs Node.js 22.13 or later (this is ${process.version})`);
      const props = backend === 'postgres'
        ? { backend, connection: pg.connection }
        : { backend, file: path.join(userDir, 'lifecycle.sqlite') };
      const flow = [{ id: 'store', type: 'energy-store', retention: 30, queueLimit: 100, ...props, wires: [['written'], ['read'], ['resume']] }];
      const credentials = { api: { apiKey: sim.keys.full }, store: { password: pg.password } };
      const late = [];
      const taken = new Set();
      const deploy = async () => {
        const nodes = await flowWith(sim, flow, { credentials });
        const state = { closed: false };
        // A msg Node-RED delivers to the node is taken; one still on its way when the flow stops is dropped by Node-RED.
        nodes.store.on('input', (msg) => { if (Array.isArray(msg.payload)) for (const e of msg.payload) taken.add(e.timestamp); });
        for (const method of ['send', 'error', 'status']) {
          const original = nodes.store[method];
          nodes.store[method] = function (...args) {
            if (state.closed) late.push(`${method} after close: ${JSON.stringify(args[0]).slice(0, 120)}`);
            return original.apply(this, args);
          };
        }
        return { nodes, state };
      };
      // One deploy first: lazy resources of Node-RED (and pg's) exist in the baseline.
      let { nodes, state } = await deploy();
      nodes.store.receive({ payload: week.slice(0, 12), deviceId: DEVICE, kind: 'long', granularity: '5m' });
      await until(() => messagesOf(nodes.written) && true);
      await sleep(300);
      state.closed = true;
      await helper.unload();
      await sleep(200);
      const before = countResources();

      for (let i = 0; i < REDEPLOYS; i += 1) {
        ({ nodes, state } = await deploy());
        // A day of entries per redeploy, a read of the week, and (every fifth time) the database away at the stop.
        if (backend === 'postgres' && i % 5 === 4) await pg.stop();
        nodes.store.receive({ payload: week.slice(i * 100, i * 100 + 100), deviceId: DEVICE, kind: 'long', granularity: '5m' });
        nodes.store.receive({ topic: 'read', deviceId: DEVICE, fromTs: TEST_NOW_S - 7 * 86400, toTs: TEST_NOW_S, output: 'chart' });
        await sleep(i % 3 === 0 ? 0 : 40);
        state.closed = true;
        await helper.unload();
        if (!pg.running()) await pg.start();
      }
      // Whatever was still queued at a stop is written at the next start.
      ({ nodes, state } = await deploy());
      const queue = path.join(userDir, 'energy-store', 'store', 'queue');
      await until(() => fs.readdirSync(queue).filter((f) => f.endsWith('.json')).length === 0, 20000, 'the queue written');
      state.closed = true;
      await helper.unload();

      let after = countResources();
      for (let waited = 0; waited < 3000; waited += 100) {
        after = countResources();
        if ((after.Timeout ?? 0) <= (before.Timeout ?? 0) && (after.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0) && (after.MessagePort ?? 0) <= (before.MessagePort ?? 0)) break;
        await sleep(100);
      }
      assert.ok((after.Timeout ?? 0) <= (before.Timeout ?? 0), `timers: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
      assert.ok((after.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0), `sockets: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
      assert.ok((after.MessagePort ?? 0) <= (before.MessagePort ?? 0), `worker threads: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
      assert.deepEqual(late, []);
      if (backend === 'postgres') {
        const [{ n, d }] = await pg.query('SELECT count(*)::int AS n, count(DISTINCT (ts, channel))::int AS d FROM energy');
        assert.equal(n, d, 'no row twice');
        assert.ok(taken.size > REDEPLOYS * 50, `most msgs reached the node (${taken.size} entries)`);
        assert.equal(n, taken.size * 6, 'every entry the node took is written');
      }
    });
  }
});
