'use strict';
// The limiter over its Redis store against a real redis-server on loopback: three instances of one key share
// its per-second budget, fall back to their share while Redis is down and rejoin when it is back.
const assert = require('node:assert');
const { RateLimiter, SharedLimiter, sharedLimiterId } = require('../../dist/api');
const { startRedis, REDIS_SERVER } = require('../support/redis-server');
const { skipBecause } = require('../support/skip');

const TPS = 5;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The most grants in any one-second window (times in ms). */
function busiestSecond(times) {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function waitForMode(limiters, mode, timeoutMs = 8000) {
  const until = Date.now() + timeoutMs;
  return (async () => {
    while (!limiters.every((l) => l.status().mode === mode)) {
      if (Date.now() > until) throw new Error(`not all ${mode}: ${limiters.map((l) => l.status().mode)}`);
      await sleep(50);
    }
  })();
}

describe('shared limiter on Redis', function () {
  this.timeout(90_000);
  let redis;
  /** The Redis stores, and the limiters running over them (one per instance). */
  let limiters = [];
  let paced = [];

  before(async function () {
    if (!REDIS_SERVER) {
      skipBecause(this, 'redis-server is not installed (apt-get install redis-server)');
    }
    redis = await startRedis();
  });

  afterEach(async () => {
    await Promise.all(limiters.map((l) => l.close()));
    await Promise.all(paced.map((l) => l.stop()));
    limiters = [];
    paced = [];
  });

  after(async () => {
    await redis?.stop();
  });

  const make = (n, id) => {
    limiters = Array.from({ length: n }, () => new SharedLimiter({ redisUrl: redis.url, id, tps: TPS, heartbeatMs: 300 }));
    paced = limiters.map((store) => new RateLimiter({ tps: TPS, tpd: 1e9, store }));
    return limiters;
  };
  /** One start of instance `i`, its request on the wire at once. */
  const start = (i) => paced[i].schedule('bulk', async (markSent) => markSent());

  it('names the key by a digest of base address and key, never the key', () => {
    const id = sharedLimiterId('https://api.example.com/v3', 'secret-key-12345');
    assert.match(id, /^energy-api-[0-9a-f]{32}$/);
    assert.ok(!id.includes('12345'));
    assert.notStrictEqual(id, sharedLimiterId('https://other.example.com/v3', 'secret-key-12345'));
  });

  it('three instances share one per-second budget, fall back to their share without Redis and rejoin', async () => {
    const group = make(3, sharedLimiterId('http://127.0.0.1/v3', `key-${Date.now()}`));
    await waitForMode(group, 'shared');
    await sleep(700); // every instance has been seen by the heartbeats
    assert.deepStrictEqual(group.map((l) => l.status().instances), [3, 3, 3]);

    const grants = [];
    let running = true;
    const demand = group.map(async (limiter, i) => {
      while (running) {
        try {
          await start(i);
        } catch {
          return;
        }
        grants.push({ at: Date.now(), i, mode: limiter.status().mode });
      }
    });

    await sleep(5000);
    const sharedGrants = grants.filter((g) => g.mode === 'shared');
    const span = (sharedGrants.at(-1).at - sharedGrants[0].at) / 1000;
    const rate = (sharedGrants.length - 1) / span;
    assert.ok(rate * 1.10 >= TPS, `shared throughput ${rate.toFixed(2)}/s is not within 1.10 of ${TPS}/s`);
    assert.ok(new Set(sharedGrants.map((g) => g.i)).size === 3, 'every instance was served');

    await redis.stop();
    await waitForMode(group, 'fallback');
    assert.deepStrictEqual(group.map((l) => l.status().fallbackTps), [1, 1, 1]);
    const downAt = Date.now();
    await sleep(4000);
    const whileDown = grants.filter((g) => g.at > downAt);
    assert.ok(whileDown.length >= 6, `the instances kept going without Redis (${whileDown.length} grants in 4 s)`);

    await redis.start();
    await waitForMode(group, 'shared');
    const upAt = Date.now();
    await sleep(3500);
    running = false;
    const afterRejoin = grants.filter((g) => g.at > upAt + 1200);
    const rejoinRate = afterRejoin.length / ((Date.now() - upAt - 1200) / 1000);
    assert.ok(rejoinRate * 1.25 >= TPS, `sharing restored: ${rejoinRate.toFixed(2)}/s after rejoining`);

    const most = busiestSecond(grants.map((g) => g.at));
    assert.ok(most <= TPS, `a one-second window held ${most} grants (limit ${TPS})`);
    await Promise.all(paced.map((l) => l.stop()));
    await Promise.all(demand);
  });

  it('counts every instance\'s requests on the wire: one slow to reach its socket holds the window for all', async () => {
    const group = make(2, sharedLimiterId('http://127.0.0.1/v3', `wire-${Date.now()}`));
    await waitForMode(group, 'shared');
    // Every sixth request takes 300 ms from its start to its socket (a busy event loop, a slow connect): the service
    // counts it when it arrives, so the others of the key must count it from then too, whichever instance sent it.
    const wire = [];
    let started = 0;
    const request = (i) => paced[i].schedule('bulk', async (markSent) => {
      if (started++ % 6 === 0) await sleep(300);
      wire.push(Date.now());
      markSent();
    });
    await Promise.all(group.map(async (_, i) => {
      for (let k = 0; k < 8; k++) await Promise.all([request(i), request(i)]);
    }));
    assert.strictEqual(wire.length, 32);
    const most = busiestSecond(wire);
    assert.ok(most <= TPS, `a one-second window on the wire held ${most} requests (limit ${TPS})`);
  });

  it('shares the learnt limits and the remaining daily budget', async () => {
    const [a, b] = make(2, sharedLimiterId('http://127.0.0.1/v3', `figures-${Date.now()}`));
    await waitForMode([a, b], 'shared');
    const resetAt = Math.floor(Date.now() / 1000) + 3600;
    a.publish({ tps: 4, tpd: 500, dailyRemaining: 321, dailyResetAt: resetAt });
    const figures = await new Promise((resolve) => b.on('figures', (f) => f.dailyRemaining === 321 && resolve(f)));
    assert.deepStrictEqual(figures, { tps: 4, tpd: 500, dailyRemaining: 321, dailyResetAt: resetAt });
    // A larger remaining of the same day is older news: the smaller one stays.
    b.publish({ tps: 4, tpd: 500, dailyRemaining: 400, dailyResetAt: resetAt });
    await sleep(700);
    const again = await new Promise((resolve) => a.once('figures', resolve));
    assert.strictEqual(again.dailyRemaining, 321);
    assert.strictEqual(b.status().fallbackTps, 2); // 4 per second shared by two instances
  });
});
