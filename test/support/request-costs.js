'use strict';
// The daily-cost estimate with every node type's declaration loaded, as in a Node-RED that has loaded the
// package (each node declares its cost in its own request-cost.js).
const fs = require('node:fs');
const path = require('node:path');

const NODES = path.join(__dirname, '..', '..', 'dist', 'nodes');
for (const dir of fs.readdirSync(NODES)) {
  const file = path.join(NODES, dir, 'request-cost.js');
  if (fs.existsSync(file)) require(file);
}
module.exports = require('../../dist/nodes/shared/request-cost.js');
