'use strict';
// `npm start`: the simulator (unless ENERGY_API_URL is set) and a real Node-RED with this
// package, FlowFuse Dashboard 2 and the example flows deployed. Also used as a library by
// the end-to-end tests, so they start exactly what `npm start` starts.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { buildDemoFlows, demoConfigNode, DEMO_CONFIG_ID } = require('./demo-flows');
const { ensureNodeRed, nodeRedDir } = require('./runtimes');
const { OFFSET_ENV } = require('./shifted-clock');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = require('../package.json').name;
const DASHBOARD = '@flowfuse/node-red-dashboard';
const SETTINGS_FILE = path.join(__dirname, 'start-settings.js');
const READY_TIMEOUT_MS = 60000;
/** Inside the user directory: the simulator's state (PATCHed values, switch history). */
const SIM_STATE_FILE = 'simulator-state.json';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Node-RED 4 by default; NODE_RED_MAJOR=5 runs Node-RED 5. Both run on the Node.js running this
 * script (scripts/test.js runs the Node-RED 5 suites on Node.js 22 and 24; Node-RED 5 needs >= 22.9).
 */
function nodeRedCommand(major) {
  // Node-RED 5 is no devDependency (it would make `npm ci` on Node.js 20 warn): it comes from the runtime cache.
  if (String(major) === '5') {
    const nodeRed5 = ensureNodeRed('5');
    if (nodeRed5.error) throw new Error(`Node-RED 5 is not installed: ${nodeRed5.error} (node scripts/runtimes.js install)`);
  }
  return { node: process.execPath, redJs: path.join(nodeRedDir(String(major) === '5' ? '5' : '4'), 'red.js') };
}

