'use strict';
// The Node.js runtimes the tests run Node-RED on, and where they come from.
//
// Node-RED 4 runs on Node.js 20, Node-RED 5 (which needs Node.js >= 22.9) on 22 and 24. A runtime
// that is not the machine's own comes from the npm registry's `node` package, installed into a cache
// OUTSIDE the project: a `node` package in the project's node_modules would put its `node` bin first
// on the PATH of every npm script and silently change the Node.js that everything runs on.
//
//   node scripts/runtimes.js install [major...]   fetch what is missing (exit 1 when one cannot be fetched)
//   node scripts/runtimes.js path <major>         print the binary of an installed runtime
//
// Cache: $ENERGY_API_RUNTIMES_DIR, else $XDG_CACHE_HOME or ~/.cache, + /node-red-energy-api/runtimes/node<major>.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** What the tests run Node-RED on; `nodeRedPackage` is the devDependency that holds that Node-RED. */
const NODE_RED_RUNTIMES = [
  { nodeRed: '4', nodeMajor: 20, nodeRedPackage: 'node-red' },
  { nodeRed: '5', nodeMajor: 22, nodeRedPackage: 'node-red-5' },
  { nodeRed: '5', nodeMajor: 24, nodeRedPackage: 'node-red-5' },
];

const CACHE_DIR = process.env.ENERGY_API_RUNTIMES_DIR
  || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'node-red-energy-api', 'runtimes');
const INSTALL_TIMEOUT_MS = 5 * 60 * 1000;

const majorOf = (version) => Number(/^v?(\d+)\./.exec(version)[1]);

function versionOf(bin) {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : null;
}

function cacheBin(major) {
  return path.join(CACHE_DIR, `node${major}`, 'node_modules', 'node', 'bin', 'node');
}

/** An installed runtime of that major: the machine's own Node.js or the cached one; else null. */
function findNode(major) {
  if (majorOf(process.version) === major) return { major, bin: process.execPath, version: process.version };
  const bin = cacheBin(major);
  const version = fs.existsSync(bin) ? versionOf(bin) : null;
  return version && majorOf(version) === major ? { major, bin, version } : null;
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
 * The runtime of that major, fetched from the npm registry into the cache when missing.
 * Never throws: `{ major, bin, version }`, or `{ major, error }` saying why there is none.
 */
function ensureNode(major) {
  const found = findNode(major);
  if (found) return found;
  const target = path.dirname(path.dirname(path.dirname(path.dirname(cacheBin(major)))));
  // Installed beside the target and renamed into place, so two test runs never see half an install.
  const staging = `${target}.staging-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const [cmd, args] = npmCommand(['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--no-update-notifier', '--loglevel=error', '--fetch-retries=1', '--fetch-retry-mintimeout=2000',
    '--fetch-retry-maxtimeout=5000', '--prefix', staging, `node@${major}`]);
  const out = spawnSync(cmd, args, { cwd: staging, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  const stagedBin = path.join(staging, 'node_modules', 'node', 'bin', 'node');
  const stagedVersion = out.status === 0 && fs.existsSync(stagedBin) ? versionOf(stagedBin) : null;
  if (!stagedVersion || majorOf(stagedVersion) !== major) {
    fs.rmSync(staging, { recursive: true, force: true });
    const why = (out.error && out.error.message) || npmErrorLine(out.stderr)
      || (out.status === 0 ? `node@${major} installed no runnable binary` : `npm exited with ${out.status}`);
    return { major, error: `npm could not install node@${major}: ${why}` };
  }
  fs.rmSync(target, { recursive: true, force: true });
  try {
    fs.renameSync(staging, target);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true }); // another run put its copy there first
  }
  return findNode(major) || { major, error: `node@${major} was installed but ${cacheBin(major)} does not run` };
}

/** PATH and npm's variables for a child that must run on `bin`: its own `node` first on the PATH. */
function envFor(bin, env = process.env) {
  return { ...env, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH || ''}`, NODE: bin, npm_node_execpath: bin };
}

module.exports = { NODE_RED_RUNTIMES, CACHE_DIR, findNode, ensureNode, envFor };

if (require.main === module) {
  const [command, ...rest] = process.argv.slice(2);
  const majors = rest.length ? rest.map(Number) : [...new Set(NODE_RED_RUNTIMES.map((r) => r.nodeMajor))];
  if (command === 'install') {
    let failed = false;
    for (const major of majors) {
      const runtime = ensureNode(major);
      if (runtime.error) { failed = true; console.error(runtime.error); } else console.log(`Node.js ${runtime.version}: ${runtime.bin}`);
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
