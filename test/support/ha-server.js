'use strict';
// A real Home Assistant Core (scripts/ha.js installs it outside the project) on a free loopback port, with a
// configuration written to a temporary folder: http, api, websocket_api, config, onboarding, recorder on SQLite,
// energy, sensor, switch, select; no default_config, no cloud, and --skip-pip, so nothing reaches outside.
// It is onboarded through its own API (the first user, then a token), and its MQTT integration is set up
// through its config flow, pointing at the tests' Mosquitto. HA's websocket is reached with `ws`, the
// client Node-RED itself depends on (Node.js 20 has no WebSocket of its own).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, stopChild, killOnExit } = require('./processes');
const { findHomeAssistant, HA_VERSION } = require('../../scripts/ha');

const nodeRedDir = path.dirname(require.resolve('node-red/package.json'));
const WebSocket = require(require.resolve('ws', { paths: [path.dirname(require.resolve('@node-red/editor-api/package.json', { paths: [nodeRedDir] }))] }));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const START_TIMEOUT_MS = 240_000;

function configuration(port, dir) {
  return [
    'homeassistant:',
    '  name: energy-api test',
    '  latitude: -33.87',
    '  longitude: 151.21',
    '  elevation: 0',
    '  unit_system: metric',
    '  currency: AUD',
    '  country: AU',
    '  time_zone: UTC',
    `  internal_url: http://127.0.0.1:${port}`,
    'http:',
    '  server_host: 127.0.0.1',
    `  server_port: ${port}`,
    'api:',
    'websocket_api:',
    'config:',
    'onboarding:',
    'recorder:',
    `  db_url: sqlite:///${path.join(dir, 'home-assistant_v2.db')}`,
    '  commit_interval: 1',
    'energy:',
    'sensor:',
    'switch:',
    'select:',
    'logger:',
    '  default: warning',
    '',
  ].join('\n');
}

/** A websocket session on HA's API, authenticated with `token`: `call(msg)` resolves with the result or rejects with HA's error. */
async function openWebsocket(url, token) {
  const socket = new WebSocket(url);
  let nextId = 1;
  const pending = new Map();
  let authed;
  const ready = new Promise((resolve, reject) => { authed = { resolve, reject }; });
  socket.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.type === 'auth_required') socket.send(JSON.stringify({ type: 'auth', access_token: token }));
    else if (msg.type === 'auth_ok') authed.resolve();
    else if (msg.type === 'auth_invalid') authed.reject(new Error(`HA refused the token: ${msg.message}`));
    else if (msg.type === 'result' && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.success) resolve(msg.result);
      else reject(new Error(`${msg.error?.code}: ${msg.error?.message}`));
    }
  });
  socket.once('error', (err) => authed.reject(err));
  socket.once('close', () => {
    for (const { reject } of pending.values()) reject(new Error('HA closed the websocket'));
    pending.clear();
  });
  await ready;
  return {
    call(msg) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ ...msg, id }));
      });
    },
    close() { socket.close(); },
  };
}

/**
 * Debian's libfaketime (apt-get install -y faketime), or undefined. Its plain build: with a fixed offset it keeps no
 * state threads could race on, and the multi-threaded build's lock around every clock read (a futex and two signal
 * masks each) tripled HA's CPU time to start (measured 10.4 s against 2.8 s; the plain build 5.5 s).
 */
function findFaketime() {
  const lib = '/usr/lib';
  const arches = fs.existsSync(lib) ? fs.readdirSync(lib).filter((d) => d.includes('-linux-')) : [];
  return arches.map((a) => path.join(lib, a, 'faketime', 'libfaketime.so.1')).find((f) => fs.existsSync(f));
}

/**
 * Starts HA; resolves to { url, token, ws, rest, state, stop, logs }, or undefined when it is not installed
 * (scripts/ha.js install). `mqttPort`: the Mosquitto its MQTT integration connects to. `clockOffsetS`: HA's
 * clock runs that many whole seconds from the wall clock, at its pace (libfaketime), so that a test chooses the
 * instant HA, Node-RED and the simulator share; its monotonic clock (timers, asyncio) stays real.
 */
async function startHomeAssistant({ mqttPort, clockOffsetS }) {
  const ha = findHomeAssistant();
  if (!ha) return undefined;
  let clockEnv = {};
  if (clockOffsetS !== undefined) {
    const faketime = findFaketime();
    if (!faketime) throw new Error('libfaketime is not installed (apt-get install -y faketime): the Home Assistant tests run HA on a clock they choose');
    if (!Number.isInteger(clockOffsetS)) throw new Error(`clockOffsetS must be whole seconds, not ${clockOffsetS}`);
    clockEnv = { LD_PRELOAD: faketime, FAKETIME: `${clockOffsetS >= 0 ? '+' : ''}${clockOffsetS}`, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-ha-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'configuration.yaml'), configuration(port, dir));
  const logs = [];
  const child = spawn(ha.bin, ['-c', dir, '--skip-pip', '--log-no-color', '--log-file', path.join(dir, 'ha.log')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...clockEnv } });
  killOnExit(child);
  const collect = (chunk) => { for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(line); if (logs.length > 2000) logs.splice(0, 1000); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    if (!process.env.KEEP_HA) fs.rmSync(dir, { recursive: true, force: true });
  };
  const fail = async (what) => {
    await stop();
    throw new Error(`Home Assistant ${HA_VERSION} ${what}:\n${logs.slice(-30).join('\n')}`);
  };

  // The first user, created through onboarding, then a token for it.
  const clientId = `${url}/`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let authCode;
  while (!authCode) {
    if (child.exitCode !== null) await fail(`exited (${child.exitCode})`);
    if (Date.now() > deadline) await fail('did not start');
    try {
      const res = await fetch(`${url}/api/onboarding/users`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: clientId, name: 'Test', username: 'test', password: 'test-password-1', language: 'en' }),
      });
      if (res.ok) authCode = (await res.json()).auth_code;
      else await sleep(500);
    } catch {
      await sleep(500);
    }
  }
  const tokenRes = await fetch(`${url}/auth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: authCode, client_id: clientId }),
  });
  if (!tokenRes.ok) await fail(`refused the onboarding code (${tokenRes.status})`);
  const token = (await tokenRes.json()).access_token;

  const rest = async (method, route, body) => {
    const res = await fetch(`${url}${route}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`HA ${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  // Running (every integration set up) before the MQTT integration is added.
  while ((await rest('GET', '/api/config')).state !== 'RUNNING') {
    if (Date.now() > deadline) await fail('did not reach RUNNING');
    await sleep(250);
  }
  const flow = await rest('POST', '/api/config/config_entries/flow', { handler: 'mqtt', show_advanced_options: false });
  const entry = await rest('POST', `/api/config/config_entries/flow/${flow.flow_id}`, { broker: '127.0.0.1', port: mqttPort });
  if (entry.type !== 'create_entry') await fail(`refused the MQTT broker: ${JSON.stringify(entry)}`);

  const ws = await openWebsocket(`ws://127.0.0.1:${port}/api/websocket`, token);
  return {
    url, token, ws, rest, logs, dir, version: HA_VERSION,
    /** An entity's state object, or undefined when HA has none. */
    async state(entityId) {
      try {
        return await rest('GET', `/api/states/${entityId}`);
      } catch (err) {
        if (/: 404 /.test(err.message)) return undefined;
        throw err;
      }
    },
    async stop() {
      ws.close();
      await stop();
    },
  };
}

module.exports = { findFaketime, startHomeAssistant, openWebsocket };