function linkModule(userDir, name, target) {
  const link = path.join(userDir, 'node_modules', ...name.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  try {
    if (fs.realpathSync(link) === fs.realpathSync(target)) return;
    fs.rmSync(link, { recursive: true, force: true });
  } catch {
    fs.rmSync(link, { force: true });
  }
  fs.symlinkSync(target, link, 'dir');
}

/** The user directory loads this package and Dashboard 2 as if installed from the palette. */
function prepareUserDir(userDir) {
  fs.mkdirSync(userDir, { recursive: true });
  const dashboard = path.dirname(require.resolve(`${DASHBOARD}/package.json`, { paths: [ROOT] }));
  const pkg = {
    name: 'energy-api-demo-user-dir',
    description: 'Node-RED user directory of `npm start` (generated)',
    version: '0.0.0',
    private: true,
    dependencies: { [PACKAGE_NAME]: `file:${ROOT}`, [DASHBOARD]: require(path.join(dashboard, 'package.json')).version },
  };
  fs.writeFileSync(path.join(userDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  linkModule(userDir, PACKAGE_NAME, ROOT);
  linkModule(userDir, DASHBOARD, dashboard);
}

function assertBuilt() {
  for (const file of ['dist/simulator/index.js', 'dist/nodes/energy-api/energy-api.js']) {
    if (!fs.existsSync(path.join(ROOT, file))) throw new Error(`${file} is missing: run \`npm run build\` first (npm start does it)`);
  }
}

async function adminRequest(editorUrl, method, route, body) {
  const res = await fetch(new URL(route, editorUrl), {
    method,
    headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function waitForEditor(editorUrl, child, logs) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Node-RED exited before it was ready:\n${logs.slice(-30).join('\n')}`);
    }
    try {
      const res = await fetch(new URL('settings', editorUrl));
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Node-RED did not answer within ${READY_TIMEOUT_MS / 1000} s:\n${logs.slice(-30).join('\n')}`);
}

/**
 * First start (or reset): deploy the demo flows. Later starts keep the user's flows and only
 * re-point the demo config node when it targets a simulator or ENERGY_API_URL is given.
 */
async function deployFlows(editorUrl, { baseUrl, amberUrl, forecastSolarUrl, real, reset }) {
  const current = await adminRequest(editorUrl, 'GET', 'flows');
  const existing = current.flows || [];
  if (reset || existing.length === 0) {
    await adminRequest(editorUrl, 'POST', 'flows', { flows: buildDemoFlows({ baseUrl, amberUrl, forecastSolarUrl, name: real ? 'Energy API' : 'Energy API (simulator)' }) });
    return 'deployed';
  }
  const config = existing.find((n) => n.id === DEMO_CONFIG_ID);
  const pointsAtSimulator = config && /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(config.baseUrl || '');
  if (!config || config.baseUrl === baseUrl || (!real && !pointsAtSimulator)) return 'kept';
  const flows = existing.map((n) => (n.id === DEMO_CONFIG_ID ? demoConfigNode(n, baseUrl) : n));
  await adminRequest(editorUrl, 'POST', 'flows', { rev: current.rev, flows });
  return 'repointed';
}

function stopChild(child, timeoutMs = 10000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * @param {object} [opts]
 * @param {number} [opts.port] Node-RED port; 0 = a free one. Default env PORT or 1880.
 * @param {number} [opts.simPort] simulator port; 0 = a free one. Default env SIM_PORT or 8787.
 * @param {string} [opts.userDir] default env NODE_RED_USER_DIR or <repo>/.node-red-user
 * @param {string} [opts.apiUrl] the real service (default env ENERGY_API_URL); no simulator then.
 * @param {string} [opts.apiKey] key for apiUrl (default env ENERGY_API_KEY).
 * @param {boolean} [opts.reset] deploy the demo flows even if the user directory has flows.
 * @param {number} [opts.extraDevices] seeded extra sites the simulator adds (tests of a fleet-sized key).
 *   (The simulator keeps its state in <userDir>/simulator-state.json; delete it to start the devices fresh.)
 * @param {(line: string) => void} [opts.log] where Node-RED's output goes (default: stdout).
 * @param {number} [opts.clockOffsetMs] tests only: the simulator and Node-RED (its nodes, the flows' function nodes,
 *   Dashboard 2) run this far from the wall clock, at its pace (scripts/shifted-clock.js), so a test chooses the instant.
 */
async function start(opts = {}) {
  assertBuilt();
  const env = process.env;
  const apiUrl = opts.apiUrl !== undefined ? opts.apiUrl : env.ENERGY_API_URL;
  const real = Boolean(apiUrl);
  if (real && !(opts.apiKey || env.ENERGY_API_KEY)) throw new Error('ENERGY_API_URL is set: set ENERGY_API_KEY too');
  const userDir = path.resolve(opts.userDir || env.NODE_RED_USER_DIR || path.join(ROOT, '.node-red-user'));
  const port = opts.port !== undefined ? opts.port : Number(env.PORT || 1880);
  const simPort = opts.simPort !== undefined ? opts.simPort : Number(env.SIM_PORT || 8787);
  const log = opts.log || ((line) => process.stdout.write(`${line}\n`));

  let simulator = null;
  let apiKey;
  let baseUrl;
  // Amber prices: the simulator's endpoint and demo key, or AMBER_API_URL and AMBER_API_KEY when given.
  let amberUrl = env.AMBER_API_URL;
  let amberKey = env.AMBER_API_KEY || '';
  if (real) {
    baseUrl = apiUrl.replace(/\/+$/, '');
    apiKey = opts.apiKey || env.ENERGY_API_KEY;
  } else {
    const { startSimulator, SIM_KEYS, SIM_AMBER_KEY } = require(path.join(ROOT, 'dist/simulator/index.js'));
    // Switch states, labels and other PATCHed values survive a restart (the user directory is git-ignored).
    const clocked = opts.clockOffsetMs !== undefined ? { now: (Date.now() + opts.clockOffsetMs) / 1000 } : {};
    simulator = await startSimulator({ port: simPort, host: '127.0.0.1', stateFile: path.join(userDir, SIM_STATE_FILE), extraDevices: opts.extraDevices, ...clocked });
    // Started there, the simulator's clock runs on from it.
    if (opts.clockOffsetMs !== undefined) simulator.control.setClock({ now: (Date.now() + opts.clockOffsetMs) / 1000, real: true });
    baseUrl = simulator.baseUrl;
    apiKey = SIM_KEYS.full;
    amberUrl ??= simulator.amberUrl;
    if (!env.AMBER_API_URL) amberKey = SIM_AMBER_KEY;
  }

  const logs = [];
  let child = null;
  try {
    prepareUserDir(userDir);
    const editorPort = port === 0 ? await freePort() : port;
    const { node, redJs } = nodeRedCommand(opts.nodeRedMajor || env.NODE_RED_MAJOR);
    const clock = opts.clockOffsetMs !== undefined
      ? { args: ['--require', path.join(__dirname, 'shifted-clock.js')], env: { [OFFSET_ENV]: String(opts.clockOffsetMs) } }
      : { args: [], env: {} };
    // The key reaches Node-RED only through its environment (`${ENERGY_API_KEY}` credential).
    child = spawn(node, [...clock.args, redJs, '-u', userDir, '-p', String(editorPort), '-s', SETTINGS_FILE], {
      cwd: userDir,
      env: { ...env, ...clock.env, ENERGY_API_KEY: apiKey, AMBER_API_KEY: amberKey, NODE_RED_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk) => {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue;
        logs.push(line);
        log(line);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const editorUrl = `http://127.0.0.1:${editorPort}/`;
    await waitForEditor(editorUrl, child, logs);
    const flows = await deployFlows(editorUrl, { baseUrl, amberUrl, forecastSolarUrl: simulator?.forecastSolarUrl, real, reset: Boolean(opts.reset) });

    let stopping = null;
    return {
      editorUrl,
      dashboardUrl: `${editorUrl}dashboard`,
      baseUrl,
      simulator,
      userDir,
      flows,
      child,
      logs,
      stop() {
        stopping = stopping || (async () => {
          await stopChild(child);
          if (simulator) await simulator.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    if (child) await stopChild(child);
    if (simulator) await simulator.close();
    throw err;
  }
}

async function main() {
  const reset = process.argv.includes('--reset');
  const demo = await start({ reset });
  const target = demo.simulator ? `the simulator at ${demo.baseUrl} (demo key, no setup needed)` : `${demo.baseUrl} (key from ENERGY_API_KEY)`;
  const flowsNote = {
    deployed: 'example flows deployed',
    kept: 'your flows kept (`npm start -- --reset` restores the example flows)',
    repointed: 'your flows kept, the Energy API config node re-pointed',
  }[demo.flows];
  process.stdout.write([
    '',
    `  Node-RED editor:   ${demo.editorUrl}`,
    `  Dashboard:         ${demo.dashboardUrl}`,
    `  Energy API:        ${target}`,
    `  Flows:             ${flowsNote}`,
    '  Ctrl-C stops everything.',
    '',
  ].join('\n') + '\n');
  let exiting = false;
  const shutdown = (code) => {
    if (exiting) return;
    exiting = true;
    demo.stop().then(() => process.exit(code), () => process.exit(1));
  };
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
  demo.child.once('exit', (code) => {
    if (!exiting) {
      process.stderr.write(`Node-RED stopped (exit code ${code}).\n`);
      shutdown(code || 1);
    }
  });
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`npm start failed: ${err.message}\n`);
    process.exit(1);
  });
}

module.exports = { start };
