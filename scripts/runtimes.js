'use strict';
// The Node.js runtimes the tests run Node-RED on, and where they come from.
//
// Node-RED 4 runs on Node.js 20, Node-RED 5 (which needs Node.js >= 22.9) on 22 and 24. A runtime
// that is not the machine's own comes from the npm registry's `node` package, installed into a cache
// OUTSIDE the project: a `node` package in the project's node_modules would put its `node` bin first
// on the PATH of every npm script and silently change the Node.js that everything runs on.
// The package test also needs Node-RED installed outside the project (Node-RED 4 of the devDependency's
// version, and Node-RED 5): Node-RED loads every node module in the node_modules folders above its own,
// so one started from the project's node_modules would load the project's devDependencies too.
// Node-RED 5 is no devDependency at all: it needs Node.js >= 22.9, so `npm ci` on Node.js 20 would warn
// EBADENGINE for it. Every test and script that runs Node-RED 5 takes it from this cache (nodeRedDir).
//
//   node scripts/runtimes.js install [major...]   fetch the Node.js runtimes and the package test's
//                                                 Node-RED installs that are missing (exit 1 when one cannot be fetched)
//   node scripts/runtimes.js path <major>         print the binary of an installed runtime
//
// Cache: $ENERGY_API_RUNTIMES_DIR, else $XDG_CACHE_HOME or ~/.cache, + /node-red-energy-api/runtimes/:
// node<major>/ and node-red-<version>/.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** What the tests run Node-RED on. */
const NODE_RED_RUNTIMES = [
  { nodeRed: '4', nodeMajor: 20 },
  { nodeRed: '5', nodeMajor: 22 },
  { nodeRed: '5', nodeMajor: 24 },
];
/** The Node-RED 5 the tests run (from the cache); Node-RED 4 is the devDependency's version. */
const NODE_RED_5_VERSION = '5.0.7';

const CACHE_DIR = process.env.ENERGY_API_RUNTIMES_DIR
  || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'node-red-energy-api', 'runtimes');
const INSTALL_TIMEOUT_MS = 5 * 60 * 1000;
const ROOT = path.resolve(__dirname, '..');

const majorOf = (version) => Number(/^v?(\d+)\./.exec(version)[1]);

function versionOf(bin) {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : null;
}

const nodeDir = (major) => path.join(CACHE_DIR, `node${major}`);
const nodeBinIn = (dir) => path.join(dir, 'node_modules', 'node', 'bin', 'node');

/** An installed runtime of that major: the machine's own Node.js or the cached one; else null. */
function findNode(major) {
  if (majorOf(process.version) === major) return { major, bin: process.execPath, version: process.version };
  const bin = nodeBinIn(nodeDir(major));
  const version = fs.existsSync(bin) ? versionOf(bin) : null;
  return version && majorOf(version) === major ? { major, bin, version } : null;
}

/** The version of Node-RED `major` ('4' or '5') the tests run. */
function nodeRedVersion(major) {
  if (String(major) === '5') return NODE_RED_5_VERSION;
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'node-red', 'package.json'), 'utf8')).version;
}

const nodeRedCacheDir = (version) => path.join(CACHE_DIR, `node-red-${version}`);
const redJsIn = (dir) => path.join(dir, 'node_modules', 'node-red', 'red.js');

/** The cached Node-RED install of that major's version (outside the project); else null. */
function findNodeRed(major) {
  const version = nodeRedVersion(major);
  const redJs = redJsIn(nodeRedCacheDir(version));
  return fs.existsSync(redJs) ? { version, redJs } : null;
}

/**
 * The folder of the Node-RED package the in-process tests and `npm start` use for that major: Node-RED 4 the
 * devDependency, Node-RED 5 its cached install (`ensureNodeRed('5')` fetches it).
 */
function nodeRedDir(major) {
  if (String(major) === '5') return path.dirname(redJsIn(nodeRedCacheDir(NODE_RED_5_VERSION)));
  return path.join(ROOT, 'node_modules', 'node-red');
}

/** npm as the running npm script uses it (npm_execpath), else the one on PATH. */
function npmCommand(args) {
  const npmCli = process.env.npm_execpath;
  return npmCli && /npm-cli\.js$/.test(npmCli) ? [process.execPath, [npmCli, ...args]] : ['npm', args];
}

/** The line of npm's error output that says what went wrong (not its code, errno or log-file lines). */
function npmErrorLine(stderr = '') {
  const lines = stderr.split('\n').map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim()).filter(Boolean);
  return lines.find((l) => !/^(code|syscall|errno|path|A complete log|Log files|\/)/.test(l)) || lines[0];
}

