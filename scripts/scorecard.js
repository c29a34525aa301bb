'use strict';
// The Node-RED flow-library scorecard (`node-red-dev validate`) without network access.
//
//   npm install --no-save --prefix /tmp/nrdev node-red-dev   (once; 443 packages, kept out of the repo)
//   npm run build && node scripts/scorecard.js [--online]
//
// node-red-dev asks the flow catalogue (catalogue.nodered.org) for similar package and node
// names (P08, N01) and the npm registry for Node-RED's current versions (P06, P07), the
// dependency tree (D02) and outdated dependencies (D03). Offline this script answers:
// - the catalogue with an empty list: P08 and N01 are reported as "not checked";
// - Node-RED's versions from the Node-RED 4 and 5 installed as devDependencies (5 = latest,
//   4 = maintenance), which are the versions the tests run against;
// - D02 from package-lock.json (the installed production dependency tree) against node-red-dev's
//   list of incompatible packages; D03 needs the registry and is only run with --online.
// Exits 1 when a check fails, 2 when node-red-dev is not installed.
const fs = require('node:fs');
const path = require('node:path');
const { ensureNodeRed, nodeRedDir } = require('./runtimes');

const ROOT = path.resolve(__dirname, '..');
const ONLINE = process.argv.includes('--online');
const NRDEV = process.env.NODE_RED_DEV_DIR || '/tmp/nrdev/node_modules/node-red-dev';

const NAMES = {
  P01: 'license', P03: 'repository and bugs links', P04: 'scoped name', P05: "'node-red' keyword",
  P06: 'node-red version range matches current Node-RED', P07: 'engines.node matches Node-RED', P08: 'no similar package name in the catalogue',
  N01: 'node types unique in the catalogue', N02: 'an example for every node', D01: '≤ 6 dependencies',
  D02: 'no incompatible package in the dependency tree', D03: 'dependencies at their latest version',
};

function localNodeRedRegistryDoc() {
  const read = (major) => JSON.parse(fs.readFileSync(path.join(nodeRedDir(major), 'package.json'), 'utf8'));
  if (ensureNodeRed('5').error) throw new Error('the scorecard compares with Node-RED 5: node scripts/runtimes.js install');
  const [v4, v5] = [read('4'), read('5')];
  return {
    'dist-tags': { latest: v5.version, 'maintenance-v4': v4.version },
    versions: { [v4.version]: { engines: v4.engines }, [v5.version]: { engines: v5.engines } },
  };
}

function stubNetwork() {
  const axios = require(require.resolve('axios', { paths: [NRDEV] }));
  const get = axios.get.bind(axios);
  axios.get = (url, ...rest) => {
    if (url.startsWith('https://catalogue.nodered.org/')) return Promise.resolve({ data: { modules: [] } });
    if (!ONLINE && url === 'https://registry.npmjs.org/node-red') return Promise.resolve({ data: localNodeRedRegistryDoc() });
    if (!ONLINE) return Promise.reject(new Error(`offline: ${url}`));
    return get(url, ...rest);
  };
}

/** D02 offline: the production dependency closure from package-lock.json against node-red-dev's list. */
function offlineDependencyChecks(pkg, scorecard, cli) {
  const semver = require(require.resolve('semver', { paths: [NRDEV] }));
  const bad = JSON.parse(fs.readFileSync(path.join(NRDEV, 'src', 'badpackages.json'), 'utf8'));
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const deps = Object.keys(pkg.dependencies || {});
  scorecard.D01 = { test: deps.length <= 6, total: deps.length };
  const seen = new Map();
  const visit = (name, from) => {
    const key = [`${from}/node_modules/${name}`, `node_modules/${name}`].find((k) => lock.packages[k]);
    if (!key || seen.has(key)) return;
    const entry = lock.packages[key];
    seen.set(key, `${name}@${entry.version}`);
    for (const child of Object.keys(entry.dependencies || {})) visit(child, key);
  };
  deps.forEach((d) => visit(d, ''));
  const found = [...seen.values()].filter((id) => {
    const at = id.lastIndexOf('@');
    const [name, version] = [id.slice(0, at), id.slice(at + 1)];
    return bad[name] && semver.satisfies(version, bad[name]);
  });
  scorecard.D02 = found.length ? { test: false, packages: found } : { test: true };
  cli.log(`D02 checked ${seen.size} installed production packages`);
}

async function main() {
  if (!fs.existsSync(path.join(NRDEV, 'package.json'))) {
    console.error(`node-red-dev not found at ${NRDEV}: npm install --no-save --prefix /tmp/nrdev node-red-dev (or set NODE_RED_DEV_DIR)`);
    process.exit(2);
  }
  stubNetwork();
  const lines = [];
  const cli = {
    log: (m) => lines.push(`  ${m}`),
    warn: (m) => lines.push(`  ! ${m}`),
    error: (e) => { throw e instanceof Error ? e : new Error(String(e)); },
  };
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const scorecard = {};
  await require(path.join(NRDEV, 'src/libs/checkpackage'))(ROOT, cli, scorecard, false);
  await require(path.join(NRDEV, 'src/libs/checknodes'))(ROOT, cli, scorecard, false);
  if (ONLINE) await require(path.join(NRDEV, 'src/libs/checkdeps'))(ROOT, cli, scorecard, false);
  else offlineDependencyChecks(pkg, scorecard, cli);

  const notChecked = new Set(['P08', 'N01']);
  if (!ONLINE) notChecked.add('D03');
  let failed = 0;
  console.log(`node-red-dev validate scorecard for ${pkg.name}@${pkg.version}${ONLINE ? '' : ' (offline)'}`);
  for (const code of Object.keys(NAMES)) {
    const result = scorecard[code];
    let mark;
    if (notChecked.has(code)) mark = '–  not checked (needs the flow catalogue / registry)';
    else if (!result) mark = '?  not reported';
    else if (result.test) mark = '✔  pass';
    else { mark = `✘  FAIL ${JSON.stringify(Object.fromEntries(Object.entries(result).filter(([k]) => k !== 'test')))}`; failed += 1; }
    console.log(`${code}  ${NAMES[code].padEnd(48)} ${mark}`);
  }
  if (process.argv.includes('--verbose')) console.log(lines.join('\n'));
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
