'use strict';
// The Node-RED the tests run in process, by NODE_RED_MAJOR: Node-RED 4 is the devDependency, Node-RED 5 its
// install in the runtime cache (scripts/runtimes.js; `npm test` fetches it before the Node-RED 5 suites).
const fs = require('node:fs');
const { nodeRedDir } = require('../../scripts/runtimes');

const NODE_RED_MAJOR = process.env.NODE_RED_MAJOR === '5' ? '5' : '4';
const NODE_RED_DIR = nodeRedDir(NODE_RED_MAJOR);
if (!fs.existsSync(NODE_RED_DIR)) {
  throw new Error(`Node-RED ${NODE_RED_MAJOR} is not installed at ${NODE_RED_DIR}: node scripts/runtimes.js install`);
}

/** A module of that Node-RED (a core node, its editor API), resolved from its own folder. */
const nodeRedModule = (id) => require(require.resolve(id, { paths: [NODE_RED_DIR] }));

module.exports = { NODE_RED_MAJOR, NODE_RED_DIR, nodeRedModule };
