'use strict';
// Shared test fixtures: a real simulator over HTTP and a real Node-RED runtime (4.x, or 5.x with NODE_RED_MAJOR=5).
const helper = require('node-red-node-test-helper');
const { startSimulator } = require('../../dist/simulator');

const NODE_RED_MAJOR = process.env.NODE_RED_MAJOR === '5' ? '5' : '4';
helper.init(require.resolve(NODE_RED_MAJOR === '5' ? 'node-red-5' : 'node-red'));

const nodeFile = (name) => require(`../../dist/nodes/${name}/${name}.js`);
/** Every node module of the package, to load together (flow nodes need the config node). */
const allNodes = () => [
  'energy-api', 'energy-device-status', 'energy-query', 'energy-switch-control',
  'energy-wifi-config', 'energy-modbus-read', 'energy-device-config',
  'energy-load-control', 'energy-tariff', 'energy-cost',
].map(nodeFile);

/** A config node for the simulator (id "api"), and its credentials for helper.load. */
function apiConfig(sim, key = sim.keys.full, extra = {}) {
  return {
    node: { id: 'api', type: 'energy-api', name: 'sim', baseUrl: sim.baseUrl, tps: 5, tpd: 10000, timezone: '', ...extra },
    credentials: { api: { apiKey: key } },
  };
}

/** Starts the helper's server (mocha: call in before/beforeEach with done). */
function startServer(done) { helper.startServer(done); }
async function stopServer() {
  await helper.unload();
  await new Promise((resolve) => helper.stopServer(resolve));
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

module.exports = { helper, startSimulator, NODE_RED_MAJOR, nodeFile, allNodes, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey };
