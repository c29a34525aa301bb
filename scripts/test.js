'use strict';
// `npm test` (after `npm run build`): every suite, each in its own mocha process on the Node.js it
// names. Node.js 22 and 24, and the package test's Node-RED installs, are fetched from the npm registry
// into a cache outside the project the first time (scripts/runtimes.js); when one cannot be fetched, what
// needs it is skipped and ONE line says so: a missing runtime never fails the run, a failing test always does.
//
//   node scripts/test.js [suite...]     no suite: all of them; --list prints the names
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { NODE_RED_RUNTIMES, CACHE_DIR, findNode, ensureNode, findNodeRed, resolvePackageRuntimes, envFor } = require('./runtimes');

const ROOT = path.resolve(__dirname, '..');
const MOCHA = require.resolve('mocha/bin/mocha.js', { paths: [ROOT] });
const machineMajor = Number(process.versions.node.split('.')[0]);

const SUITES = [
  { name: 'unit', title: 'client, simulator, prices and plans', nodeMajors: [machineMajor],
    specs: ['test/api/**/*.test.js', 'test/simulator/**/*.test.js', 'test/prices/**/*.test.js'] },
  ...NODE_RED_RUNTIMES.map((r) => ({
    name: `node-red-${r.nodeRed}-node${r.nodeMajor}`,
    title: `nodes and browser on Node-RED ${r.nodeRed}, Node.js ${r.nodeMajor}`,
    nodeMajors: [r.nodeMajor],
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

/** The package test's Node-RED installs (outside the project, fetched once into the cache). */
function resolveNodeReds(runtimes) {
  for (const pkg of new Set(NODE_RED_RUNTIMES.map((r) => r.nodeRedPackage))) {
    if (!findNodeRed(pkg)) console.log(`fetching ${pkg === 'node-red' ? 'Node-RED 4' : 'Node-RED 5'} from the npm registry into ${CACHE_DIR} (once)`);
  }
  return resolvePackageRuntimes((major) => runtimes.get(major));
}

function runSuite(suite, runtimes, packageRuntimes) {
  const runtime = runtimes.get(suite.nodeMajors[0]);
  const env = envFor(runtime.bin, { ...process.env, ...suite.env });
  if (suite.packageRuntimes) env.ENERGY_API_TEST_RUNTIMES = JSON.stringify(packageRuntimes);
  console.log(`\n=== ${suite.name}: ${suite.title} ===`);
  const started = Date.now();
  const args = [MOCHA, '--no-config', '--timeout', '30000', '--exit', '--require', 'test/support/versions.js', ...suite.specs];
  const out = spawnSync(runtime.bin, args, { cwd: ROOT, env, stdio: 'inherit' });
  return { suite, runtime, status: out.status === 0 ? 'passed' : 'FAILED', seconds: Math.round((Date.now() - started) / 1000) };
}

/** "npm could not install a: why; npm could not install b: why" → "npm could not install a, b (why)". */
function summarise(reasons) {
  const parsed = reasons.map((r) => /^npm could not install (\S+): (.*)$/.exec(r));
  if (!parsed.every(Boolean)) return reasons.join('; ');
  return `npm could not install ${parsed.map((m) => m[1]).join(', ')} (${parsed[0][2]})`;
}

function main() {
  const names = process.argv.slice(2);
  if (names.includes('--list')) {
    for (const s of SUITES) console.log(`${s.name.padEnd(20)} ${s.title}`);
    return 0;
  }
  const suites = selectSuites(names);
  const runtimes = resolveRuntimes(suites);
  const packageRuntimes = suites.some((s) => s.packageRuntimes) ? resolveNodeReds(runtimes) : [];
  const results = [];
  const skipped = [];
  for (const suite of suites) {
    if (suite.nodeMajors.some((m) => runtimes.get(m).error)) skipped.push(suite.name);
    else results.push(runSuite(suite, runtimes, packageRuntimes));
  }
  const missingForPackage = results.some((r) => r.suite.packageRuntimes) ? packageRuntimes.filter((r) => r.error) : [];
  if (missingForPackage.length) {
    skipped.push(`the package test on Node.js ${missingForPackage.map((r) => r.nodeMajor).join(', ')}`);
  }
  const reasons = [...new Set([...runtimes.values(), ...packageRuntimes].map((r) => r.error).filter(Boolean))];

  console.log('\n=== summary ===');
  for (const r of results) {
    console.log(`${r.status.padEnd(7)} ${r.suite.name.padEnd(20)} ${r.runtime.version.padEnd(9)} ${String(r.seconds).padStart(4)} s  ${r.suite.title}`);
  }
  if (skipped.length) console.log(`skipped ${skipped.join(', ')}: ${summarise(reasons)}`);
  return results.some((r) => r.status !== 'passed') ? 1 : 0;
}

process.exitCode = main();
