'use strict';
// A busy host on demand: `LOAD=n` busy-loop processes beside a bench or test, at normal priority, as a stand-in for
// a Raspberry Pi running other flows. Started and stopped by the bench or test itself; each burner also exits on its
// own once its parent is gone (a killed bench leaves nothing running).
// `node scripts/busy-host.js 2` burns beside anything (for example `npm test`) until Ctrl-C.
const { spawn } = require('node:child_process');
const os = require('node:os');

/** Polls its parent every ~10^7 turns (a few ms) and exits once it has gone. */
const BURNER = `const parent = ${'${PARENT}'}; for (let i = 1; ; i++) if (i % 1e7 === 0 && process.ppid !== parent) process.exit(0);`;

/** How many burners the LOAD environment variable asks for (0 when unset). */
function requestedLoad(env = process.env) {
  const n = Number(env.LOAD ?? 0);
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new Error(`LOAD must be a whole number of busy processes (0–64), not ${JSON.stringify(env.LOAD)}`);
  return n;
}

const running = new Set();
process.on('exit', () => { for (const child of running) child.kill('SIGKILL'); });

/**
 * Starts `count` busy-loop processes (default: LOAD) at this process's priority; `stop()` ends them and resolves once
 * they have exited. With count 0 it starts nothing.
 */
function startBusyHost(count = requestedLoad()) {
  const children = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', BURNER.replace('${PARENT}', String(process.pid))], { stdio: 'ignore' });
    try { os.setPriority(child.pid, os.getPriority(process.pid)); } catch { /* it has ours already */ }
    running.add(child);
    child.once('exit', () => running.delete(child));
    children.push(child);
  }
  const stop = () => Promise.all(children.map((child) => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGKILL');
  })));
  return { count, stop, describe: () => (count ? `LOAD=${count} (${count} busy-loop processes beside)` : 'no added load') };
}

module.exports = { startBusyHost, requestedLoad };

if (require.main === module) {
  const burner = startBusyHost(Number(process.argv[2] ?? requestedLoad()) || 2);
  process.stdout.write(`${burner.describe()}; Ctrl-C stops them\n`);
  const end = () => burner.stop().then(() => process.exit(0));
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  setInterval(() => undefined, 1 << 30);
}
