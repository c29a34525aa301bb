'use strict';
// CI check: the simulator states the API's rules itself. It may take the client's TYPES
// (`import type`), never its runtime code (tables, validation, model rules), or a mistake in
// the client would be mirrored by the simulator and pass every test.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const SIM_DIR = path.join(ROOT, 'src/simulator');
const API_DIR = path.join(ROOT, 'src/api');

function tsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module reference in a file: static imports/exports, dynamic import() and require(). */
function references(source) {
  const found = [];
  const statement = /(^|[;\n])\s*(import|export)\s+([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(statement)) found.push({ kind: m[2], clause: m[3], spec: m[4], text: m[0].trim() });
  const bare = /(^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(bare)) found.push({ kind: 'import', clause: '', spec: m[2], text: m[0].trim() });
  const dynamic = /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of source.matchAll(dynamic)) found.push({ kind: 'dynamic', clause: '', spec: m[1], text: m[0].trim() });
  return found;
}

const typeOnly = (ref) => (ref.kind === 'import' || ref.kind === 'export') && /^type\s/.test(ref.clause);

function violations(file) {
  const source = fs.readFileSync(file, 'utf8');
  return references(source)
    .filter((ref) => ref.spec.startsWith('.'))
    .filter((ref) => {
      const target = path.resolve(path.dirname(file), ref.spec);
      return target === API_DIR || target.startsWith(API_DIR + path.sep);
    })
    .filter((ref) => !typeOnly(ref))
    .map((ref) => `${path.relative(ROOT, file)}: ${ref.text}`);
}

describe('simulator: independence from the client', function () {
  it('finds the simulator sources and recognises a runtime import of the client', () => {
    const files = tsFiles(SIM_DIR);
    assert.ok(files.length > 10, 'scans src/simulator');
    const probe = path.join(SIM_DIR, 'probe.ts');
    const bad = (text) => references(text).filter((r) => !typeOnly(r)).map((r) => path.resolve(path.dirname(probe), r.spec));
    assert.deepEqual(bad("import { lteSignalQuality } from '../api/signal.js';"), [path.join(API_DIR, 'signal.js')]);
    assert.deepEqual(bad("import { type Device } from '../api/types.js';"), [path.join(API_DIR, 'types.js')], 'inline type specifiers keep the import');
    assert.deepEqual(bad("export { MODELS } from '../api/models.js';"), [path.join(API_DIR, 'models.js')]);
    assert.deepEqual(bad("const m = require('../api/models.js');"), [path.join(API_DIR, 'models.js')]);
    assert.deepEqual(bad("import type { Device } from '../api/types.js';"), []);
  });

  it('src/simulator/**/*.ts imports nothing but types from src/api', () => {
    const found = tsFiles(SIM_DIR).flatMap(violations);
    assert.deepEqual(found, [], `runtime imports of the client in the simulator:\n${found.join('\n')}`);
  });
});
