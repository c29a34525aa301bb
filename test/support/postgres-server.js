'use strict';
// A throwaway PostgreSQL (Debian's) for the energy-store tests: `initdb` in a temporary folder, the server on a
// free loopback port with password authentication, never the system service. PostgreSQL refuses to run as
// root: as root the server runs as the `postgres` user the Debian package creates (or PG_TEST_USER).
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, stopChild, killOnExit, waitForPort } = require('./processes');

const BIN_DIR = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin']
  .find((dir) => fs.existsSync(path.join(dir, 'initdb')));
const PASSWORD = 'pg-test-secret-7f3a91';

/** The uid/gid to run as: ourselves, or (as root) an unprivileged user. */
function account() {
  if (process.getuid() !== 0) return {};
  const name = process.env.PG_TEST_USER || 'postgres';
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  if (!uid) throw new Error(`PostgreSQL refuses to run as root and there is no user "${name}" (useradd -m ${name}, or set PG_TEST_USER)`);
  return { uid, gid };
}

/**
 * Starts PostgreSQL in a new temporary cluster; undefined when it is not installed. `stop()` and `start()`
 * keep the data and the port (a database that goes away and comes back); `destroy()` removes everything.
 * `connection` has no password: it is `password`, as the node takes it (a credential).
 */
async function startPostgres({ fsync = false } = {}) {
  if (!BIN_DIR) return undefined;
  const who = account();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-store-pg-'));
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, `${PASSWORD}\n`);
  if (who.uid) fs.chownSync(dir, who.uid, who.gid);
  if (who.uid) fs.chownSync(pwfile, who.uid, who.gid);
  const init = spawnSync(path.join(BIN_DIR, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', '-E', 'UTF8'], { ...who, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  let child;
  const pg = {
    port,
    password: PASSWORD,
    connection: `postgres://postgres@127.0.0.1:${port}/postgres`,
    running: () => Boolean(child && child.exitCode === null && child.signalCode === null),
    async start() {
      if (pg.running()) return;
      child = spawn(path.join(BIN_DIR, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', `fsync=${fsync ? 'on' : 'off'}`, '-c', 'synchronous_commit=on'], { ...who, stdio: 'ignore' });
      killOnExit(child);
      await waitForPort(port, 'postgres', 15000);
      // The port accepts connections while the server is still starting up (57P03): ready once it answers.
      for (const end = Date.now() + 15000; ;) {
        try {
          await pg.query('SELECT 1');
          break;
        } catch (err) {
          if (err.code !== '57P03' || Date.now() > end) throw err;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      // SIGINT: fast shutdown (every client is disconnected, as when the server goes away).
      await new Promise((resolve) => { running.once('exit', resolve); running.kill('SIGINT'); });
    },
    async destroy() {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    /** A statement with PostgreSQL's own client (`pg`), never through the node under test. */
    async query(text, values) {
      const { Client } = require('pg');
      const c = new Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres' });
      await c.connect();
      try {
        return (await c.query(text, values)).rows;
      } finally {
        await c.end();
      }
    },
  };
  await pg.start();
  return pg;
}

module.exports = { startPostgres, POSTGRES_BIN_DIR: BIN_DIR, stopChild };
