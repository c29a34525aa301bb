'use strict';
// The floors of src/ (docs/architecture.md), checked from the imports of every TypeScript file:
//   - a node folder (src/nodes/<node>/) imports no other node folder (src/nodes/shared/ is not a node);
//   - src/nodes/shared/ imports no node folder and names no node type in its code (nor a node's message keys);
//   - src/api/ imports nothing of the package outside itself; src/api/, the domain floor (src/domain/), the
//     price sources (src/prices/) and Home Assistant's client (src/ha/) import neither src/nodes/ nor Node-RED (`node-red`, `@node-red/*`).
// `node scripts/check-layout.js` prints what breaks a rule and exits 1 when anything does; the unit suite
// runs the same check (test/layout.test.js).
const fs = require('node:fs');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..');
const LOWER_FLOORS = ['api', 'domain', 'prices', 'ha'];

function listTs(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Comments blanked (string contents kept), so commented-out imports and words in comments do not count. */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\/[^\n]*/g,
    (match, quoted) => (quoted ? quoted : match.replace(/[^\n]/g, ' ')));
}

/** Module names a file imports: `import … from`, `export … from`, `import('…')`, `require('…')`, bare `import '…'`. */
function importsOf(code) {
  const found = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"])([^'"\n]+)\1/g;
  for (let m = pattern.exec(code); m; m = pattern.exec(code)) found.push(m[2]);
  return found;
}

/** Where a file sits: { floor: 'api' | 'domain' | 'prices' | 'node' | 'shared' | 'simulator' | …, node? }. */
function placeOf(SRC, file) {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts[0] !== 'nodes') return { floor: parts.length > 1 ? parts[0] : '' };
  if (parts[1] === 'shared') return { floor: 'shared' };
  return { floor: 'node', node: parts[1] };
}

function nodeTypes(ROOT) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys(pkg['node-red'].nodes);
}

/** Every break of the rules in the checkout at ROOT, one line each: "<file>: <what>" (paths relative to ROOT). */
function findViolations(ROOT = REPO) {
  const SRC = path.join(ROOT, 'src');
  const types = nodeTypes(ROOT);
  const violations = [];
  for (const file of listTs(SRC)) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    const code = withoutComments(fs.readFileSync(file, 'utf8'));
    const from = placeOf(SRC, file);
    for (const spec of importsOf(code)) {
      const isNodeRed = spec === 'node-red' || spec.startsWith('node-red/') || spec.startsWith('@node-red/');
      if (isNodeRed && LOWER_FLOORS.includes(from.floor)) violations.push(`${rel}: imports ${spec}`);
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(SRC + path.sep)) continue;
      const to = placeOf(SRC, target);
      const shown = path.relative(ROOT, target).split(path.sep).join('/').replace(/\.js$/, '.ts');
      if (from.floor === 'node' && to.floor === 'node' && to.node !== from.node) violations.push(`${rel}: imports ${shown}`);
      else if (from.floor === 'shared' && to.floor === 'node') violations.push(`${rel}: imports ${shown}`);
      else if (LOWER_FLOORS.includes(from.floor) && (to.floor === 'node' || to.floor === 'shared')) violations.push(`${rel}: imports ${shown}`);
      else if (from.floor === 'api' && to.floor !== 'api') violations.push(`${rel}: imports ${shown}`);
    }
    if (from.floor === 'shared') {
      for (const type of types) {
        // The type itself, or one of its message keys ('energy-api.status.…').
        if (new RegExp(`(['"\`])${type}(\\1|\\.)`).test(code)) violations.push(`${rel}: names the node type ${type}`);
      }
    }
  }
  return [...new Set(violations)].sort();
}

module.exports = { findViolations };

if (require.main === module) {
  const violations = findViolations();
  for (const line of violations) console.log(line);
  if (violations.length > 0) {
    console.log(`${violations.length} import(s) or name(s) break the floors of src/ (docs/architecture.md)`);
    process.exit(1);
  }
  console.log('src/ keeps its floors');
}
