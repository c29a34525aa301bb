'use strict';
// What the tests that start real processes (Node-RED, the simulator, redis-server) share.
const net = require('node:net');

/** A free TCP port on loopback. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Stops a child process: SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    child.kill('SIGTERM');
  });
}

/** Resolves once something accepts connections on the loopback port (a server just started); fails after `timeoutMs`. */
function waitForPort(port, what, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(); });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > end) reject(new Error(`${what} did not listen on ${port}`));
        else setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}


/**
 * A server a test started must not outlive the test process (a run stopped by a timeout, mocha's --exit):
 * killed when the process exits, whatever ended it.
 */
function killOnExit(child) {
  const kill = () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); };
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
}

module.exports = { freePort, stopChild, waitForPort, killOnExit };
