'use strict';
// Fixtures of the energy-mqtt tests: the simulator on a clock the test steps, a real Mosquitto on a free
// loopback port, Node-RED with the package's nodes and Node-RED's own core mqtt nodes (the mqtt-broker
// config node the user already has), and an MQTT client subscribed as Home Assistant is. Each test
// publishes under its own prefix and base topic, so retained messages of earlier tests never mix in.
const { helper, apiConfig, nodeFile, startServer, stopServer, load, useSimClock, TEST_NOW_S } = require('../support/env');
const { startSimulator, SIM_DEVICES } = require('../../dist/simulator');
const { startMosquitto, MOSQUITTO } = require('../support/mosquitto');
const { coreMqttNodes, connectHomeAssistant } = require('../support/home-assistant');
const { skipBecause } = require('../support/skip');

const DEV = SIM_DEVICES.switch6M3SW;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const NODES = () => [nodeFile('energy-api'), nodeFile('energy-mqtt'), nodeFile('energy-load-control'), coreMqttNodes()];

async function until(condition, what, ms = 15000) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Node-RED's core mqtt-broker config node for the test's Mosquitto. */
const brokerNode = (port, base = 'energy') => ({
  id: 'broker', type: 'mqtt-broker', name: 'test broker', broker: '127.0.0.1', port, clientid: '', autoConnect: true, usetls: false,
  protocolVersion: 4, keepalive: 60, cleansession: true, autoUnsubscribe: true,
  // The Last Will the node's help asks for: HA sees the bridge offline when the connection dies unannounced.
  willTopic: `${base}/bridge/availability`, willQos: '1', willRetain: 'true', willPayload: 'offline', willMsg: {},
});

/**
 * Mocha hooks for one suite: simulator frozen at `startAt`, Mosquitto (skipped with one line when not
 * installed, failing in CI, which installs it), Node-RED on the simulator's clock reconnecting to the broker
 * within 200 ms.
 */
function useMqttSuite({ startAt = TEST_NOW_S, persistence = false, settings = {} } = {}) {
  const f = { sim: undefined, broker: undefined, ha: undefined, serial: 0, settings };
  const rejections = [];
  const onRejection = (reason) => rejections.push(reason);
  before(function () { process.on('unhandledRejection', onRejection); });
  after(function () { process.off('unhandledRejection', onRejection); });
  before(async function () {
    if (!MOSQUITTO) {
      const message = 'mosquitto is not installed (apt-get install -y mosquitto)';
      // CI installs it (.ci/run): there a missing broker fails instead of skipping.
      if (process.env.CI) throw new Error(message);
      skipBecause(this, message);
    }
    f.sim = await startSimulator({ port: 0, now: startAt });
    f.broker = await startMosquitto({ persistence });
    f.useSettings(settings);
  });
  before(function (done) { if (f.sim) startServer(done); else done(); });
  after(async function () {
    if (!f.sim) return;
    await stopServer();
    await f.sim.close();
    await f.broker.close();
  });
  beforeEach(async function () {
    f.sim.control.reset();
    f.sim.control.setClock({ now: startAt });
    f.sim.control.setLimits({ tps: 100 });
    f.serial += 1;
    // Its own node id too: a node keeps its totals per node id in the process (for redeploys).
    f.id = `m${f.serial}`;
    f.prefix = `ha${f.serial}`;
    f.base = `energy${f.serial}`;
    f.ha = await connectHomeAssistant(f.broker.url, { prefix: f.prefix, base: f.base });
  });
  afterEach(async function () {
    await helper.unload();
    await f.ha?.end();
    if (rejections.length > 0) throw new Error(`unhandled rejections: ${rejections.splice(0).map(String).join('; ')}`);
  });

  /** Node-RED settings for the next loads: the simulator's clock, a quick reconnect, and `extra`. */
  f.useSettings = (extra = {}) => useSimClock(f.sim, { mqttReconnectTime: 200, ...extra });

  /** The flow: config nodes, the energy-mqtt node `f.id` (with `props`), `extra` nodes, a Catch and a Complete for it. */
  f.flow = (props = {}, extra = [], { key } = {}) => {
    const api = apiConfig(f.sim, key ?? f.sim.keys.full, { tps: 100 });
    const flow = [
      api.node, brokerNode(f.broker.port, f.base),
      { id: f.id, type: 'energy-mqtt', name: '', api: 'api', broker: 'broker', devices: DEV, discovery: true, discoveryPrefix: f.prefix, baseTopic: f.base, interval: 0, energyInterval: 300, configVersion: 1, ...props },
      ...extra,
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' },
      { id: 'done', type: 'complete', scope: [f.id], uncaught: false, wires: [['completed']] }, { id: 'completed', type: 'helper' },
    ];
    return { flow, credentials: api.credentials };
  };

  /** Loads the flow and watches the node: its statuses, warnings, errors, the Catch's msgs. */
  f.setup = async (props, extra, options) => {
    const { flow, credentials } = f.flow(props, extra, options);
    await load(NODES(), flow, credentials);
    return f.watch();
  };

  f.watch = () => {
    const ctx = { statuses: [], warnings: [], errors: [], caught: [], completed: 0 };
    const m = helper.getNode(f.id);
    ctx.node = m;
    m.on('call:status', (call) => ctx.statuses.push(call.args[0]));
    m.on('call:warn', (call) => ctx.warnings.push(String(call.args[0])));
    m.on('call:error', (call) => ctx.errors.push(String(call.args[0])));
    helper.getNode('caught').on('input', (msg) => ctx.caught.push(msg));
    helper.getNode('completed').on('input', () => { ctx.completed += 1; });
    return ctx;
  };

  /** Sends `payload` to the node, waits until it is done with it and the HA client has received all it published. */
  f.send = async (ctx, payload = 'refresh') => {
    const before = ctx.completed + ctx.caught.length;
    ctx.node.receive({ payload });
    await until(() => ctx.completed + ctx.caught.length > before, `the node to finish "${payload}"`);
    await f.received();
  };

  /**
   * Resolves once the HA client has every message the node has published so far: a marker sent over the
   * same broker connection arrives after them (the broker keeps one client's messages in order).
   */
  f.received = async () => {
    const broker = helper.getNode('broker');
    if (!broker?.connected) return;
    const marker = `${Date.now()}-${Math.random()}`;
    broker.publish({ topic: `${f.base}/__marker`, payload: marker, qos: 1, retain: false });
    await until(() => f.ha.messages.some((m) => m.topic === `${f.base}/__marker` && m.payload === marker), 'the HA client to receive what the node published');
  };

  f.step = (seconds) => f.sim.control.setClock({ advance: seconds });
  f.topic = (rest, deviceId = DEV) => `${f.base}/${deviceId}/${rest}`;
  f.configTopic = (deviceId = DEV) => `${f.prefix}/device/${deviceId}/config`;
  /** The latest payload on a state topic (undefined before any). */
  f.state = (rest, deviceId = DEV) => f.ha.latest(f.topic(rest, deviceId))?.payload;
  f.requests = () => f.sim.control.log().filter((r) => !r.path.startsWith('/__sim'));
  f.patches = () => f.sim.control.log().filter((r) => r.method === 'PATCH');
  return f;
}

module.exports = { DEV, NODES, sleep, until, brokerNode, useMqttSuite };
