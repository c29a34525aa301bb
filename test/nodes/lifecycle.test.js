'use strict';
// Redeploys: every node type loaded together, polling and in-flight requests, then unloaded, 50 times.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, loggedText, assertNoKey,
} = require('../support/env');
const { SIM_DEVICES, SIM_KEYS, SIM_AMBER_KEY, amberSiteId } = require('../../dist/simulator');

const FLOW_NODES = [
  'energy-device-status', 'energy-query', 'energy-switch-control',
  'energy-wifi-config', 'energy-modbus-read', 'energy-device-config',
  'energy-load-control', 'energy-cost', 'energy-price',
];
const REDEPLOYS = 50;
/** Long enough for deploy-time reads to be on the wire, short enough that none has answered. */
const LIFETIME_MS = 150;
const SIM_LATENCY_MS = 1500;
/** Per-second limit of the simulator and the config node here: the redeploys, not the limiter, are under test. */
const TPS = 100;
const last5 = (key) => key.slice(-5);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The node modules that exist in dist/nodes (others are being written): a console note for each missing one. */
function availableFlowNodes() {
  return FLOW_NODES.filter((type) => {
    const file = path.join(__dirname, '..', '..', 'dist', 'nodes', type, `${type}.js`);
    if (fs.existsSync(file)) return true;
    console.log(`      (lifecycle: ${type} is not built yet, skipped)`);
    return false;
  });
}

/** Every flow node, several of each where they poll or wait, and what to send each after deploy. */
function flowFor(types, withCatch, sim) {
  const wires = [['sink'], ['sink']];
  const nodes = {
    'energy-device-status': [
      { id: 'status-poll', mode: 'device', deviceId: SIM_DEVICES.meter3M, offlineAfter: 900, interval: 5, onlyOnChange: false, outputOnDeploy: true },
      { id: 'status-all', mode: 'devices', offlineAfter: 900, interval: 5, onlyOnChange: true, outputOnDeploy: true },
    ],
    'energy-query': [
      { id: 'query-range', deviceId: SIM_DEVICES.meter3M, kind: 'long', query: 'range', fromTs: '-2d', toTs: 'now', granularity: '5m', output: 'entries', follow: false, input: {} },
      { id: 'query-follow', deviceId: SIM_DEVICES.switch6M3SW, kind: 'short', query: 'range', fromTs: '-1h', toTs: 'now', granularity: '5m', output: 'entries', follow: true, catchUp: 6, input: {} },
    ],
    'energy-switch-control': [
      { id: 'switch', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S3`, timeout: 180, input: { payload: 'toggle' } },
    ],
    'energy-wifi-config': [
      { id: 'wifi', deviceId: SIM_DEVICES.wifi6MW, timeout: 300, input: { payload: { ssid: 'lab-net', psk: 'lab-psk-4711' } } },
    ],
    'energy-modbus-read': [
      // 8 days: two 7-day requests after the device read, all slow.
      { id: 'modbus', deviceId: SIM_DEVICES.modbus6MOne, query: 'range', fromTs: '-8d', toTs: 'now', scale: 'units', input: {} },
    ],
    'energy-device-config': [
      { id: 'config', deviceId: SIM_DEVICES.meter3M, waitForPending: true, timeout: 180, input: { payload: { channels: [{ id: `${SIM_DEVICES.meter3M}_C3`, ctRating: 200 }] } } },
    ],
    // Two loads of one site: one shared group, reading on its own 5 s timer (no input: it needs none to poll).
    'energy-load-control': [
      { id: 'load-1', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S1`, mode: 'surplus', priority: 1, interval: 5, dryRun: true },
      { id: 'load-2', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S2`, mode: 'surplus', priority: 2, interval: 5, dryRun: true },
      // A run target: planned on the tariff and on the prices energy-price sends, with the day's history read for its forecast.
      { id: 'load-3', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S3`, mode: 'surplus', runFor: 7200, by: '17:00', tariff: 'tariff', priority: 3, interval: 5, dryRun: true },
    ],
    // Polls the simulator's Amber endpoint at deploy (slow answers) and sends its list to load-3.
    'energy-price': [
      { id: 'price', source: 'amber', baseUrl: sim.amberUrl, siteId: amberSiteId(SIM_DEVICES.switch6M3SW), resolution: 30, ahead: 24, timezone: '', poll: true, wires: [['load-3', 'sink']] },
    ],
    // Makes no request of its own; here for its tariff config node and its close.
    'energy-cost': [
      { id: 'cost', tariff: 'tariff', channels: '1', timezone: 'UTC' },
    ],
  };
  const flow = [];
  const inputs = [];
  for (const type of types) {
    for (const { input, ...props } of nodes[type]) {
      flow.push({ type, api: 'api', name: '', wires, ...props });
      if (input) inputs.push([props.id, input]);
    }
  }
  if (types.includes('energy-cost')) {
    flow.push({ id: 'tariff', type: 'energy-tariff', currency: 'AUD', importRates: [{ since: '', days: 'all', from: '00:00', to: '24:00', price: '0.30' }], exportRates: [], supplyCharges: [] });
  }
  flow.push({ id: 'sink', type: 'helper' });
  if (withCatch) flow.push({ id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] });
  flow.push({ id: 'caught', type: 'helper' });
  return { flow, inputs, ids: flow.filter((n) => types.includes(n.type)).map((n) => n.id) };
}

