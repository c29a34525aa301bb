'use strict';
// Loaded by the Node-RED settings of bench/fleet-follow.js, inside the Node-RED process it measures: the nodes'
// clock (real time plus an offset the bench moves), that process's event loop, heap and CPU, and what the flow's
// record functions hand it (global context `fleetProbe`). The bench asks for figures over IPC; the probe keeps
// only counters and one number per output, so it does not grow the heap it measures.
const { monitorEventLoopDelay, PerformanceObserver, performance } = require('node:perf_hooks');
const v8 = require('node:v8');

const MS = 1e6;

const { threadTimes, stallParts } = require('../test/support/loop-stalls');

function createProbe() {
  let offsetMs = 0;
  let loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let cpuFrom = process.cpuUsage();
  let phase = 'start';
  const counts = {};
  let ages = [];
  const errors = [];
  /** Per device and kind: newest timestamp emitted, outputs out of order, and what came since the epoch began. */
  const emitted = new Map();
  const switches = [];
  let epoch = 0;
  /** Per device and kind, when its first output of the current phase came (the catch-up's end is the last of them). */
  let firstOutputs = new Map();
  /** When the last short or long output came. */
  let lastOutputAt = 0;

  const now = () => Date.now() + offsetMs;
  /** Turns of the event loop later than 50 ms, when they ended (to put a stall beside what the flow did then). */
  const stalls = [];
  let tick = { at: Date.now(), ...threadTimes() };
  setInterval(() => {
    const now = { at: Date.now(), ...threadTimes() };
    const ms = now.at - tick.at - 10;
    if (ms > 50 && stalls.length < 200) {
      // While the loop stood: what its thread ran, what it waited for its own process's threads, and the host's share.
      const { hostMs, ...parts } = stallParts(ms, tick, now);
      stalls.push({ at: now.at, ...parts, phase });
    }
    tick = now;
  }, 10).unref();
  /** Collections that paused the main thread 20 ms or more, when they ended: a stall beside one is the collector's. */
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration >= 20 && pauses.length < 200) pauses.push({ at: Math.round(performance.timeOrigin + e.startTime + e.duration), ms: Math.round(e.duration), kind: e.detail?.kind, phase });
  }).observe({ entryTypes: ['gc'] });
  const bump = (name, by = 1) => { counts[`${phase}:${name}`] = (counts[`${phase}:${name}`] ?? 0) + by; };

  function take(kind, msg) {
    const entries = Array.isArray(msg.payload) ? msg.payload : [];
    const key = `${kind}:${msg.deviceId}`;
    const seen = emitted.get(key) ?? { newest: -Infinity, disorder: 0, epoch: 0, before: -Infinity, since: 0 };
    if (seen.epoch !== epoch) {
      seen.epoch = epoch;
      seen.before = seen.newest;
      seen.since = 0;
    }
    for (const e of entries) {
      // Follow emits each entry once, oldest first; the simulator has no late entries, so an entry not newer
      // than the last one emitted is one emitted twice (or out of order).
      if (!(e.timestamp > seen.newest)) seen.disorder += 1;
      else seen.newest = e.timestamp;
      seen.since += 1;
    }
    emitted.set(key, seen);
    if (!firstOutputs.has(key)) firstOutputs.set(key, Date.now());
    lastOutputAt = Date.now();
    bump(`${kind}Outputs`);
    bump(`${kind}Entries`, entries.length);
    return entries;
  }

  const probe = {
    now,
    short(msg) {
      const entries = take('short', msg);
      if (entries.length) ages.push((now() - entries[entries.length - 1].timestamp * 1000) / 1000);
    },
    long(msg) { take('long', msg); },
    status(msg) { bump('statusOutputs'); bump('statusDevices', Array.isArray(msg.payload) ? msg.payload.length : 0); },
    trigger(kind, count) { bump(`${kind}Triggers`); bump(`${kind}Msgs`, count); counts[`last:${kind}`] = Date.now(); },
    switchIssued(deviceId) { bump('switchIssued'); switches.push({ deviceId, at: Date.now(), phase }); },
    switchDone(outcome) { bump(`switch:${outcome}`); },
    error(msg) {
      bump('errors');
      if (errors.length < 20) errors.push({ phase, at: Date.now(), node: msg.error?.source?.type, code: msg.apiError?.code, message: String(msg.error?.message ?? '').slice(0, 160) });
    },
  };

  const loopFigures = () => ({ p99Ms: loop.percentile(99) / MS, maxMs: loop.max / MS, meanMs: loop.mean / MS, count: loop.count });
  /** CPU the probe's own full collections took in this phase: not the flow's. */
  let probeCpuMs = 0;
  const cpuMs = () => { const c = process.cpuUsage(cpuFrom); return (c.user + c.system) / 1000 - probeCpuMs; };
  const agesP = (p) => {
    if (ages.length === 0) return undefined;
    const sorted = Float64Array.from(ages).sort();
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  };

  const commands = {
    /** Moves the nodes' clock to `ms` (unix ms) now, or by `advanceMs`. */
    clock({ ms, advanceMs }) {
      if (ms !== undefined) offsetMs = ms - Date.now();
      if (advanceMs !== undefined) offsetMs += advanceMs;
      return { now: now() };
    },
    /** Starts a phase: the loop histogram, CPU, ages and counts start afresh; returns the last phase's figures. */
    phase({ name }) {
      const figures = commands.figures();
      phase = name;
      loop.disable();
      loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      cpuFrom = process.cpuUsage();
      probeCpuMs = 0;
      ages = [];
      firstOutputs = new Map();
      return figures;
    },
    figures() {
      const mine = {};
      for (const [k, v] of Object.entries(counts)) if (k.startsWith(`${phase}:`)) mine[k.slice(phase.length + 1)] = v;
      return {
        phase, loop: loopFigures(), cpuMs: cpuMs(), ages: { count: ages.length, p50: agesP(50), p95: agesP(95), max: agesP(100) },
        counts: mine, outputs: { keys: firstOutputs.size, lastFirstAt: Math.max(0, ...firstOutputs.values()), lastAt: lastOutputAt }, lastTrigger: { short: counts['last:short'], long: counts['last:long'] }, errors: errors.filter((e) => e.phase === phase),
      };
    },
    /** Heap after a full collection; the collection is the bench's, so the loop histogram does not see it. */
    heap() {
      loop.disable();
      const before = process.cpuUsage();
      global.gc();
      const spent = process.cpuUsage(before);
      probeCpuMs += (spent.user + spent.system) / 1000;
      const used = process.memoryUsage().heapUsed;
      // Compiled code and bytecode with their metadata grow for minutes as V8 optimises more of the flow's paths,
      // then settle; the rest is the data a leak would grow.
      const code = v8.getHeapCodeStatistics();
      loop.enable();
      return { mb: used / 2 ** 20, dataMb: (used - code.code_and_metadata_size - code.bytecode_and_metadata_size) / 2 ** 20 };
    },
    /** From now on, each device's outputs are counted apart (the back-fill after an outage). */
    epoch() { epoch += 1; return { epoch }; },
    emitted() {
      const out = {};
      for (const [key, s] of emitted) out[key] = { newest: s.newest, disorder: s.disorder, before: s.epoch === epoch ? s.before : s.newest, since: s.epoch === epoch ? s.since : 0 };
      return out;
    },
    /** A heap snapshot into `dir` (FLEET_HEAP_SNAPSHOTS: to see what a growing heap holds). */
    snapshot({ dir }) { return { file: v8.writeHeapSnapshot(require('node:path').join(dir, `fleet-${Date.now()}.heapsnapshot`)) }; },
    switches() { return switches; },
    stalls() { return stalls; },
    pauses() { return pauses; },
  };

  process.on('message', (message) => {
    if (!message || typeof message !== 'object' || typeof message.cmd !== 'string' || !commands[message.cmd]) return;
    let reply;
    try {
      reply = { id: message.id, result: commands[message.cmd](message.args ?? {}) };
    } catch (err) {
      reply = { id: message.id, error: String(err && err.message) };
    }
    process.send(reply);
  });
  return probe;
}

module.exports = { createProbe };
