'use strict';
const assert = require('node:assert/strict');
const { start, T0, SIM_KEYS } = require('./helpers');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('simulator: rate limits', function () {
  let t;
  beforeEach(async () => { t = await start({ tps: 3, tpd: 10 }); });
  afterEach(() => t.sim.close());

  it('sends the live headers by default on every response, including errors: resets are seconds remaining', async () => {
    const ok = await t.get('/devices');
    assert.equal(ok.headers.get('x-ratelimit-tpslimit'), '3');
    assert.equal(ok.headers.get('x-ratelimit-tpdlimit'), '10');
    assert.equal(ok.headers.get('x-ratelimit-tpdremaining'), '9');
    assert.equal(ok.headers.get('x-ratelimit-tpsremaining'), '2');
    const midnight = Math.ceil(T0 / 86400) * 86400;
    assert.equal(ok.headers.get('x-ratelimit-tpdreset'), String(midnight - T0), 'an integer number of seconds until the sim day ends');
    const tpsReset = Number(ok.headers.get('x-ratelimit-tpsreset'));
    assert.ok(tpsReset > 0 && tpsReset <= 1, `TpsReset is seconds remaining: ${tpsReset}`);
    assert.equal(ok.headers.get('x-ratelimit-limit'), null, 'no spec form by default');
    const notFound = await t.get('/devices/B999999999999');
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('x-ratelimit-tpdremaining'), '8');
  });

  it('the spec form (unix-time reset) on headerStyle spec, both forms on both', async () => {
    t.sim.control.setLimits({ headerStyle: 'spec' });
    const spec = await t.get('/devices');
    const midnight = Math.ceil(T0 / 86400) * 86400;
    assert.equal(spec.headers.get('x-ratelimit-limit'), '10');
    assert.equal(spec.headers.get('x-ratelimit-remaining'), '9');
    assert.equal(spec.headers.get('x-ratelimit-reset'), String(midnight));
    assert.equal(spec.headers.get('x-ratelimit-tpslimit'), null);
    t.sim.control.setLimits({ headerStyle: 'both' });
    const both = await t.get('/devices');
    assert.equal(both.headers.get('x-ratelimit-remaining'), '8');
    assert.equal(both.headers.get('x-ratelimit-tpdremaining'), '8');
  });

  it('answers 429 TPS within a sliding second, with Retry-After, without consuming budget', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await t.get('/devices')).status, 200);
    const refused = await t.get('/devices');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'TOO_MANY_REQUESTS_TPS');
    assert.equal(refused.body.message, 'You have exceeded the request limit of 3 per 1 second for your API key');
    assert.equal(refused.headers.get('x-ratelimit-tpsremaining'), '0');
    const wait = Number(refused.headers.get('x-ratelimit-tpsreset'));
    assert.ok(wait > 0 && wait <= 1, `TpsReset is the seconds until a slot frees: ${wait}`);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // Another key has its own budget.
    assert.equal((await t.get('/devices', { key: SIM_KEYS.readOnly })).status, 200);
    await sleep(1050);
    const again = await t.get('/devices');
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-ratelimit-tpdremaining'), '6', 'the refused request was not counted');
  });

  it('uses a sliding window, not fixed seconds', async () => {
    await t.get('/devices');
    await sleep(600);
    await t.get('/devices');
    await t.get('/devices');
    await sleep(500); // 1.1 s after the first: one slot free, the other two are still in the window
    assert.equal((await t.get('/devices')).status, 200);
    assert.equal((await t.get('/devices')).status, 429);
  });

  it('answers 429 TPD per UTC day of the sim clock', async () => {
    t.sim.control.setLimits({ tps: 1000, tpd: 2 });
    await t.get('/devices');
    await t.get('/devices');
    const refused = await t.get('/devices');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'TOO_MANY_REQUESTS_TPD');
    assert.equal(refused.body.message, 'You have exceeded the request limit of 2 per 1 day for your API key');
    const midnight = Math.ceil(T0 / 86400) * 86400;
    assert.equal(refused.headers.get('x-ratelimit-tpdreset'), String(midnight - T0));
    assert.equal(refused.headers.get('x-ratelimit-tpdremaining'), '0');
    assert.equal(refused.headers.get('retry-after'), String(midnight - T0));
    t.sim.control.setClock({ now: midnight });
    assert.equal((await t.get('/devices')).status, 200);
  });

  it('header style live or spec only', async () => {
    t.sim.control.setLimits({ headerStyle: 'live' });
    let r = await t.get('/devices');
    assert.equal(r.headers.get('x-ratelimit-limit'), null);
    assert.equal(r.headers.get('x-ratelimit-tpslimit'), '3');
    await fetch(`${t.sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ headerStyle: 'spec' }) });
    r = await t.get('/devices');
    assert.equal(r.headers.get('x-ratelimit-tpslimit'), null);
    assert.equal(r.headers.get('x-ratelimit-limit'), '10');
  });
});

describe('simulator: limits sized by the key\'s fleet (real-service.md)', function () {
  this.timeout(30000);
  const limitsOf = (res) => [Number(res.headers.get('x-ratelimit-tpslimit')), Number(res.headers.get('x-ratelimit-tpdlimit'))];

  it('a key of the fixed fleet keeps the example limits, 5/s and 10000/day', async () => {
    const t = await start({ tps: undefined, tpd: undefined });
    try {
      for (const key of [SIM_KEYS.full, SIM_KEYS.subset]) assert.deepEqual(limitsOf(await t.get('/devices', { key })), [5, 10000]);
    } finally {
      await t.sim.close();
    }
  });

  it('a key with 307 devices gets about one request per second per three devices and a day of 30 s and 5 min reads plus a quarter', async () => {
    // Every request stamped with one arrival time, as a gateway would stamp a burst: the window's count then
    // does not depend on how fast this machine sends them.
    const t = await start({ tps: undefined, tpd: undefined, extraDevices: 300, arrivalStampHeader: true });
    const headers = { 'X-Sim-Arrived-At': String(Date.now()) };
    try {
      const ids = (await t.get('/devices', { headers })).body;
      assert.equal(ids.length, 307);
      const perDevice = 86400 / 30 + 2 * (86400 / 300);
      assert.deepEqual(limitsOf(await t.get('/devices', { headers })), [Math.round(307 / 3), Math.ceil(1.25 * perDevice * 307)]);
      assert.deepEqual(limitsOf(await t.get('/devices', { key: SIM_KEYS.subset, headers })), [5, 10000], 'the two-device key keeps the small limits');
      // The window holds 102 requests: of a burst of 103 after the two reads above, 3 are refused.
      const statuses = await Promise.all(Array.from({ length: 103 }, () => t.get(`/devices/${ids[0]}`, { headers })));
      assert.equal(statuses.filter((r) => r.status === 200).length, 100);
      assert.equal(statuses.filter((r) => r.status === 429).length, 3);
    } finally {
      await t.sim.close();
    }
  });

  it('explicit limits apply to every key, and a reset goes back to the sized ones', async () => {
    const t = await start({ tps: 7, tpd: undefined, extraDevices: 300 });
    try {
      assert.deepEqual(limitsOf(await t.get('/devices')), [7, 1326240]);
      assert.deepEqual(limitsOf(await t.get('/devices', { key: SIM_KEYS.subset })), [7, 10000]);
      t.sim.control.setLimits({ tpd: 50000 });
      assert.deepEqual(limitsOf(await t.get('/devices')), [7, 50000]);
      t.sim.control.reset();
      assert.deepEqual(limitsOf(await t.get('/devices')), [7, 1326240]);
    } finally {
      await t.sim.close();
    }
  });
});
