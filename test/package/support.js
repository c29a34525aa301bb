'use strict';
// The package test's machinery: pack as `npm publish` would from a fresh clone, install the tarball
// with the palette manager's own npm command, and run processes (Node-RED, the simulator bin) in an
// environment that holds nothing of this repository.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { envFor, npmCommand } = require('../../scripts/runtimes');
const { freePort } = require('../support/processes');

const ROOT = path.resolve(__dirname, '..', '..');

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs npm (the one running the tests); throws with its output when it fails. */
function npm(args, options) {
  const [cmd, argv] = npmCommand(args);
  const out = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (out.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${out.status}):\n${out.stderr || ''}${out.stdout || ''}`);
  return out.stdout;
}

/**
 * What a clone of the repository would hold now: tracked files and new files git does not ignore.
 * Outside a git checkout (a source archive): every file but those .gitignore names at any depth.
 */
function cloneFiles() {
  const out = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status === 0 && fs.existsSync(path.join(ROOT, '.git'))) {
    return out.stdout.split('\0').filter((f) => f && fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile());
  }
  const ignored = fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n').map((l) => l.trim().replace(/\/$/, ''))
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => new RegExp(`^${l.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`));
  const walk = (rel) => fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((e) => {
    const file = path.posix.join(rel, e.name);
    if (e.name === '.git' || ignored.some((re) => re.test(e.name))) return [];
    return e.isDirectory() ? walk(file) : e.isFile() ? [file] : [];
  });
  return walk('');
}

/**
 * `npm pack` in a copy of what a clone holds (no dist/, so `prepack` must build), with the
 * project's node_modules linked in for the build tools. Returns the tarball and the packed file list.
 */
function packFreshClone(workDir) {
  const clone = path.join(workDir, 'clone');
  for (const file of cloneFiles()) {
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(clone, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  const hadDist = fs.existsSync(path.join(clone, 'dist'));
  const stdout = npm(['pack', '--json', '--pack-destination', workDir], { cwd: clone, env: cleanEnv() });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('[\n')));
  const extracted = path.join(workDir, 'extracted');
  fs.mkdirSync(extracted);
  const tar = spawnSync('tar', ['-xzf', path.join(workDir, info.filename), '-C', extracted], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`tar -xzf failed: ${tar.stderr}`);
  return { hadDist, tarball: path.join(workDir, info.filename), files: info.files.map((f) => f.path).sort(), dir: path.join(extracted, 'package') };
}

/**
 * The environment of a Node-RED a palette user starts: none of the npm-script variables of this
 * test run, and no PATH entry inside the repository (its node_modules/.bin).
 */
function cleanEnv(nodeBin) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|npm_execpath$|npm_command$|INIT_CWD$|NODE_RED_MAJOR$|ENERGY_)/.test(k)) continue;
    env[k] = v;
  }
  env.PATH = (env.PATH || '').split(path.delimiter).filter((p) => p && !path.resolve(p).startsWith(ROOT)).join(path.delimiter);
  return nodeBin ? envFor(nodeBin, env) : env;
}

/** The npm arguments Node-RED's palette manager installs a module with, read from that Node-RED's installer. */
function paletteInstallCommand(redJs) {
  const registry = path.dirname(require.resolve('@node-red/registry/package.json', { paths: [path.dirname(redJs)] }));
  const installer = fs.readFileSync(path.join(registry, 'lib', 'installer.js'), 'utf8');
  const match = /"args"\s*:\s*(\[[^\]]*'--engine-strict'[^\]]*\])/.exec(installer);
  if (!match) throw new Error(`no install arguments with --engine-strict in ${registry}/lib/installer.js: has the palette manager changed?`);
  const args = JSON.parse(match[1].replace(/'/g, '"'));
  // installer.js runs `process.execPath <its npm>/bin/npm-cli.js install ...args -- <module>` in the user directory.
  const npmCli = path.join(path.dirname(require.resolve('npm/package.json', { paths: [path.join(registry, 'lib')] })), 'bin', 'npm-cli.js');
  return { npmCli, args };
}

/** A clean user directory as a first Node-RED start leaves it (package.json) plus a settings.js. */
function createUserDir(settings) {
  const userDir = tempDir('energy-package-user-');
  // The package.json Node-RED's localfilesystem storage writes into a new user directory.
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({
    name: 'node-red-project', description: 'A Node-RED Project', version: '0.0.1', private: true,
  }, null, 4));
  fs.writeFileSync(path.join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  return userDir;
}

/** A child process whose output is kept, with a wait for a line and a stop that waits for its exit. */
function startProcess(bin, args, options) {
  const child = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = new Set();
  const collect = (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      for (const w of waiters) w();
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.on('exit', () => { for (const w of waiters) w(); });
  return {
    child,
    lines,
    /** Resolves with the first output line matching `re`. */
    waitForLine(re, ms, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find((l) => re.test(l));
          if (line) { done(); resolve(line); } else if (child.exitCode !== null || child.signalCode !== null) {
            done(); reject(new Error(`${what} exited before printing ${re}:\n${lines.slice(-30).join('\n')}`));
          }
        };
        const timer = setTimeout(() => { done(); reject(new Error(`${what} printed no ${re} within ${ms} ms:\n${lines.slice(-30).join('\n')}`)); }, ms);
        const done = () => { clearTimeout(timer); waiters.delete(check); };
        waiters.add(check);
        check();
      });
    },
    stop(timeoutMs = 10000) {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.once('exit', () => { clearTimeout(kill); resolve(); });
        child.kill('SIGTERM');
      });
    },
  };
}

/** Polls `fn` until it returns a truthy value (or throws its last error after `ms`). */
async function eventually(fn, ms, what) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not within ${ms} ms${last ? `: ${last.message}` : ''}`);
}

module.exports = { ROOT, tempDir, freePort, cloneFiles, packFreshClone, cleanEnv, paletteInstallCommand, createUserDir, startProcess, eventually };