/**
 * `npm install <spec>` into the cache folder `target`: installed beside it and renamed into place,
 * so two test runs never see half an install. `installed(dir)` says whether a folder holds it.
 * Returns null, or why it could not be installed.
 */
function installIntoCache(target, spec, installed) {
  const staging = `${target}.staging-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const [cmd, args] = npmCommand(['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--no-update-notifier', '--loglevel=error', '--fetch-retries=1', '--fetch-retry-mintimeout=2000',
    '--fetch-retry-maxtimeout=5000', '--prefix', staging, spec]);
  const out = spawnSync(cmd, args, { cwd: staging, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  if (out.status !== 0 || !installed(staging)) {
    fs.rmSync(staging, { recursive: true, force: true });
    const why = (out.error && out.error.message) || npmErrorLine(out.stderr)
      || (out.status === 0 ? 'it installed nothing that runs' : `npm exited with ${out.status}`);
    return `npm could not install ${spec}: ${why}`;
  }
  fs.rmSync(target, { recursive: true, force: true });
  try {
    fs.renameSync(staging, target);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true }); // another run put its copy there first
  }
  return null;
}

/**
 * The Node.js runtime of that major, fetched from the npm registry into the cache when missing.
 * Never throws: `{ major, bin, version }`, or `{ major, error }` saying why there is none.
 */
function ensureNode(major) {
  const found = findNode(major);
  if (found) return found;
  const error = installIntoCache(nodeDir(major), `node@${major}`, (dir) => {
    const version = fs.existsSync(nodeBinIn(dir)) ? versionOf(nodeBinIn(dir)) : null;
    return Boolean(version) && majorOf(version) === major;
  });
  return findNode(major) || { major, error: error || `node@${major} was installed but does not run` };
}

/** Node-RED of that major, installed into the cache when missing: `{ version, redJs }` or `{ version, error }`. */
function ensureNodeRed(major) {
  const found = findNodeRed(major);
  if (found) return found;
  const version = nodeRedVersion(major);
  const error = installIntoCache(nodeRedCacheDir(version), `node-red@${version}`, (dir) => fs.existsSync(redJsIn(dir)));
  return findNodeRed(major) || { version, error: error || `node-red@${version} was installed without red.js` };
}

/**
 * What the package test starts: for each of NODE_RED_RUNTIMES its Node.js binary and a Node-RED
 * installed outside the project, or why there is none (`error`).
 */
function resolvePackageRuntimes(nodeFor = ensureNode) {
  return NODE_RED_RUNTIMES.map((r) => {
    const node = nodeFor(r.nodeMajor);
    const nodeRed = node.error ? {} : ensureNodeRed(r.nodeRed);
    return { nodeRed: r.nodeRed, nodeMajor: r.nodeMajor, nodeBin: node.bin, redJs: nodeRed.redJs, error: node.error || nodeRed.error };
  });
}

/** PATH and npm's variables for a child that must run on `bin`: its own `node` first on the PATH. */
function envFor(bin, env = process.env) {
  return { ...env, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH || ''}`, NODE: bin, npm_node_execpath: bin };
}

module.exports = { NODE_RED_RUNTIMES, CACHE_DIR, findNode, ensureNode, findNodeRed, ensureNodeRed, nodeRedDir, resolvePackageRuntimes, envFor, npmCommand };

if (require.main === module) {
  const [command, ...rest] = process.argv.slice(2);
  const majors = rest.length ? rest.map(Number) : [...new Set(NODE_RED_RUNTIMES.map((r) => r.nodeMajor))];
  if (command === 'install') {
    let failed = false;
    for (const major of majors) {
      const runtime = ensureNode(major);
      if (runtime.error) { failed = true; console.error(runtime.error); } else console.log(`Node.js ${runtime.version}: ${runtime.bin}`);
    }
    for (const nodeRedMajor of new Set(NODE_RED_RUNTIMES.filter((r) => majors.includes(r.nodeMajor)).map((r) => r.nodeRed))) {
      const nodeRed = ensureNodeRed(nodeRedMajor);
      if (nodeRed.error) { failed = true; console.error(nodeRed.error); } else console.log(`Node-RED ${nodeRed.version}: ${nodeRed.redJs}`);
    }
    process.exit(failed ? 1 : 0);
  } else if (command === 'path' && majors.length === 1) {
    const runtime = findNode(majors[0]);
    if (!runtime) { console.error(`Node.js ${majors[0]} is not installed: node scripts/runtimes.js install ${majors[0]}`); process.exit(1); }
    console.log(runtime.bin);
  } else {
    console.error('usage: node scripts/runtimes.js install [major...] | path <major>');
    process.exit(2);
  }
}
