'use strict';
// Shared by the reliability suites: a real Node-RED runtime on the simulator's clock, a flow that
// accounts for every message (outputs, Catch, done without error), event-loop and rejection watchers, and the
// texts captured for the secrets check that runs after every suite.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const { threadTimes, stallParts } = require('../support/loop-stalls');
const env = require('../support/env');
const { SIM_KEYS } = require('../../dist/simulator');

const { helper } = env;

/**
 * Secrets (the API key, every PSK) registered by the suites, and every place one was seen: each
 * output, Catch msg, status and log line is scanned as it comes (secrets.rel.js asserts none).
 */
const captured = { secrets: new Set(), leaks: [], scanned: 0 };

/**
 * Where the suites' clocks start, never at the wall clock: 23:55 in Sydney (the demo sites' zone, 12:55 UTC) on
 * 4 April 2026, the night its daylight saving time ends at 03:00, on a 5-minute mark.
 */
const BEFORE_SITE_MIDNIGHT_S = Date.UTC(2026, 3, 4, 12, 55) / 1000;

/**
 * Scans every string and key in `value` for a registered secret (iterative, bounded, no serialising).
 * The scan is queued and runs in slices of a few ms between the runtime's own work: it shares the event
 * loop with the nodes, whose stalls the suites measure, so it must never be a stall itself.
 */
function capture(value, where = 'output') {
  if (process.env.NO_CAPTURE) return;
  captured.scanned += 1;
  scans.push({ stack: [value], seen: new Set(), budget: 50_000, where });
  if (!scanning) {
    scanning = true;
    setImmediate(scanSlice);
  }
}

const scans = [];
let scanning = false;
/** Longest synchronous slice of scanning (ms). */
const SCAN_SLICE_MS = 3;

function scanSlice() {
  const until = performance.now() + SCAN_SLICE_MS;
  const secrets = [...captured.secrets];
  let steps = 0;
  let checkAt = 256;
  while (scans.length > 0) {
    const scan = scans[0];
    const { stack, seen, where } = scan;
    while (stack.length && scan.budget-- > 0) {
      const v = stack.pop();
      if (typeof v === 'string') {
        for (const secret of secrets) if (v.includes(secret)) captured.leaks.push(leakLine(where, v, secret));
      } else if (v && typeof v === 'object' && !seen.has(v) && !ArrayBuffer.isView(v)) {
        seen.add(v);
        if (v instanceof Error) stack.push(v.message, v.stack);
        if (Array.isArray(v)) {
          // Indexes directly: Object.keys of a 100,000-element array allocates 100,000 strings.
          const n = v.length;
          for (let i = 0; i < n; i = i === 999 && n > 2000 ? n - 1000 : i + 1) queueText(stack, v[i]);
          steps += Math.min(n, 2000);
        } else {
          const keys = Object.keys(v);
          for (const k of keys.length > 2000 ? keys.slice(0, 1000).concat(keys.slice(-1000)) : keys) {
            for (const secret of secrets) if (k.includes(secret)) captured.leaks.push(leakLine(`${where}: key`, k, secret));
            queueText(stack, v[k]);
          }
          steps += keys.length;
        }
      }
      if (++steps > checkAt) {
        if (performance.now() > until) return setImmediate(scanSlice);
        checkAt = steps + 256;
      }
    }
    scans.shift();
  }
  scanning = false;
}

/** Where a secret was seen, with the text before it: the report names the secret by its last 5 characters only. */
function leakLine(where, text, secret) {
  const at = text.indexOf(secret);
  return `${where}: …${text.slice(Math.max(0, at - 60), at)}<secret …${secret.slice(-5)}>`;
}

/** Only text can hold a secret: numbers (most of an output) are not even queued. */
function queueText(stack, child) {
  if (typeof child === 'string' || (child && typeof child === 'object')) stack.push(child);
}

