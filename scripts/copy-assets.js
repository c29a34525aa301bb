'use strict';
// Node-RED finds a node's .html, locales/ and icons/ only beside its .js file,
// so every non-TypeScript file under src/nodes is mirrored into dist/nodes.
const fs = require('node:fs');
const path = require('node:path');

const from = path.join(__dirname, '..', 'src', 'nodes');
const to = path.join(__dirname, '..', 'dist', 'nodes');

function copyTree(src, dest) {
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, entry.name);
    const d = path.join(dest, entry.name);
    if (entry.isDirectory()) copyTree(s, d);
    else if (!entry.name.endsWith('.ts')) {
      fs.mkdirSync(dest, { recursive: true });
      fs.copyFileSync(s, d);
    }
  }
}

if (fs.existsSync(from)) copyTree(from, to);
