'use strict';
// A Node-RED as a palette user without FlowFuse Dashboard 2 has it: this package in the user directory and
// nothing else. Node-RED also loads every node package in each node_modules above its core nodes, and the
// repository's node_modules holds Dashboard 2 (a devDependency), so the core nodes are given through a link
// outside the repository (`coreNodesDir`). The simulator runs beside it on a free port; with `clockOffsetMs`, both
// run that far from the wall clock (a test's chosen instant).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;
const { freePort, stopChild } = require('../support/processes');
const { OFFSET_ENV } = require('../../scripts/shifted-clock');
/** Node-RED 4 by default; NODE_RED_MAJOR=5 (run on Node.js 22 or later) starts Node-RED 5. */
const { NODE_RED_DIR } = require('../support/node-red');

async function startBareNodeRed({ clockOffsetMs } = {}) {
  const { startSimulator } = require(path.join(ROOT, 'dist/simulator/index.js'));
  const clocked = clockOffsetMs !== undefined ? { now: (Date.now() + clockOffsetMs) / 1000 } : {};
  const simulator = await startSimulator({ port: 0, host: '127.0.0.1', ...clocked });
  // Started there, the simulator's clock runs on from it, as Node-RED's does (scripts/shifted-clock.js).
  if (clockOffsetMs !== undefined) simulator.control.setClock({ now: (Date.now() + clockOffsetMs) / 1000, real: true });
  const clock = clockOffsetMs !== undefined
    ? { args: ['--require', path.join(ROOT, 'scripts/shifted-clock.js')], env: { [OFFSET_ENV]: String(clockOffsetMs) } }
    : { args: [], env: {} };
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-e2e-bare-'));
  const userDir = path.join(base, 'user');
  const link = path.join(userDir, 'node_modules', ...PACKAGE_NAME.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(ROOT, link, 'dir');
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'bare-user-dir', private: true, dependencies: { [PACKAGE_NAME]: `file:${ROOT}` } }));
  const coreNodes = path.join(base, 'core-nodes');
  fs.symlinkSync(path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] })), coreNodes, 'dir');
  const settingsFile = path.join(base, 'settings.js');
  fs.writeFileSync(settingsFile, `module.exports = { ...require(${JSON.stringify(path.join(ROOT, 'scripts/start-settings.js'))}), coreNodesDir: ${JSON.stringify(coreNodes)} };\n`);

  const port = await freePort();
  const logs = [];
  const child = spawn(process.execPath, [...clock.args, path.join(NODE_RED_DIR, 'red.js'), '-u', userDir, '-p', String(port), '-s', settingsFile], {
    cwd: userDir, env: { ...process.env, ...clock.env, NODE_RED_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk) => { for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(line); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const editorUrl = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    await stopChild(child);
    await simulator.close();
    fs.rmSync(base, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      if ((await fetch(new URL('settings', editorUrl))).ok) break;
    } catch { /* not listening yet */ }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`bare Node-RED did not start:\n${logs.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { editorUrl, simulator, userDir, logs, child, stop };
}

/** Admin API call on a Node-RED (v2 flows API). */
async function admin(editorUrl, method, route, body) {
  const res = await fetch(new URL(route, editorUrl), {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

module.exports = { startBareNodeRed, admin };