/** Resolves once every captured value has been scanned (before reading `captured.leaks`). */
async function capturesScanned() {
  while (scanning) await new Promise((resolve) => setImmediate(resolve));
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

/** Node-RED's settings that put the nodes on the simulator's clock (`extra`: other settings, such as userDir). */
function simClockSettings(sim, extra = {}) {
  helper.settings({ ...extra, energyApi: { now: () => sim.control.now() * 1000 } });
}

/**
 * A flow around the given node defs: every output of each node goes to `out`, a Catch node reports
 * every message that ended with an error (the accountant counts those that ended without one).
 */
function accountedFlow(sim, nodeDefs, configExtra = {}) {
  const api = env.apiConfig(sim, sim.keys.full, configExtra);
  const flow = [
    api.node,
    ...nodeDefs.map((n) => ({ wires: [['out'], ['out']], ...n, api: 'api' })),
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
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
  // Completion without output or error is counted by Node-RED's onComplete hook, not a Complete node: that
  // node gets a deep clone of every finished msg (a 3,000-entry read clones for tens of ms), which would be
  // the harness's own load on the event loop the suites measure.
  const ids = new Set(nodeIds);
  helper._RED.hooks.remove('onComplete.accountant');
  helper._RED.hooks.add('onComplete.accountant', (event) => {
    if (!event.error && ids.has(event.node.id)) count(seen.completed, event.msg);
  });
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

/**
 * Event-loop delay over a stretch of work: max and p99 in ms, and when each stall over `stallMs` ended
 * (`process.hrtime` in ms), so a suite can name the work in flight at that moment, with its parts
 * (test/support/loop-stalls.js): `ownMaxMs` is the longest stall less what the host gave other processes.
 */
function loopWatch(stallMs = 100) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const stalls = [];
  let last = { at: performance.now(), ...threadTimes({ threads: true }) };
  const sentinel = setInterval(() => {
    const now = { at: performance.now(), ...threadTimes({ threads: true }) };
    const ms = now.at - last.at - 10;
    if (ms > stallMs) stalls.push({ ...stallParts(ms, last, now), endedAt: now.at });
    last = now;
  }, 10);
  return {
    stalls,
    stop() {
      clearInterval(sentinel);
      h.disable();
      const maxMs = h.max / 1e6;
      const ownMaxMs = stalls.length ? Math.max(...stalls.map((s) => s.ownMs)) : maxMs;
      return { maxMs, ownMaxMs, p99Ms: h.percentile(99) / 1e6, stalls };
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

/**
 * The test helper wraps Node's methods and the runtime log in sinon spies that keep every call with a
 * captured stack (an Error per call) and emit an event a tick later: for thousands of msgs that is the
 * harness's own load on the event loop it measures. Until the next load(), this keeps only what the
 * secrets check needs: statuses and log entries are scanned as they come (no `call:*` events, no history).
 */
function lightCalls() {
  const proto = helper._NodePrototype;
  for (const name of ['log', 'status', 'warn', 'error', 'debug', 'trace', 'send']) {
    const original = proto[name].wrappedMethod;
    if (typeof original !== 'function') throw new Error(`the test helper no longer spies on Node.${name}`);
    proto[name] = name !== 'status' ? original : function status(...args) {
      capture(args[0], 'status');
      return original.apply(this, args);
    };
  }
  const log = helper._log;
  const originalLog = log.log.wrappedMethod;
  if (typeof originalLog !== 'function') throw new Error('the test helper no longer spies on the log');
  log.log = function logged(...args) {
    capture(args[0], 'log');
    return originalLog.apply(this, args);
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

/** Prints a figure line the CI log keeps (and docs/benchmarks.md quotes). */
function figure(text) {
  console.log(`      » ${text}`);
}

module.exports = {
  ...env, BEFORE_SITE_MIDNIGHT_S, captured, capture, capturesScanned, captureLog, forgetCalls, lightCalls, simClockSettings, startRemoteSimulator, accountedFlow, accountant, loopWatch, crashWatch, sleep, waitUntil, figure,
};
