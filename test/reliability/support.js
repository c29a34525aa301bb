'use strict';
// Shared by the reliability suites: a real Node-RED runtime on the simulator's clock, a flow that
// accounts for every message (outputs, Catch, Complete), event-loop and rejection watchers, and the
// texts captured for the secrets check that runs after every suite.
const { monitorEventLoopDelay } = require('node:perf_hooks');
const env = require('../support/env');

const { helper } = env;

/** Everything a user or a log could see, kept across suites for the secrets check (secrets.rel.js). */
const captured = { texts: [], secrets: new Set() };

function capture(value) {
  if (value === undefined) return;
  try {
    captured.texts.push(typeof value === 'string' ? value : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  } catch {
    captured.texts.push(String(value && value.message ? value.message : '[unserialisable]'));
  }
}

/** Captures the runtime log since the last call (helper.log() is reset by each load). */
function captureLog() {
  try { capture(env.loggedText()); } catch { capture('[log unserialisable]'); }
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
    helper.getNode(id).on('call:status', (call) => { statuses.push({ id, status: call.args[0] }); capture(call.args[0]); });
  }
  const accounted = (id) => seen.out.has(id) || seen.caught.has(id) || seen.completed.has(id);
  return { seen, statuses, accounted };
}

/** Outputs can be large (a year of entries): keep what a leak check needs, not every number. */
function captureOutput(msg) {
  const { payload, ...rest } = msg;
  capture(rest);
  if (typeof payload === 'string') capture(payload.slice(0, 2000));
  else if (Array.isArray(payload)) capture(payload.slice(0, 3));
  else capture(payload);
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
  ...env, captured, capture, captureLog, simClockSettings, accountedFlow, accountant, loopWatch, crashWatch, sleep, waitUntil, figure,
};
