'use strict';
// Home Assistant Core for the real-HA tests (test/ha), installed from PyPI into a virtualenv OUTSIDE the project.
//
//   node scripts/ha.js install   install it unless already there (idempotent; exit 1, one line, when it cannot be)
//   node scripts/ha.js path      print the `hass` binary of the installed copy (exit 1 when there is none)
//
// Pinned: Home Assistant 2025.4.4 (see docs/home-assistant.md): it has device-based MQTT discovery
// (2024.11+), needs Python >= 3.13.0, and is the newest release the package index offers here. Its own
// package_constraints.txt (shipped inside the wheel) pins every shared dependency as HA's releases do; without
// it pip backtracks for many minutes through the Bluetooth libraries. The integrations the tests load (and those
// HA always loads, such as frontend and backup) get their requirements here, up front: the tests start HA
// with --skip-pip, so it never installs anything itself and never reaches outside.
//
// Python: $HA_PYTHON, else pyenv's newest 3.13 (~/.pyenv/versions/3.13*), else python3.13 on the PATH.
// Cache: $XDG_CACHE_HOME or ~/.cache, + /node-red-energy-api/ha-venv-<version>/.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const HA_VERSION = '2025.4.4';
/** What HA's manifests (2025.4.4) require for the integrations the tests and HA's defaults load, beyond its core dependencies. */
const INTEGRATION_REQUIREMENTS = ['paho-mqtt==2.1.0', 'home-assistant-frontend==20250411.0'];
const CACHE_ROOT = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'node-red-energy-api');
const VENV = path.join(CACHE_ROOT, `ha-venv-${HA_VERSION}`);
const HASS = path.join(VENV, 'bin', 'hass');
const MARKER = path.join(VENV, '.installed');
const INSTALL_TIMEOUT_MS = 20 * 60 * 1000;

/** The installed `hass`, or null. */
function findHomeAssistant() {
  return fs.existsSync(MARKER) && fs.existsSync(HASS) ? { bin: HASS, version: HA_VERSION, venv: VENV } : null;
}

function pythonVersion(bin) {
  const out = spawnSync(bin, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : null;
}

/** A Python 3.13 to build the virtualenv with, or null. */
function findPython() {
  const candidates = [];
  if (process.env.HA_PYTHON) candidates.push(process.env.HA_PYTHON);
  const pyenv = path.join(os.homedir(), '.pyenv', 'versions');
  if (fs.existsSync(pyenv)) {
    for (const v of fs.readdirSync(pyenv).filter((d) => /^3\.13\.\d+$/.test(d)).sort((a, b) => Number(b.split('.')[2]) - Number(a.split('.')[2]))) {
      candidates.push(path.join(pyenv, v, 'bin', 'python3'));
    }
  }
  candidates.push('python3.13');
  return candidates.find((bin) => pythonVersion(bin) === '3.13') ?? null;
}

function run(bin, args) {
  const out = spawnSync(bin, args, { encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
  if (out.status !== 0) {
    const tail = `${out.stdout ?? ''}${out.stderr ?? ''}`.trim().split('\n').filter((l) => !/^WARNING: Location/.test(l)).slice(-3).join(' | ');
    throw new Error(`${path.basename(bin)} ${args.slice(0, 3).join(' ')} failed: ${out.error?.message ?? tail}`);
  }
}

/** Installs Home Assistant unless it is there; returns { bin, version, venv, seconds } or { error }. */
function ensureHomeAssistant() {
  const found = findHomeAssistant();
  if (found) return { ...found, seconds: 0 };
  const python = findPython();
  if (!python) return { error: 'Home Assistant needs Python 3.13 (pyenv install 3.13, or set HA_PYTHON)' };
  const started = Date.now();
  try {
    fs.rmSync(VENV, { recursive: true, force: true });
    fs.mkdirSync(CACHE_ROOT, { recursive: true });
    run(python, ['-m', 'venv', VENV]);
    const pip = path.join(VENV, 'bin', 'pip');
    // First HA alone, for the constraints file its wheel carries; then everything under those constraints.
    run(pip, ['install', '--no-deps', `homeassistant==${HA_VERSION}`]);
    const sitePackages = fs.readdirSync(path.join(VENV, 'lib')).map((d) => path.join(VENV, 'lib', d, 'site-packages')).find((d) => fs.existsSync(d));
    const constraints = path.join(sitePackages, 'homeassistant', 'package_constraints.txt');
    run(pip, ['install', '-c', constraints, `homeassistant==${HA_VERSION}`, ...INTEGRATION_REQUIREMENTS]);
    fs.writeFileSync(MARKER, `${HA_VERSION}\n`);
  } catch (err) {
    return { error: `Home Assistant ${HA_VERSION} could not be installed: ${err.message}` };
  }
  return { bin: HASS, version: HA_VERSION, venv: VENV, seconds: Math.round((Date.now() - started) / 1000) };
}

if (require.main === module) {
  const command = process.argv[2];
  if (command === 'install') {
    const already = findHomeAssistant();
    const result = ensureHomeAssistant();
    if (result.error) {
      console.error(result.error);
      process.exitCode = 1;
    } else {
      console.log(already ? `Home Assistant ${HA_VERSION} already installed in ${VENV}` : `Home Assistant ${HA_VERSION} installed in ${VENV} (${result.seconds} s)`);
    }
  } else if (command === 'path') {
    const found = findHomeAssistant();
    if (found) console.log(found.bin);
    else {
      console.error(`Home Assistant ${HA_VERSION} is not installed (node scripts/ha.js install)`);
      process.exitCode = 1;
    }
  } else {
    console.error('usage: node scripts/ha.js install|path');
    process.exitCode = 2;
  }
}

module.exports = { HA_VERSION, findHomeAssistant, ensureHomeAssistant };
