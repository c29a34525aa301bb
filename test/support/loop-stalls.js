'use strict';
// What an event-loop stall was made of, on Linux: how long the loop's thread ran, how long it was ready but waited for
// a CPU, and of that wait, how much this process's other threads (V8's collector, libuv's pool) ran. The rest of the
// wait is the host's: other processes on a busy machine. A gate on "no stall over 100 ms" is on the loop's own share
// (what it ran and what its own process took from it); the host's share is printed beside it. bench/fleet-probe.js
// and the reliability suite use it.
const fs = require('node:fs');

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const HAS_SCHEDSTAT = (() => { try { fs.readFileSync(SCHEDSTAT); return true; } catch { return false; } })();

/**
 * The loop thread's run and wait ms (schedstat) and the whole process's CPU ms; with `threads`, also the longest wait
 * for a CPU of each other thread so far (`threadWaits`, by thread id). Without schedstat every wait counts as the loop's own.
 */
function threadTimes({ threads = false } = {}) {
  const c = process.cpuUsage();
  const processCpuMs = (c.user + c.system) / 1000;
  if (!HAS_SCHEDSTAT) return { mainCpuMs: processCpuMs, mainWaitMs: 0, processCpuMs };
  const [run, wait] = fs.readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
  const times = { mainCpuMs: run / 1e6, mainWaitMs: wait / 1e6, processCpuMs };
  if (!threads) return times;
  const threadWaits = new Map();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    if (tid === String(process.pid)) continue;
    try {
      threadWaits.set(tid, Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6);
    } catch { /* the thread ended */ }
  }
  return { ...times, threadWaits };
}

/**
 * A stall of `ms` (wall) between two readings of threadTimes(): its parts, and `ownMs`, the wall time less the host's
 * share. The host's share: the loop's waits for a CPU beyond what its own process's threads ran meanwhile, and, when
 * both readings have `threadWaits`, the time the loop slept (neither ran nor waited) up to the longest any of its own
 * threads waited for a CPU: a loop joining its collector's helper threads sleeps while the host keeps them waiting.
 * Sleep beyond that (a blocking call, a page read from disk) stays its own.
 */
function stallParts(ms, from, to) {
  const ranMs = to.mainCpuMs - from.mainCpuMs;
  const waitedMs = to.mainWaitMs - from.mainWaitMs;
  const othersMs = Math.max(0, to.processCpuMs - from.processCpuMs - ranMs);
  const sleptMs = Math.max(0, ms - ranMs - waitedMs);
  let helpersWaitedMs = 0;
  if (from.threadWaits && to.threadWaits) {
    for (const [tid, waited] of to.threadWaits) helpersWaitedMs = Math.max(helpersWaitedMs, waited - (from.threadWaits.get(tid) ?? waited));
  }
  const hostMs = Math.max(0, Math.min(ms, Math.max(0, waitedMs - othersMs) + Math.min(sleptMs, helpersWaitedMs)));
  return {
    ms, ranMs: Math.round(ranMs), waitedMs: Math.round(waitedMs), othersMs: Math.round(othersMs), sleptMs: Math.round(sleptMs),
    helpersWaitedMs: Math.round(helpersWaitedMs), hostMs: Math.round(hostMs), ownMs: Math.round(ms - hostMs),
  };
}

module.exports = { threadTimes, stallParts, HAS_SCHEDSTAT };
