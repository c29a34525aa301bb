'use strict';
// The service's gateway, as its own light process: stamps each request's arrival (X-Sim-Arrived-At) the moment
// it comes in and forwards it to the simulator started with `arrivalStampHeader: true`, which counts and logs
// from that stamp. The simulator builds a week of 5-minute data per request (tens of ms of CPU); without this
// front, a request arriving meanwhile would be counted late, as no real gateway counts it.
// The simulator's URL in argv[2]; prints the gateway's URL on stdout once listening.
const http = require('node:http');

const target = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const arrivedAt = Date.now();
  const forward = http.request({
    host: target.hostname, port: target.port, path: req.url, method: req.method, agent,
    headers: { ...req.headers, 'x-sim-arrived-at': String(arrivedAt) },
  }, (upstream) => {
    res.writeHead(upstream.statusCode, upstream.headers);
    upstream.pipe(res);
  });
  forward.on('error', () => res.destroy());
  req.pipe(forward);
});

server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => { server.close(); server.closeAllConnections(); agent.destroy(); process.exit(0); });
