'use strict';
// Loopback proxy that delays each request by a random 0–200 ms before it reaches the simulator: with
// the simulator's own 150 ms latency, 250 ms ± 100 ms, and arrivals at the service that jitter as on
// a real network. (The simulator has a fixed latencyMs only; a `latencyJitterMs` fault option would
// make this proxy unnecessary.)
const http = require('node:http');

function startJitterProxy(target, { maxDelayMs = 200, seed = 1 } = {}) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const fwd = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        });
        fwd.on('error', () => res.destroy());
        fwd.end(Buffer.concat(chunks));
      }, random() * maxDelayMs);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); agent.destroy(); }),
  })));
}

module.exports = { startJitterProxy };
