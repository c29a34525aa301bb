'use strict';
// A throwaway redis-server on loopback for the shared-limiter tests: never a shared or remote Redis.
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');
const fs = require('node:fs');
const { freePort } = require('./processes');

const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => fs.existsSync(p))
  ?? (spawnSync('sh', ['-c', 'command -v redis-server']).stdout?.toString().trim() || undefined);

function waitForPort(port, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(); });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > until) reject(new Error(`redis-server did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

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
      await waitForPort(port);
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