function countResources() {
  const counts = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

describe('lifecycle: redeploys leave nothing behind', function () {
  this.timeout(60000);
  let sim;
  let types;
  const everythingLogged = [];
  const everythingShown = [];
  const rejections = [];
  const onRejection = (reason) => rejections.push(reason);

  before(async function () {
    sim = await startClockedSimulator(); // frozen: waits for the device never end by the clock, only by redeploys
    types = availableFlowNodes();
    process.on('unhandledRejection', onRejection);
  });
  before(function (done) { startServer(done); });
  after(async function () {
    process.off('unhandledRejection', onRejection);
    await stopServer();
    await sim.close();
  });
  beforeEach(function () {
    sim.control.reset();
    sim.control.setLimits({ tps: TPS });
    rejections.length = 0;
  });
  afterEach(async function () {
    await helper.unload();
    assert.deepEqual(rejections.map(String), [], 'no unhandled rejections');
  });

  /** Loads the flow, wraps send/error of every node under test to catch late output, sends the inputs. */
  async function deploy(key, lateOutput, withCatch = true) {
    const api = apiConfig(sim, key, { tps: TPS });
    const { flow, inputs, ids } = flowFor(types, withCatch, sim);
    const credentials = { ...api.credentials, wifi: { password: 'lab-psk-4711' }, price: { apiKey: SIM_AMBER_KEY } };
    const tariff = types.includes('energy-cost') ? [nodeFile('energy-tariff')] : [];
    await load([nodeFile('energy-api'), ...tariff, ...types.map(nodeFile)], [api.node, ...flow], credentials);
    const lifecycle = { closed: false };
    for (const id of ids) {
      const node = helper.getNode(id);
      for (const method of ['send', 'error']) {
        const original = node[method];
        node[method] = function (...args) {
          if (lifecycle.closed) lateOutput.push(`${node.type} ${id} ${method} after close: ${JSON.stringify(args[0]).slice(0, 200)}`);
          return original.apply(this, args);
        };
      }
      node.on('call:status', (call) => everythingShown.push(call.args[0]));
    }
    const shown = (msg) => everythingShown.push(msg);
    helper.getNode('sink').on('input', shown);
    helper.getNode('caught').on('input', shown);
    for (const [id, msg] of inputs) helper.getNode(id).receive({ ...msg });
    return lifecycle;
  }

  async function undeploy(lifecycle) {
    everythingLogged.push(loggedText());
    lifecycle.closed = true;
    await helper.unload();
  }

  it(`${REDEPLOYS} redeploys with polling and in-flight requests leave no timers or sockets, and nothing is sent after close`, async function () {
    assert.ok(types.includes('energy-modbus-read'));
    const lateOutput = [];
    // One deploy first, so that one-time lazy resources of Node-RED and the simulator exist in the baseline.
    await undeploy(await deploy(SIM_KEYS.full, lateOutput));
    await sleep(200);
    const before = countResources();

    sim.control.clearLog();
    const shownBefore = everythingShown.length;
    const sentDuringLoop = () => everythingShown.slice(shownBefore).filter((m) => m && typeof m === 'object' && '_msgid' in m);
    sim.control.setFaults({ latencyMs: SIM_LATENCY_MS });
    const modbusDeviceReads = () => sim.control.log().filter((r) => r.path.endsWith(`/devices/${SIM_DEVICES.modbus6MOne}`)).length;
    for (let i = 0; i < REDEPLOYS; i += 1) {
      const lifecycle = await deploy(SIM_KEYS.full, lateOutput);
      await sleep(LIFETIME_MS);
      // Close only once the modbus node's slow request is on the wire (a slow machine may need longer).
      for (let waited = 0; waited < 2000 && modbusDeviceReads() <= i; waited += 20) await sleep(20);
      await undeploy(lifecycle);
    }
    assert.equal(modbusDeviceReads(), REDEPLOYS, 'every deploy had the modbus node\'s request on the wire');
    assert.equal(sentDuringLoop().filter((m) => Array.isArray(m.meters)).length, 0, 'and each redeploy came before its slow answer');

    // Sockets take a moment to close; the simulator's own latency timers run out.
    let after = countResources();
    for (let waited = 0; waited < SIM_LATENCY_MS + 3000; waited += 100) {
      after = countResources();
      if ((after.Timeout ?? 0) <= (before.Timeout ?? 0) && (after.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0)) break;
      await sleep(100);
    }
    assert.ok((after.Timeout ?? 0) <= (before.Timeout ?? 0), `timers: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
    assert.ok((after.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0), `sockets: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
    assert.equal(after.TCPServerWrap, before.TCPServerWrap, 'the listening sockets (simulator, Node-RED) are still the same');
    assert.deepEqual(lateOutput, []);
  });

  it('answers normally after the redeploys (nodes work, and stay quiet after close)', async function () {
    const lateOutput = [];
    const lifecycle = await deploy(SIM_KEYS.full, lateOutput);
    const answered = new Promise((resolve) => helper.getNode('sink').on('input', (msg) => { if (Array.isArray(msg.meters)) resolve(msg); }));
    const msg = await answered;
    assert.ok(msg.payload.length > 0);
    await sleep(300);
    await undeploy(lifecycle);
    await sleep(SIM_LATENCY_MS);
    assert.deepEqual(lateOutput, []);
  });

  it('with a refused key every node fails cleanly (errors logged when uncaught), naming the key by its last 5 characters', async function () {
    const lateOutput = [];
    const lifecycle = await deploy(SIM_KEYS.disabled, lateOutput, false);
    const withInput = flowFor(types, false, sim).inputs.map(([id]) => id);
    const errorsFrom = () => helper.log().args.map((a) => a[0]).filter((e) => e.level === helper.log().ERROR && withInput.includes(e.id));
    for (let waited = 0; waited < 5000 && errorsFrom().length < withInput.length; waited += 100) await sleep(100);
    const errors = errorsFrom();
    assert.deepEqual([...new Set(errors.map((e) => e.id))].sort(), [...withInput].sort(), 'every node with an input failed');
    for (const e of errors) {
      assert.ok([401, 403].includes(e.msg.status), JSON.stringify(e.msg));
      assert.ok(e.msg.message.includes(last5(SIM_KEYS.disabled)), e.msg.message);
    }
    await undeploy(lifecycle);
    await sleep(300);
    assert.deepEqual(lateOutput, []);
  });

  it('nothing logged, shown or sent in these scenarios contains a full key; its last 5 characters name it', function () {
    const logged = everythingLogged.join('\n');
    assert.ok(everythingLogged.length >= REDEPLOYS + 2, 'the other scenarios ran first');
    assertNoKey(SIM_KEYS.full, logged, everythingShown);
    assertNoKey(SIM_KEYS.disabled, logged, everythingShown);
    assertNoKey(SIM_AMBER_KEY, logged, everythingShown);
    assert.ok(logged.includes(last5(SIM_KEYS.disabled)), 'the refused key is named in the log by its last 5 characters');
  });
});
