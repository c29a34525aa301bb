'use strict';
// Runs the node and browser tests again on Node-RED 5.x, which needs Node.js >= 22.9 (the npm registry's `node` package).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const node22 = path.join(root, 'node_modules', 'node', 'bin', 'node');
if (!fs.existsSync(node22)) {
  console.error('Node-RED 5 tests need Node.js 22: run `npm install --no-save node@22` once, then `npm test` again.');
  process.exit(1);
}
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const result = spawnSync(node22, [mocha, '--no-config', '--timeout', '30000', '--exit', 'test/nodes/**/*.test.js', 'test/e2e/**/*.test.js'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_RED_MAJOR: '5' },
});
process.exit(result.status ?? 1);
