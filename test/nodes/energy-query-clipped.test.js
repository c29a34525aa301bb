'use strict';
// A short-energy range clipped to the 31-day retention says so instead of silently returning less.
const assert = require('node:assert/strict');
const { helper, startSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0) / 1000;
const DAY = 86400;

describe('energy-query: the 31-day retention of short energy', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-query')];

  before(async function () { sim = await startSimulator({ port: 0, now: NOW }); });
  before(function (done) {
    helper.settings({ energyApi: { now: () => NOW * 1000 } });
    startServer(done);
  });
  after(async function () {
    await stopServer();
    helper.settings({});
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  async function query(fromTs, toTs) {
    const api = apiConfig(sim);
    await load(nodes, [
      api.node,
      { id: 'q', type: 'energy-query', api: 'api', deviceId: SIM_DEVICES.switch6M3SW, kind: 'short', query: 'range', fromTs: String(fromTs), toTs: String(toTs), output: 'entries', wires: [['out']] },
      { id: 'out', type: 'helper' },
    ], api.credentials);
    const statuses = [];
    helper.getNode('q').on('call:status', (call) => statuses.push(call.args[0]));
    const next = nextMessage(helper.getNode('out'), 60000);
    helper.getNode('q').receive({});
    return { msg: await next, statuses };
  }

  it('reads from the oldest retained moment and says what was asked and what was returned', async function () {
    this.timeout(120000);
    const { msg, statuses } = await query(NOW - 40 * DAY, NOW - 30 * DAY);
    const retainedFrom = NOW - 31 * DAY;
    assert.deepEqual(msg.clipped, {
      requested: { fromTs: NOW - 40 * DAY, toTs: NOW - 30 * DAY },
      returned: { fromTs: retainedFrom, toTs: NOW - 30 * DAY },
      retentionDays: 31,
    });
    assert.ok(msg.payload.length > 0);
    assert.ok(msg.payload.every((e) => e.timestamp >= retainedFrom), 'nothing older than the retention');
    const last = statuses[statuses.length - 1];
    assert.equal(last.fill, 'yellow');
    assert.match(last.text, /energy-query\.status\.clipped/);
  });

  it('a range inside the retention has no msg.clipped', async function () {
    const { msg, statuses } = await query(NOW - 2 * 3600, NOW - 3600);
    assert.equal(msg.clipped, undefined);
    assert.equal(statuses[statuses.length - 1].fill, 'green');
  });
});
