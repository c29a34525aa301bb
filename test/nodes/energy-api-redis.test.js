'use strict';
// Issue 12: the energy-api config node's optional shared limiter (Redis). Without the setting Redis is
// never needed (ioredis is not even loaded); with it the key's limits are shared; an unreachable Redis
// shows in the status and the instance keeps working on its local share.
const assert = require('node:assert/strict');
const net = require('node:net');
const { helper, startSimulator, nodeFile, startServer, stopServer, load } = require('../support/env');
const { startRedis, REDIS_SERVER } = require('../support/redis-server');
const { SIM_KEYS } = require('../../dist/simulator');
const { skipBecause } = require('../support/skip');

const ioredisLoaded = () => Object.keys(require.cache).some((p) => /[\\/]node_modules[\\/]ioredis[\\/]/.test(p));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, what, ms = 8000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function closedPort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

describe('energy-api: shared limiter on Redis', function () {
  this.timeout(60000);
  let sim;
  let redis;
  before(async () => { sim = await startSimulator({ port: 0, now: Date.UTC(2026, 5, 15, 12) / 1000 }); });
  after(async () => { await sim.close(); await redis?.stop(); });
  beforeEach(function (done) { sim.control.reset(); startServer(done); });
  afterEach(async () => stopServer());

  const config = (extra = {}) => ({ id: 'api', type: 'energy-api', name: 'shared api', baseUrl: sim.baseUrl, tps: 5, tpd: 10000, timezone: '', ...extra });
  const statusTexts = (node) => node.status.args.map((a) => a[0]?.text ?? '');

  it('without the setting nothing changes: no shared limiter, ioredis never loaded', async () => {
    await load([nodeFile('energy-api')], [config()], { api: { apiKey: SIM_KEYS.full } });
    const api = helper.getNode('api');
    assert.equal(api.client.shared, undefined);
    assert.equal((await api.client.listDevices()).length > 0, true);
    assert.equal(ioredisLoaded(), false, 'ioredis must not be required without a shared limiter');
  });

  it('refuses an address that is not redis:// with a clear error', async () => {
    await load([nodeFile('energy-api')], [config({ redisUrl: 'http://127.0.0.1:6391' })], { api: { apiKey: SIM_KEYS.full } });
    const api = helper.getNode('api');
    assert.equal(api.client, undefined);
    assert.match(api.problem, /redis:\/\/|errors.badRedisUrl/);
  });

  it('an unreachable Redis shows in the status and the node keeps working on its own share', async () => {
    const port = await closedPort();
    await load([nodeFile('energy-api')], [config({ redisUrl: `redis://127.0.0.1:${port}` })], { api: { apiKey: SIM_KEYS.full, redisPassword: 'pw' } });
    const api = helper.getNode('api');
    assert.equal(api.client.shared.status().mode, 'fallback');
    assert.ok(statusTexts(api).some((t) => /Redis unreachable|status.sharedFallback/.test(t)), JSON.stringify(statusTexts(api)));
    const devices = await api.client.listDevices();
    assert.ok(devices.length > 0);
  });

  it('shares the key through a reachable Redis and says so', async function () {
    if (!REDIS_SERVER) {
      skipBecause(this, 'redis-server is not installed (apt-get install redis-server)');
    }
    redis = await startRedis();
    await load([nodeFile('energy-api')], [config({ redisUrl: redis.url })], { api: { apiKey: SIM_KEYS.full } });
    const api = helper.getNode('api');
    await until(() => api.client.shared.status().mode === 'shared', 'shared mode');
    await until(() => statusTexts(api).some((t) => /shared by 1 instance|status.shared$/.test(t)), 'a green status');
    await api.client.listDevices();
    const log = sim.control.log().filter((r) => r.path.startsWith('/v3'));
    assert.ok(log.length >= 1 && log.every((r) => r.status !== 429));
    assert.ok(!statusTexts(api).join(' ').includes(SIM_KEYS.full), 'the key never shows');
  });
});
