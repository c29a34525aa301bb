'use strict';
// A throwaway redis-server on loopback for the shared-limiter tests: never a shared or remote Redis.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { freePort, waitForPort } = require('./processes');

const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => fs.existsSync(p))
  ?? (spawnSync('sh', ['-c', 'command -v redis-server']).stdout?.toString().trim() || undefined);

/** Starts redis-server on a free loopback port; `stop()` and `start()` again keep the port. */
async function startRedis() {
  if (!REDIS_SERVER) return undefined;
  const port = await freePort();
  let child;
  const redis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
      await waitForPort(port, 'redis-server');
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise((resolve) => { running.once('exit', resolve); running.kill('SIGKILL'); });
    },
  };
  await redis.start();
  return redis;
}

module.exports = { startRedis, REDIS_SERVER };
