'use strict';
// A throwaway Mosquitto (Debian's /usr/sbin/mosquitto) on a free loopback port, in a temporary folder:
// never a system service, never the default port. `stop()` and `start()` again keep the port (a broker
// restart); with `persistence: true` retained messages survive it, as on most users' brokers.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, waitForPort } = require('./processes');

const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto'].find((p) => fs.existsSync(p))
  ?? (spawnSync('sh', ['-c', 'command -v mosquitto']).stdout?.toString().trim() || undefined);

/** Starts mosquitto on a free loopback port; resolves to undefined when it is not installed. */
async function startMosquitto({ persistence = false } = {}) {
  if (!MOSQUITTO) return undefined;
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-mqtt-broker-'));
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(conf, [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous true',
    `persistence ${persistence}`,
    ...(persistence ? [`persistence_location ${dir}${path.sep}`, 'autosave_interval 0'] : []),
    'log_dest none',
    '',
  ].join('\n'));
  let child;
  const broker = {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      child = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
      await waitForPort(port, 'mosquitto');
    },
    /** Stops it (SIGTERM: with persistence it saves its retained messages first). */
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise((resolve) => { running.once('exit', resolve); running.kill('SIGTERM'); });
    },
    async close() {
      await broker.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await broker.start();
  return broker;
}

module.exports = { startMosquitto, MOSQUITTO };
