'use strict';
// Loaded into every suite by scripts/test.js (mocha --require): prints the Node.js and the Node-RED
// this process actually runs on (test/support/env.js and scripts/start.js pick Node-RED by NODE_RED_MAJOR).
const path = require('node:path');

let line = `Node.js ${process.version}`;
if (process.env.NODE_RED_MAJOR) {
  line += `, Node-RED ${require(path.join(require('./node-red').NODE_RED_DIR, 'package.json')).version}`;
}
console.log(`  runs on ${line}`);
