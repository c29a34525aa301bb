'use strict';
// Loaded into every suite by scripts/test.js (mocha --require): prints the Node.js and the Node-RED
// this process actually runs on (test/support/env.js and scripts/start.js pick Node-RED by NODE_RED_MAJOR).
const path = require('node:path');

let line = `Node.js ${process.version}`;
if (process.env.NODE_RED_MAJOR) {
  const pkg = process.env.NODE_RED_MAJOR === '5' ? 'node-red-5' : 'node-red';
  line += `, Node-RED ${require(path.join(pkg, 'package.json')).version}`;
}
console.log(`  runs on ${line}`);
