'use strict';
// What the fleet benches share: the simulator and the gateway in front of it, each in its own process at a
// raised priority where the system allows it (they stand for a service on its own machines, so the load of this
// machine does not delay when arrivals are stamped), their control routes, and the sliding-second count.
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const children = new Set();
process.on('exit', () => { for (const child of children) child.kill(); });
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1));

/** `command` pinned to the CPUs in `cpus` (taskset's list, e.g. "1") when given and taskset is installed. */
function pinned(cpus, command, args) {
  if (cpus === undefined || !TASKSET) return { command, args };
  return { command: TASKSET, args: ['-c', cpus, command, ...args] };
}
/**
 * One thread (a process's main thread: its pid) pinned to `cpus`, its other threads left free: the event loop being
 * measured gets a CPU of its own, while V8's collector threads run beside it as they would on a machine with more
 * cores instead of taking turns with the loop they serve.
 */
function pinThread(tid, cpus) {
  if (!TASKSET) return false;
  return require('node:child_process').spawnSync(TASKSET, ['-p', '-c', cpus, String(tid)], { stdio: 'ignore' }).status === 0;
}
const installed = (...files) => files.find((f) => require('node:fs').existsSync(f));
const TASKSET = installed('/usr/bin/taskset', '/bin/taskset');
const CHRT = installed('/usr/bin/chrt', '/bin/chrt');

/**
 * `command` in the real-time class (SCHED_FIFO) when chrt may put it there: a nice value only ranks a process
 * within its own session's group, so on a host shared with other sessions a niced stamper still waits its turn.
 */
function realTime(run) {
  if (!CHRT || !REAL_TIME_ALLOWED) return run;
  return { command: CHRT, args: ['-f', '50', run.command, ...run.args] };
}
/** The stamping gateway in the real-time class only when asked: on the simulator's CPU it starved the simulator at 102/s. */
const REAL_TIME_GATEWAY = process.env.BENCH_REALTIME_GATEWAY === '1';
const REAL_TIME_ALLOWED = CHRT !== undefined && require('node:child_process').spawnSync(CHRT, ['-f', '50', 'true']).status === 0;

/** A bench process (sim-process.js, gateway-process.js): resolves once it has printed its URL. */
function startChild(script, arg, { priority = -10, cpus, realtime = false } = {}) {
  return new Promise((resolve, reject) => {
    const plain = pinned(cpus, process.execPath, [path.join(__dirname, script), arg]);
    const run = realtime ? realTime(plain) : plain;
    const child = spawn(run.command, run.args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let prioritised = false;
    try {
      os.setPriority(child.pid, priority);
      prioritised = true;
    } catch { /* not permitted: it shares the CPU like any process */ }
    child.stdout.once('data', (d) => resolve({ url: String(d).trim(), child, prioritised, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) }));
    child.once('error', reject);
  });
}

/**
 * The simulator, and the gateway in front of it that stamps arrivals: clients talk to `apiUrl`. `cpus` pins both to
 * those CPUs (the service's own machine), so that at their raised priority they never take the CPU from the client.
 * `realtimeGateway` puts the gateway in the real-time class where allowed (default: only with BENCH_REALTIME_GATEWAY=1;
 * the rate tests and the year bench at 5/s ask for it, the 102/s fleet bench does not).
 */
async function startSim(options, { cpus, realtimeGateway } = {}) {
  const sim = await startChild('sim-process.js', JSON.stringify({ ...options, arrivalStampHeader: true }), { cpus });
  // The gateway above the simulator: it does little, and stamps an arrival the moment it comes in even while the
  // simulator is busy building data.
  const gateway = await startGateway(sim.url, { cpus, realtime: realtimeGateway });
  return {
    url: sim.url, apiUrl: gateway.url, prioritised: sim.prioritised && gateway.prioritised, realTimeStamps: gateway.realTime,
    stop: () => Promise.all([gateway.stop(), sim.stop()]),
  };
}

/**
 * The gateway that stamps arrivals (X-Sim-Arrived-At) in front of a simulator started with `arrivalStampHeader`, in
 * its own process at the highest priority allowed: the service's gateway is not on the busy host. A rate test at a
 * few requests per second asks for the real-time class (`realtime: true`): niced, on a host shared with other
 * sessions, the gateway stamped some arrivals 20–74 ms after the client had written them (beside two busy loops),
 * and the simulator refused a request that left in time; in the real-time class, at most 1 ms after. `realTime` in
 * the answer says whether it got that class.
 */
async function startGateway(simUrl, { cpus, realtime = REAL_TIME_GATEWAY } = {}) {
  const gateway = await startChild('gateway-process.js', simUrl, { priority: -15, cpus, realtime });
  return { ...gateway, realTime: realtime && REAL_TIME_ALLOWED };
}

/** A `/__sim/` control route of the simulator (not through the gateway). */
async function control(sim, method, route, body) {
  const res = await fetch(`${sim.url}/__sim/${route}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return res.json();
}

/** Most requests that arrived at the simulator inside any one second (the simulator's own sliding window). */
function maxPerSecond(log) {
  const at = log.map((r) => r.at).sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i] - at[j] >= 1000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

module.exports = { startChild, startSim, startGateway, control, maxPerSecond, loadAverage, pinned, pinThread };
