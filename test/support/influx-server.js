'use strict';
// A throwaway InfluxDB 1.x (Debian's `influxd`, the v1 API) for the energy-store tests: its meta, data and WAL
// in a temporary folder, HTTP on a free loopback port, reporting off, never the system service.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, stopChild, killOnExit } = require('./processes');

const INFLUXD = ['/usr/bin/influxd', '/usr/local/bin/influxd'].find((p) => fs.existsSync(p))
  ?? (spawnSync('sh', ['-c', 'command -v influxd']).stdout?.toString().trim() || undefined);

async function waitForPing(url, child, timeoutMs = 20000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`influxd exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/ping`);
      if (res.status === 204) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`influxd did not answer /ping at ${url}`);
}

/**
 * Starts influxd; undefined when it is not installed. `auth: true` turns authentication on with an admin
 * `admin`/`password` (created through the API, as InfluxDB 1 documents). `stop()`/`start()` keep data and port.
 */
async function startInflux({ auth = false } = {}) {
  if (!INFLUXD) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-store-influx-'));
  const [httpPort, bindPort] = [await freePort(), await freePort()];
  const config = path.join(dir, 'influxdb.conf');
  fs.writeFileSync(config, [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${bindPort}"`,
    '[meta]', `  dir = "${dir}/meta"`,
    '[data]', `  dir = "${dir}/data"`, `  wal-dir = "${dir}/wal"`, '  query-log-enabled = false',
    '[http]', `  bind-address = "127.0.0.1:${httpPort}"`, `  auth-enabled = ${auth}`, '  log-enabled = false',
    '[monitor]', '  store-enabled = false',
    '[continuous_queries]', '  enabled = false',
    '',
  ].join('\n'));
  const url = `http://127.0.0.1:${httpPort}`;
  let child;
  const influx = {
    url,
    admin: { user: 'admin', password: 'influx-test-secret-2b81' },
    running: () => Boolean(child && child.exitCode === null && child.signalCode === null),
    async start() {
      if (influx.running()) return;
      child = spawn(INFLUXD, ['-config', config], { stdio: 'ignore' });
      killOnExit(child);
      await waitForPing(url, child);
    },
    async stop() {
      const running = child;
      child = undefined;
      await stopChild(running);
    },
    async destroy() {
      await influx.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    /** An InfluxQL statement with the admin's credentials (when auth is on). */
    async query(q, db) {
      const params = new URLSearchParams({ q, epoch: 's', ...(db ? { db } : {}) });
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
      if (auth) headers.Authorization = `Basic ${Buffer.from(`${influx.admin.user}:${influx.admin.password}`).toString('base64')}`;
      const res = await fetch(`${url}/query`, { method: 'POST', headers, body: params.toString() });
      return res.json();
    },
  };
  await influx.start();
  if (auth) await influx.query(`CREATE USER ${influx.admin.user} WITH PASSWORD '${influx.admin.password}' WITH ALL PRIVILEGES`);
  return influx;
}

module.exports = { startInflux, INFLUXD };
