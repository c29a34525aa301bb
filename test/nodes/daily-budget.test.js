'use strict';
// The daily budget is visible before it bites: the config node adds up its nodes' requestsPerDay()
// against the key's daily limit as learnt from the service, and warns naming the costliest nodes.
const assert = require('node:assert/strict');
const { helper, startClockedSimulator, allNodes, apiConfig, startServer, stopServer, load } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { estimateRequestsPerDay, cronRunsPerDay } = require('../support/request-costs');
const { nodeRedModule } = require('../support/node-red');

const FROZEN_AT = Date.UTC(2026, 2, 10, 12, 0, 0) / 1000;
const coreNode = (file) => nodeRedModule(`@node-red/nodes/core/${file}`);
const nodes = () => [...allNodes(), coreNode('common/20-inject.js'), coreNode('function/15-change.js')];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('daily budget of a config node', function () {
  let sim;

  before(async function () { sim = await startClockedSimulator({ now: FROZEN_AT, tpd: 2000 }); }); // the nodes on its clock too
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  async function until(condition, ms = 10000) {
    const end = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await sleep(20);
    }
  }

  function flow(api, { pollSeconds }) {
    return [
      api.node,
      { id: 'poll', type: 'energy-device-status', name: 'fast poller', api: 'api', mode: 'device', deviceId: SIM_DEVICES.wifi6MW, interval: pollSeconds, outputOnDeploy: true, wires: [[]] },
      { id: 'tick', type: 'inject', repeat: '600', crontab: '', once: false, wires: [['relay']] },
      { id: 'relay', type: 'change', rules: [], wires: [['query']] },
      { id: 'query', type: 'energy-query', name: 'hour of power', api: 'api', deviceId: SIM_DEVICES.switch6M3SW, kind: 'short', query: 'range', fromTs: '-1h', toTs: 'now', output: 'entries', wires: [[]] },
      { id: 'manual', type: 'energy-query', name: 'by hand', api: 'api', deviceId: SIM_DEVICES.switch6M3SW, wires: [[]] },
    ];
  }

  it('warns on itself once the service tells a smaller daily limit, naming the costliest nodes first', async function () {
    const api = apiConfig(sim); // configured 10000/day: the flows fit until the service says 2000
    await load(nodes(), flow(api, { pollSeconds: 30 }), api.credentials);
    const config = helper.getNode('api');
    const statuses = [];
    const warnings = [];
    config.on('call:status', (call) => statuses.push(call.args[0]));
    config.on('call:warn', (call) => warnings.push(call.args[0]));
    const before = config.dailyBudget();
    assert.equal(before.tpd, 10000);
    assert.equal(before.over, false);
    assert.deepEqual(before.top.map((c) => [c.name, c.requestsPerDay]), [['fast poller', 2880], ['hour of power', 144]]);
    assert.equal(before.requestsPerDay, 3024);

    await until(() => statuses.length > 0); // the deploy-time read teaches the client the key's 2000/day
    assert.equal(config.dailyBudget().tpd, 2000);
    assert.equal(statuses[0].fill, 'yellow');
    assert.match(statuses[0].text, /energy-api\.status\.overBudget/);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /energy-api\.errors\.overBudget/);

    const res = await helper.request().get('/energy-api/api/state').expect(200);
    assert.equal(res.body.budget.over, true);
    assert.deepEqual(res.body.budget.top.map((c) => c.name), ['fast poller', 'hour of power']);
  });

  it('stays quiet when the schedules fit the learnt limit', async function () {
    const api = apiConfig(sim);
    await load(nodes(), flow(api, { pollSeconds: 300 }), api.credentials);
    const config = helper.getNode('api');
    const statuses = [];
    config.on('call:status', (call) => statuses.push(call.args[0]));
    await until(() => sim.control.log().length > 0);
    await sleep(200);
    assert.equal(config.dailyBudget().requestsPerDay, 288 + 144);
    assert.equal(config.dailyBudget().over, false);
    assert.deepEqual(statuses.filter((s) => s.fill), []);
  });

  it('counts a trigger that a function fans out to several devices (msg.deviceId) once per device', async function () {
    const api = apiConfig(sim);
    const fleet = [SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW, SIM_DEVICES.wifi6MW];
    await load(nodes(), [
      api.node,
      { id: 'tick', type: 'inject', repeat: '600', crontab: '', once: false, wires: [['relay']] },
      { id: 'relay', type: 'change', rules: [], wires: [['query']] },
      { id: 'query', type: 'energy-query', name: 'each device', api: 'api', deviceId: '', kind: 'short', query: 'latest', output: 'entries', wires: [[]] },
    ], api.credentials);
    const config = helper.getNode('api');
    assert.equal(config.dailyBudget().requestsPerDay, 144, 'before any msg: one device per trigger');
    for (const deviceId of fleet) helper.getNode('query').receive({ deviceId });
    await until(() => sim.control.log().filter((r) => r.path.includes('/short-energy/')).length === fleet.length);
    assert.equal(config.dailyBudget().requestsPerDay, 144 * fleet.length, 'each trigger reaches the three devices named lately');
  });

  it('estimates from schedules: crontabs, long ranges split by span, one-per-entry outputs not counted', function () {
    assert.equal(cronRunsPerDay('30 00 * * *'), 1);
    assert.equal(cronRunsPerDay('*/15 * * * *'), 96);
    assert.equal(cronRunsPerDay('0 8-17 * * 1-5'), 10 * 5 / 7);
    const nowMs = FROZEN_AT * 1000;
    const query = { id: 'q', type: 'energy-query', kind: 'long', granularity: '5m', fromTs: '-30d', toTs: 'now' };
    const daily = { id: 'i', type: 'inject', crontab: '30 00 * * *', wires: [['q']] };
    assert.equal(estimateRequestsPerDay(query, [daily, query], { nowMs }), 5, '30 days of 5-minute data: 7-day spans');
    const split = { id: 's', type: 'energy-query', kind: 'short', output: 'split', follow: true, wires: [['sw']] };
    const sw = { id: 'sw', type: 'energy-switch-control' };
    const minute = { id: 'm', type: 'inject', repeat: '60', wires: [['s']] };
    assert.equal(estimateRequestsPerDay(split, [minute, split, sw], { nowMs }), 1440);
    assert.equal(estimateRequestsPerDay(sw, [minute, split, sw], { nowMs }), 0, 'switching follows the data, not a schedule');
    // A saved end absurdly far in the future is planned no further than a year ahead (it used to plan up to it, at deploy).
    const far = { id: 'f', type: 'energy-modbus-read', fromTs: '-1h', toTs: '100000000000000000000' };
    assert.equal(estimateRequestsPerDay(far, [{ ...daily, wires: [['f']] }, far], { nowMs }), 53);
  });
});
