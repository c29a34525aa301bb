'use strict';
// Serves a recorded response set over real HTTP: each exchange answers its request (method, path,
// query, body) with its responses in order, the last one repeated. Anything not recorded is a 404
// that names the request, so a test sees exactly what the client asked for.
const http = require('node:http');

/** Starts a replay server on a free loopback port for `set` ({ exchanges: [{ request, responses }] }). */
async function startReplayServer(set) {
  const served = new Map();
  const log = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { raw += chunk; });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://replay.local');
      const query = Object.fromEntries(url.searchParams);
      const body = raw === '' ? undefined : JSON.parse(raw);
      const entry = { at: Date.now(), method: req.method, path: url.pathname, query, body, authorization: req.headers.authorization };
      log.push(entry);
      const index = set.exchanges.findIndex((x) => matches(x.request, entry));
      if (index < 0) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: 'NOT_FOUND', httpCode: 404, message: `not recorded: ${req.method} ${req.url}` }));
        return;
      }
      const count = served.get(index) ?? 0;
      served.set(index, count + 1);
      const { responses } = set.exchanges[index];
      const response = responses[Math.min(count, responses.length - 1)];
      entry.status = response.status;
      res.writeHead(response.status, response.headers);
      res.end(response.body === undefined ? '' : JSON.stringify(response.body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    baseUrl: `${url}/v3`,
    log: () => log.slice(),
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

function matches(recorded, actual) {
  if (recorded.method !== actual.method || recorded.path !== actual.path) return false;
  if (JSON.stringify(sorted(recorded.query ?? {})) !== JSON.stringify(sorted(actual.query))) return false;
  return recorded.body === undefined || JSON.stringify(recorded.body) === JSON.stringify(actual.body);
}

function sorted(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}

module.exports = { startReplayServer };
