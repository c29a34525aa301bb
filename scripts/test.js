'use strict';
// `npm test` (after `npm run build`): every suite, each in its own mocha process on the Node.js it
// names. Node.js 22 and 24, and the package test's Node-RED installs, are fetched from the npm registry
// into a cache outside the project the first time (scripts/runtimes.js); when one cannot be fetched, what
// needs it is skipped and ONE line says so: a missing runtime never fails the run, a failing test always does.
//
//   node scripts/test.js [suite...]     no suite: all of them; --list prints the names
//
// Suites run side by side, at most TEST_JOBS at once (default 4): they spend most of their time waiting on
// real-time rate limits, timers and a browser, not on the CPU. Each suite's output goes to
// test-artifacts/suites/<suite>.log and is printed whole when the suite ends, so logs never interleave. The summary
// lists under each suite what its tests skipped and why (no browser, no Mosquitto, no database server, ...).
// TEST_JOBS=1 runs them one after another with their output live.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { NODE_RED_RUNTIMES, CACHE_DIR, findNode, ensureNode, findNodeRed, ensureNodeRed, resolvePackageRuntimes, envFor } = require('./runtimes');
const { readSkips, skipLines } = require('../test/support/skip');

const ROOT = path.resolve(__dirname, '..');
const MOCHA = require.resolve('mocha/bin/mocha.js', { paths: [ROOT] });
const machineMajor = Number(process.versions.node.split('.')[0]);

const SUITES = [
  { name: 'unit', title: 'layout, scripts, domain, client, simulator, prices and plans', nodeMajors: [machineMajor],
    specs: ['test/layout.test.js', 'test/scripts/**/*.test.js', 'test/domain/**/*.test.js', 'test/api/**/*.test.js', 'test/simulator/**/*.test.js', 'test/prices/**/*.test.js'] },
  ...NODE_RED_RUNTIMES.map((r) => ({
    name: `node-red-${r.nodeRed}-node${r.nodeMajor}`,
    title: `nodes and browser on Node-RED ${r.nodeRed}, Node.js ${r.nodeMajor}`,
    nodeMajors: [r.nodeMajor],
    nodeRed: r.nodeRed,
    env: { NODE_RED_MAJOR: r.nodeRed },
    specs: ['test/nodes/**/*.test.js', 'test/e2e/**/*.test.js'],
  })),
  // Runs on the machine's Node.js and starts Node-RED itself on each of NODE_RED_RUNTIMES.
  { name: 'package', title: 'pack, install as the palette manager does, run on Node-RED 4 and 5',
    nodeMajors: [machineMajor], packageRuntimes: true, specs: ['test/package/**/*.test.js'] },
];

