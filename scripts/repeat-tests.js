'use strict';
// Runs the client, simulator and node suites N times in a row (default 10; `npm run test:repeat -- 3`
// or REPEAT=3), stops at the first failing run and says which one it was. Build first (npm run build).
// Suite names after the count run only those: `npm run test:repeat -- 5 nodes` (api, simulator, nodes).
// NODE_RED_MAJOR=5 (under Node.js 22) repeats the node suites on Node-RED 5.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SUITES = { api: 'test/api/**/*.test.js', simulator: 'test/simulator/**/*.test.js', nodes: 'test/nodes/**/*.test.js' };
const runs = Number(process.argv[2] ?? process.env.REPEAT ?? 10);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`test:repeat: the number of runs must be a whole number of 1 or more, not "${process.argv[2] ?? process.env.REPEAT}"`);
  process.exit(2);
}
const names = process.argv.length > 3 ? process.argv.slice(3) : Object.keys(SUITES);
const unknown = names.filter((name) => !(name in SUITES));
if (unknown.length) {
  console.error(`test:repeat: unknown suite ${unknown.join(', ')} (known: ${Object.keys(SUITES).join(', ')})`);
  process.exit(2);
}
const specs = names.map((name) => SUITES[name]);

const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const started = Date.now();
for (let run = 1; run <= runs; run += 1) {
  const runStarted = Date.now();
  console.log(`\ntest:repeat: run ${run} of ${runs} (${names.join(', ')})`);
  const result = spawnSync(process.execPath, [mocha, '--no-config', '--timeout', '30000', '--exit', '--reporter', 'dot', ...specs], {
    cwd: root,
    stdio: 'inherit',
  });
  const seconds = ((Date.now() - runStarted) / 1000).toFixed(0);
  if (result.status !== 0) {
    const why = result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`;
    const before = run === 1 ? 'it was the first' : `the ${run - 1} before it passed`;
    console.error(`\ntest:repeat: run ${run} of ${runs} FAILED (${why}, after ${seconds} s); ${before}`);
    process.exit(1);
  }
  console.log(`test:repeat: run ${run} of ${runs} passed in ${seconds} s`);
}
console.log(`\ntest:repeat: all ${runs} runs passed (${((Date.now() - started) / 60000).toFixed(1)} min)`);
