'use strict';
// Fixtures of the energy-load-control tests: Node-RED on the simulator's frozen clock (the nodes read
// time through `energyApi.now`), flows of load-control nodes with a helper on each output, and
// `tick`: evaluations triggered by msg.payload "evaluate" (the nodes have interval 0), so the clock
// moves only when a test steps it.
const { helper, startSimulator, nodeFile, apiConfig, startServer, stopServer, load } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { nodeRedModule } = require('../support/node-red');

const DEV = SIM_DEVICES.switch6M3SW;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** A core node module (inject, debug, comment) of the Node-RED the tests run on. */
const coreNode = (file) => nodeRedModule(`@node-red/nodes/core/common/${file}.js`);
const NODES = [nodeFile('energy-api'), nodeFile('energy-load-control')];

let suites = 0;

async function until(condition, what, ms = 10000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * Mocha hooks for one suite: a simulator frozen at `startAt` (unix s), Node-RED on its clock.
 * The per-second limit is counted in real time but a 429 pause would be waited out on the frozen
 * clock: the key gets room enough that these tests never meet it.
 */
function useLoadControlSuite(startAt) {
  // Node ids unique across every suite of one mocha run too: a load remembers its state per node id in
  // Node-RED's context, which outlives a suite.
  suites += 1;
  const f = { sim: undefined, serial: suites * 1000 };
  before(async function () {
    f.sim = await startSimulator({ port: 0, now: startAt });
    helper.settings({ energyApi: { now: () => f.sim.control.now() * 1000 } });
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    helper.settings({});
    await f.sim.close();
  });
  beforeEach(function () { f.sim.control.reset(); f.sim.control.setLimits({ tps: 100 }); });
  afterEach(async function () { await helper.unload(); });

  /** Loads the load-control nodes (ids made unique per test: a load remembers its holds per node id), a helper on each output, a Catch. */
  f.setup = (key, ...loadNodes) => f.setupFlow(loadNodes, { key });

  /** The serial the next setup gives its nodes (`<id>-<serial>`), and taking one for a flow built by hand. */
  f.nextSerial = () => f.serial + 1;
  f.takeSerial = () => (f.serial += 1);

  /** As setup, with `others` (and the node `modules` and `credentials` they need) in the same flow. */
  f.setupFlow = async (loadNodes, { key, others = [], modules = [], credentials = {} } = {}) => {
    f.serial += 1;
    const api = apiConfig(f.sim, key ?? f.sim.keys.full, { tps: 100 });
    const named = loadNodes.map((n) => ({ ...n, id: `${n.id}-${f.serial}`, wires: [[`d-${n.id}`], [`e-${n.id}`], [`p-${n.id}`]] }));
    const flow = [api.node, ...named, ...others, { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' }];
    for (const n of loadNodes) flow.push({ id: `d-${n.id}`, type: 'helper' }, { id: `e-${n.id}`, type: 'helper' }, { id: `p-${n.id}`, type: 'helper' });
    await load([...NODES, ...modules], flow, { ...api.credentials, ...credentials });
    return f.watch(flow, loadNodes.map((n) => n.id));
  };

  f.watch = (flow, ids) => {
    const ctx = { flow, ids, real: {}, decisions: {}, evaluations: {}, plans: {}, statuses: {}, caught: [] };
    for (const id of ids) {
      ctx.real[id] = `${id}-${f.serial}`;
      ctx.decisions[id] = [];
      ctx.evaluations[id] = [];
      ctx.plans[id] = [];
      ctx.statuses[id] = [];
      helper.getNode(`d-${id}`).on('input', (msg) => ctx.decisions[id].push(msg));
      helper.getNode(`e-${id}`).on('input', (msg) => ctx.evaluations[id].push(msg));
      helper.getNode(`p-${id}`)?.on('input', (msg) => ctx.plans[id].push(msg));
      helper.getNode(ctx.real[id]).on('call:status', (call) => ctx.statuses[id].push(call.args[0]));
    }
    helper.getNode('caught').on('input', (msg) => ctx.caught.push(msg));
    return ctx;
  };

  /** Sends `msg` to one node (the first by default) and waits until every node has evaluated once more. */
  f.tick = async (ctx, msg = { payload: 'evaluate' }, to = ctx.ids[0]) => {
    const counts = ctx.ids.map((id) => ctx.evaluations[id].length);
    helper.getNode(ctx.real[to]).receive(msg);
    await until(() => ctx.ids.every((id, i) => ctx.evaluations[id].length > counts[i]), 'an evaluation of every node');
    await sleep(5);
  };

  /** Runs evaluations every `stepS` of sim time until `untilS` (unix s); the first at the current time. */
  f.run = async (ctx, untilS, stepS = 30) => {
    for (;;) {
      await f.tick(ctx);
      if (f.sim.control.now() + stepS > untilS) return;
      f.step(stepS);
    }
  };

  f.step = (seconds) => f.sim.control.setClock({ advance: seconds });
  f.patches = () => f.sim.control.log().filter((r) => r.method === 'PATCH');
  f.energyReads = () => f.sim.control.log().filter((r) => r.path.includes('/short-energy/'));
  f.deviceReads = () => f.sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${DEV}`));
  /** The switch changes in the simulator's request log: its sim time (s), switch and state, from the PATCH bodies. */
  f.patchLog = () => f.sim.control.log().filter((r) => r.method === 'PATCH').flatMap((r) => (r.body?.switches ?? []).map((sw) => ({
    simNow: Math.floor(r.simNow), switchId: sw.id, state: sw.state,
  })));
  f.lastEval = (ctx, id) => ctx.evaluations[id][ctx.evaluations[id].length - 1];
  f.lastStatus = (ctx, id) => ctx.statuses[id][ctx.statuses[id].length - 1];
  return f;
}

module.exports = { DEV, NODES, sleep, until, coreNode, useLoadControlSuite };