function selectSuites(names) {
  if (names.length === 0) return SUITES;
  const unknown = names.filter((n) => !SUITES.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`unknown suite ${unknown.join(', ')}; suites: ${SUITES.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  return SUITES.filter((s) => names.includes(s.name));
}

/** The Node.js runtimes the suites need (fetched once into the cache), by major. */
function resolveRuntimes(suites) {
  const packageTest = suites.some((s) => s.packageRuntimes);
  const majors = [...new Set(suites.flatMap((s) => [...s.nodeMajors, ...(packageTest ? NODE_RED_RUNTIMES.map((r) => r.nodeMajor) : [])]))];
  const runtimes = new Map();
  for (const major of majors) {
    if (!findNode(major)) console.log(`fetching Node.js ${major} from the npm registry into ${CACHE_DIR} (once)`);
    runtimes.set(major, ensureNode(major));
  }
  return runtimes;
}

function announceNodeRedFetch(major) {
  if (!findNodeRed(major)) console.log(`fetching Node-RED ${major} from the npm registry into ${CACHE_DIR} (once)`);
}

/** The package test's Node-RED installs (outside the project, fetched once into the cache). */
function resolveNodeReds(runtimes) {
  for (const major of new Set(NODE_RED_RUNTIMES.map((r) => r.nodeRed))) announceNodeRedFetch(major);
  return resolvePackageRuntimes((major) => runtimes.get(major));
}

/** Why a suite cannot run here (a runtime or its Node-RED 5 could not be fetched), else null. */
function missingFor(suite, runtimes) {
  const runtime = suite.nodeMajors.map((m) => runtimes.get(m)).find((r) => r.error);
  if (runtime) return runtime.error;
  if (suite.nodeRed !== '5') return null;
  announceNodeRedFetch('5');
  return ensureNodeRed('5').error || null;
}

const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const JOBS = Math.max(1, Number(process.env.TEST_JOBS) || 4);

/** Runs one suite in its own mocha process; resolves with its result once it has exited. */
function runSuite(suite, runtimes, packageRuntimes, live) {
  const runtime = runtimes.get(suite.nodeMajors[0]);
  const env = envFor(runtime.bin, { ...process.env, ...suite.env, TEST_ARTIFACTS_DIR: path.join(ARTIFACTS, suite.name) });
  if (suite.packageRuntimes) env.ENERGY_API_TEST_RUNTIMES = JSON.stringify(packageRuntimes);
  const banner = `\n=== ${suite.name}: ${suite.title} ===`;
  const started = Date.now();
  const args = [MOCHA, '--no-config', '--timeout', '30000', '--exit', '--require', 'test/support/versions.js', ...suite.specs];
  const logFile = path.join(ARTIFACTS, 'suites', `${suite.name}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  // What the suite's tests skip and why (test/support/skip.js), for the summary.
  const skipsFile = path.join(ARTIFACTS, 'suites', `${suite.name}.skips`);
  fs.rmSync(skipsFile, { force: true });
  env.ENERGY_API_SKIPS_FILE = skipsFile;
  if (live) console.log(banner);
  else console.log(`started ${suite.name}`);
  return new Promise((resolve) => {
    const log = live ? null : fs.openSync(logFile, 'w');
    const child = spawn(runtime.bin, args, { cwd: ROOT, env, stdio: live ? 'inherit' : ['ignore', log, log] });
    child.once('exit', (code, signal) => {
      if (log !== null) {
        fs.closeSync(log);
        console.log(banner);
        process.stdout.write(fs.readFileSync(logFile));
      }
      const status = code === 0 ? 'passed' : 'FAILED';
      resolve({ suite, runtime, status: signal ? `FAILED (${signal})` : status, seconds: Math.round((Date.now() - started) / 1000), skips: readSkips(skipsFile) });
    });
  });
}

/** Runs the suites, at most `jobs` at once; results in the suites' order. */
async function runAll(suites, runtimes, packageRuntimes, jobs) {
  const results = new Array(suites.length);
  let next = 0;
  const worker = async () => {
    while (next < suites.length) {
      const i = next;
      next += 1;
      results[i] = await runSuite(suites[i], runtimes, packageRuntimes, jobs === 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, suites.length) }, worker));
  return results;
}

/** "npm could not install a: why; npm could not install b: why" → "npm could not install a, b (why)". */
function summarise(reasons) {
  const parsed = reasons.map((r) => /^npm could not install (\S+): (.*)$/.exec(r));
  if (!parsed.every(Boolean)) return reasons.join('; ');
  return `npm could not install ${parsed.map((m) => m[1]).join(', ')} (${parsed[0][2]})`;
}

async function main() {
  const names = process.argv.slice(2);
  if (names.includes('--list')) {
    for (const s of SUITES) console.log(`${s.name.padEnd(20)} ${s.title}`);
    return 0;
  }
  const suites = selectSuites(names);
  const runtimes = resolveRuntimes(suites);
  const packageRuntimes = suites.some((s) => s.packageRuntimes) ? resolveNodeReds(runtimes) : [];
  const missing = new Map(suites.map((suite) => [suite.name, missingFor(suite, runtimes)]).filter(([, why]) => why));
  const skipped = [...missing.keys()];
  const started = Date.now();
  const results = await runAll(suites.filter((suite) => !skipped.includes(suite.name)), runtimes, packageRuntimes, JOBS);
  const missingForPackage = results.some((r) => r.suite.packageRuntimes) ? packageRuntimes.filter((r) => r.error) : [];
  if (missingForPackage.length) {
    skipped.push(`the package test on Node.js ${missingForPackage.map((r) => r.nodeMajor).join(', ')}`);
  }
  const reasons = [...new Set([...missing.values(), ...[...runtimes.values(), ...packageRuntimes].map((r) => r.error)].filter(Boolean))];

  console.log(`\n=== summary (${JOBS} at once, ${Math.round((Date.now() - started) / 1000)} s in all) ===`);
  for (const r of results) {
    console.log(`${r.status.padEnd(7)} ${r.suite.name.padEnd(20)} ${r.runtime.version.padEnd(9)} ${String(r.seconds).padStart(4)} s  ${r.suite.title}`);
    for (const line of skipLines(r.skips)) console.log(line);
  }
  if (skipped.length) console.log(`skipped ${skipped.join(', ')}: ${summarise(reasons)}`);
  return results.some((r) => r.status !== 'passed') ? 1 : 0;
}

main().then((code) => { process.exitCode = code; }, (err) => { console.error(err); process.exitCode = 1; });
