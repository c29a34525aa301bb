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

/**
 * Starts mosquitto on a free loopback port; resolves to undefined when it is not installed. `users`
 * ({ name: password }) turns anonymous access off: only those users may connect.
 */
async function startMosquitto({ persistence = false, users } = {}) {
  if (!MOSQUITTO) return undefined;
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-mqtt-broker-'));
  const conf = path.join(dir, 'mosquitto.conf');
  const passwords = users ? passwordFile(dir, users) : undefined;
  fs.writeFileSync(conf, [
    `listener ${port} 127.0.0.1`,
    ...(passwords ? ['allow_anonymous false', `password_file ${passwords}`] : ['allow_anonymous true']),
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

/** A Mosquitto password file: written as user:password, then hashed in place by mosquitto_passwd -U (no password on a command line). */
function passwordFile(dir, users) {
  const file = path.join(dir, 'passwords');
  fs.writeFileSync(file, Object.entries(users).map(([name, password]) => `${name}:${password}\n`).join(''), { mode: 0o644 });
  const passwd = path.join(path.dirname(MOSQUITTO).replace(/sbin$/, 'bin'), 'mosquitto_passwd');
  const hashed = spawnSync(fs.existsSync(passwd) ? passwd : 'mosquitto_passwd', ['-U', file], { encoding: 'utf8' });
  if (hashed.status !== 0) throw new Error(`mosquitto_passwd -U failed: ${hashed.stderr || hashed.error}`);
  // Mosquitto reads it after dropping root for its own user.
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(file, 0o644);
  return file;
}

module.exports = { startMosquitto, MOSQUITTO };
