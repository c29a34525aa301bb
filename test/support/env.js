'use strict';
// Shared test fixtures: a real simulator over HTTP and a real Node-RED runtime (4.x, or 5.x with NODE_RED_MAJOR=5).
const helper = require('node-red-node-test-helper');
const { startSimulator } = require('../../dist/simulator');

const { NODE_RED_MAJOR, NODE_RED_DIR } = require('./node-red');

helper.init(require.resolve(NODE_RED_DIR));

const nodeFile = (name) => require(`../../dist/nodes/${name}/${name}.js`);
/** Every node module of the package, to load together (flow nodes need the config node). */
const allNodes = () => [
  'energy-api', 'energy-device-status', 'energy-query', 'energy-switch-control',
  'energy-wifi-config', 'energy-modbus-read', 'energy-device-config',
  'energy-load-control', 'energy-tariff', 'energy-cost', 'energy-mqtt', 'energy-store', 'energy-price', 'energy-forecast',
].map(nodeFile);

/** A config node for the simulator (id "api"), and its credentials for helper.load. */
function apiConfig(sim, key = sim.keys.full, extra = {}) {
  return {
    node: { id: 'api', type: 'energy-api', name: 'sim', baseUrl: sim.baseUrl, tps: 5, tpd: 10000, timezone: '', ...extra },
    credentials: { api: { apiKey: key } },
  };
}

/**
 * The instant node tests run at: Wednesday 2026-07-15 03:00:12 UTC. At least three hours from UTC
 * midnight and from local midnight on every demo device (Sydney 13:00, Berlin 05:00, London 04:00,
 * Perth 11:00), a month from any DST change, after the modbus meter change, and 12 s after a device
 * report (not on one): no verdict depends on the day the tests run.
 */
const TEST_NOW_S = Date.UTC(2026, 6, 15, 3, 0, 12) / 1000;

/**
 * A simulator whose clock the test controls (frozen at `now`, default TEST_NOW_S; step it with
 * `sim.control.setClock({ advance })`, force reports with `sim.control.reportNow(id)`), and the
 * nodes loaded next on that same clock.
 */
async function startClockedSimulator(options = {}) {
  const sim = await startSimulator({ port: 0, now: TEST_NOW_S, ...options });
  useSimClock(sim);
  return sim;
}

/**
 * Nodes loaded from now on read `sim`'s clock: Node-RED's setting `energyApi.now` (ms). `settings` are
 * other runtime settings for the same loads (helper.settings replaces all earlier ones: use this instead).
 */
function useSimClock(sim, settings = {}) {
  helper.settings({ ...settings, energyApi: { now: () => sim.control.now() * 1000 } });
}

/** Starts the helper's server (mocha: call in before/beforeEach with done). */
function startServer(done) { helper.startServer(done); }
async function stopServer() {
  await helper.unload();
  await new Promise((resolve) => helper.stopServer(resolve));
  helper.settings({});
}

/**
 * Loads the config node "api" for `sim`, the given flow nodes, a helper node for every wire target the
 * flow does not define, and a Catch node wired to the helper "caught". Returns the running nodes by id.
 */
async function flowWith(sim, flowNodes, { key = sim.keys.full, config = {}, credentials, modules = allNodes() } = {}) {
  const api = apiConfig(sim, key, config);
  const defined = new Set(flowNodes.map((n) => n.id));
  const targets = new Set(flowNodes.flatMap((n) => (n.wires ?? []).flat()));
  const helpers = [...targets].filter((id) => !defined.has(id)).map((id) => ({ id, type: 'helper' }));
  const flow = [
    api.node, ...flowNodes, ...helpers,
    { id: 'catch-all', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await load(modules, flow, credentials ?? api.credentials);
  const nodes = {};
  for (const n of flow) nodes[n.id] = helper.getNode(n.id);
  return nodes;
}

/** Every status `node` shows from now on (the array fills as it runs). */
function statusesOf(node) {
  const statuses = [];
  node.on('call:status', (call) => statuses.push(call.args[0]));
  return statuses;
}

/** Every message `node` (a helper) receives from now on. */
function messagesOf(node) {
  const messages = [];
  node.on('input', (msg) => messages.push(msg));
  return messages;
}

/** Resolves once `condition()` holds, checking every 20 ms; fails after `ms` (a guard, never a verdict). */
async function until(condition, ms = 20000, what = 'condition') {
  for (const end = performance.now() + ms; !(await condition());) {
    if (performance.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Loads a flow and resolves when it is running. */
function load(nodes, flow, credentials) {
  return new Promise((resolve, reject) => {
    try { helper.load(nodes, flow, credentials, resolve); } catch (err) { reject(err); }
  });
}

/** Next message arriving at a helper node (rejects after ms). */
function nextMessage(node, ms = 20000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message at ${node.id} within ${ms} ms`)), ms);
    node.once('input', (msg) => { clearTimeout(timer); resolve(msg); });
  });
}

/** Every text the runtime logged (for key-leak scans). */
function loggedText() {
  return JSON.stringify(helper.log().args);
}

/** Fails when the whole key appears anywhere in `texts`. */
function assertNoKey(key, ...texts) {
  for (const text of texts) {
    const s = typeof text === 'string' ? text : JSON.stringify(text);
    if (s && s.includes(key)) throw new Error(`the API key leaked into: ${s.slice(Math.max(0, s.indexOf(key) - 80), s.indexOf(key) + 20)}`);
  }
}

module.exports = {
  helper, startSimulator, NODE_RED_MAJOR, nodeFile, allNodes, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey,
  TEST_NOW_S, startClockedSimulator, useSimClock, flowWith, statusesOf, messagesOf, until,
};
