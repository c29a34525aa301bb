'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { findViolations } = require('../scripts/check-layout');

describe('the floors of src/ (scripts/check-layout.js, docs/architecture.md)', () => {
  it('no node folder imports another, shared code names no node, and the floors below import neither nodes nor Node-RED', () => {
    assert.deepEqual(findViolations(), []);
  });

  it('finds each kind of break in a tree made for it', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
    try {
      const write = (file, text) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('package.json', JSON.stringify({ 'node-red': { nodes: { 'energy-a': 'dist/nodes/energy-a/energy-a.js', 'energy-b': 'x' } } }));
      write('src/nodes/energy-a/energy-a.ts', "import { b } from '../energy-b/b.js';\nimport { s } from '../shared/s.js';\n// import { c } from '../energy-b/c.js';\n");
      write('src/nodes/energy-b/b.ts', "export const b = require('../energy-a/energy-a.js');\n");
      write('src/nodes/shared/s.ts', "import type { A } from '../energy-a/energy-a.js';\nexport const s = (t: string) => t === 'energy-b';\n/* 'energy-a' in a comment */\n");
      write('src/api/client.ts', "import { d } from '../domain/d.js';\n");
      write('src/domain/d.ts', "import type { NodeAPI } from 'node-red';\nimport { x } from '../nodes/energy-a/x.js';\nimport { y } from '../api/client.js';\n");
      write('src/nodes/shared/t.ts', "export const t = (RED) => RED._('energy-a.status.busy');\n");
      write('src/prices/p.ts', "import { u } from '@node-red/util';\nimport { s } from '../nodes/shared/s.js';\n");
      assert.deepEqual(findViolations(root), [
        'src/api/client.ts: imports src/domain/d.ts',
        'src/domain/d.ts: imports node-red',
        'src/domain/d.ts: imports src/nodes/energy-a/x.ts',
        'src/nodes/energy-a/energy-a.ts: imports src/nodes/energy-b/b.ts',
        'src/nodes/energy-b/b.ts: imports src/nodes/energy-a/energy-a.ts',
        'src/nodes/shared/s.ts: imports src/nodes/energy-a/energy-a.ts',
        'src/nodes/shared/s.ts: names the node type energy-b',
        'src/nodes/shared/t.ts: names the node type energy-a',
        'src/prices/p.ts: imports @node-red/util',
        'src/prices/p.ts: imports src/nodes/shared/s.ts',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
