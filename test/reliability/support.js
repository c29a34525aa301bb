'use strict';
// Shared by the reliability suites: a real Node-RED runtime on the simulator's clock, a flow that
// accounts for every message (outputs, Catch, Complete), event-loop and rejection watchers, and the
// texts captured for the secrets check that runs after every suite.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const env = require('../support/env');
const { SIM_KEYS } = require('../../dist/simulator');

const { helper } = env;

/**
 * Secrets (the API key, every PSK) registered by the suites, and every place one was seen: each
 * output, Catch msg, status and log line is scanned as it comes (secrets.rel.js asserts none).
 */
const captured = { secrets: new Set(), leaks: [], scanned: 0 };

/** Scans every string and key in `value` for a registered secret (iterative, bounded, no serialising). */
function capture(value, where = 'output') {
  if (process.env.NO_CAPTURE) return;
  captured.scanned += 1;
  const secrets = [...captured.secrets];
  const seen = new Set();
  const stack = [value];
  let budget = 50_000;
  while (stack.length && budget-- > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      for (const secret of secrets) if (v.includes(secret)) captured.leaks.push(`${where}: …${v.slice(Math.max(0, v.indexOf(secret) - 60), v.indexOf(secret) + 10)}`);
    } else if (v && typeof v === 'object' && !seen.has(v) && !ArrayBuffer.isView(v)) {
      seen.add(v);
      if (v instanceof Error) stack.push(v.message, v.stack);
      const keys = Object.keys(v);
      for (const k of keys.length > 2000 ? keys.slice(0, 1000).concat(keys.slice(-1000)) : keys) { stack.push(k); stack.push(v[k]); }
    }
  }
}

/** Captures the runtime log since the last call (helper.log() is reset by each load). */
function captureLog() {
  capture(helper.log().args, 'log');
}

/**
 * The simulator in its own process, as the service is: what the event-loop figures measure is Node-RED and
 * the nodes, never the simulator building a site's data. Its clock starts at `opts.now` and runs on; the
 * nodes' clock follows it (`control.now()`), so their own timeouts pass. `log()` reads its request log.
 */
async function startRemoteSimulator(opts) {
  const child = spawn(process.execPath, [path.join(__dirname, '../../bench/sim-process.js'), JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end >= 0) resolve(buffer.slice(0, end).trim());
    });
    child.once('exit', (code) => reject(new Error(`the simulator process exited (${code})`)));
  });
  const post = (route, body) => fetch(`${url}/__sim/${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const { now: simNowAtStart } = await post('clock', { real: true });
  const localAtStart = Date.now();
  return {
    url,
    baseUrl: `${url}/v3`,
    keys: SIM_KEYS,
    control: { now: () => simNowAtStart + (Date.now() - localAtStart) / 1000 },
    log: () => fetch(`${url}/__sim/log`).then((r) => r.json()),
    close: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

/** Node-RED's settings that put the nodes on the simulator's clock. */
function simClockSettings(sim) {
  helper.settings({ energyApi: { now: () => sim.control.now() * 1000 } });
}

/**
 * A flow around the given node defs: every output of each node goes to `out`, a Catch and a Complete
 * node report every message that ended with an error or without one.
 */
function accountedFlow(sim, nodeDefs, configExtra = {}) {
  const api = env.apiConfig(sim, sim.keys.full, configExtra);
  const ids = nodeDefs.map((n) => n.id);
  const flow = [
    api.node,
    ...nodeDefs.map((n) => ({ wires: [['out'], ['out']], ...n, api: 'api' })),
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
    { id: 'completer', type: 'complete', scope: ids, uncaught: false, wires: [['completed']] },
    { id: 'completed', type: 'helper' },
  ];
  return { flow, credentials: api.credentials };
}

/** Listens on a loaded accountedFlow: which input ids came out where, and every status set. */
function accountant(nodeIds) {
  const seen = { out: new Map(), caught: new Map(), completed: new Map() };
  const statuses = [];
  const count = (map, msg) => {
    const id = msg && msg._msgid;
    map.set(id, (map.get(id) || 0) + 1);
  };
  helper.getNode('out').on('input', (msg) => { count(seen.out, msg); captureOutput(msg); });
  helper.getNode('caught').on('input', (msg) => { count(seen.caught, msg); captureOutput(msg); });
  helper.getNode('completed').on('input', (msg) => count(seen.completed, msg));
  for (const id of nodeIds) {
    helper.getNode(id).on('call:status', (call) => { statuses.push({ id, status: call.args[0] }); capture(call.args[0], 'status'); });
  }
  const accounted = (id) => seen.out.has(id) || seen.caught.has(id) || seen.completed.has(id);
  return { seen, statuses, accounted };
}

/** Outputs can be large (a year of entries): keep what a leak check needs, not every number. */
function captureOutput(msg) {
  capture(msg, 'output');
}

/** Event-loop delay over a stretch of work: max and p99 in ms. */
function loopWatch() {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    stop() {
      h.disable();
      return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6 };
    },
    reset() { h.reset(); },
  };
}

/** Unhandled rejections and uncaught exceptions while `watch` is on (mocha's own handlers stay). */
function crashWatch() {
  const rejections = [];
  const exceptions = [];
  const onRejection = (reason) => rejections.push(reason);
  const onException = (err) => exceptions.push(err);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtExceptionMonitor', onException);
  return {
    rejections,
    exceptions,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtExceptionMonitor', onException);
    },
  };
}

/**
 * The test helper spies on every Node method and on the log, and its spies keep every call's
 * arguments: thousands of messages would then stay on the heap. Scan the log, then drop the history.
 */
function forgetCalls() {
  captureLog();
  helper._sandbox.resetHistory();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(cond, ms, step = 20) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) return false;
    await sleep(step);
  }
  return true;
}

/** Prints a figure line the CI log keeps (and the README quotes). */
function figure(text) {
  console.log(`      » ${text}`);
}

module.exports = {
  ...env, captured, capture, captureLog, forgetCalls, simClockSettings, startRemoteSimulator, accountedFlow, accountant, loopWatch, crashWatch, sleep, waitUntil, figure,
};
