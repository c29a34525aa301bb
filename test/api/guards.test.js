'use strict';
// What the client refuses before it plans or sends anything, and how it reads both rate-limit header forms.
const assert = require('node:assert/strict');
const { getEventListeners } = require('node:events');
const api = require('../../dist/api');

const NOW_MS = Date.UTC(2026, 5, 15, 12, 0, 0);
const DEVICE = 'D630000000002';
const invalid = (code = 'INVALID_REQUEST', pattern) => (err) => {
  assert.ok(err instanceof api.EnergyApiError, `expected an EnergyApiError, got ${err}`);
  assert.equal(err.code, code);
  if (pattern) assert.match(err.message, pattern);
  return true;
};

/** A client whose address nobody answers: every test here must be decided before a request. */
function offlineClient() {
  return new api.EnergyApiClient({ baseUrl: 'http://127.0.0.1:9/v3', apiKey: 'key_0123456789abcdef0123456789abcdef', now: () => NOW_MS, maxRetries: 0 });
}

describe('rate-limit headers, both forms', () => {
  const limiter = () => new api.RateLimiter({ now: () => NOW_MS });
  it('reads live resets as seconds remaining (TpsReset float, TpdReset integer) and follows the limits up and down', () => {
    const l = limiter();
    l.learn({ 'x-ratelimit-tpslimit': '50', 'x-ratelimit-tpsremaining': '49', 'x-ratelimit-tpsreset': '1.595', 'x-ratelimit-tpdlimit': '90000', 'x-ratelimit-tpdremaining': '88000', 'x-ratelimit-tpdreset': '86401' });
    let state = l.state();
    assert.equal(state.tps, 50);
    assert.equal(state.tpd, 90000);
    assert.equal(state.dailyRemaining, 88000);
    assert.equal(state.dailyResetAt, NOW_MS / 1000 + 86401);
    l.learn({ 'x-ratelimit-tpslimit': '7', 'x-ratelimit-tpdlimit': '12000', 'x-ratelimit-tpdremaining': '11000', 'x-ratelimit-tpdreset': '86000' });
    state = l.state();
    assert.equal(state.tps, 7);
    assert.equal(state.tpd, 12000);
    assert.equal(state.dailyRemaining, 11000, 'a new limit: the service\'s count as it is');
    l.stop();
  });
  it('reads the spec form: a reset above 10^9 is a unix time, below a duration', () => {
    const l = limiter();
    l.learn({ 'x-ratelimit-limit': '10000', 'x-ratelimit-remaining': '9000', 'x-ratelimit-reset': String(NOW_MS / 1000 + 3600) });
    assert.equal(l.state().dailyResetAt, NOW_MS / 1000 + 3600);
    assert.equal(l.state().dailyRemaining, 9000);
    l.learn({ 'x-ratelimit-limit': '10000', 'x-ratelimit-remaining': '8000', 'x-ratelimit-reset': '7200' });
    assert.equal(l.state().dailyResetAt, NOW_MS / 1000 + 7200);
    assert.equal(api.resetInSeconds(1.595, NOW_MS / 1000), 1.595);
    assert.equal(api.resetInSeconds(NOW_MS / 1000 + 2, NOW_MS / 1000), 2);
    l.stop();
  });
});

describe('limiter: a sliding window as the service counts, never a burst after a stall', () => {
  it('starts at most tps requests in any window of one second, even across an event-loop stall', async function () {
    this.timeout(20000);
    const { performance } = require('node:perf_hooks');
    const started = [];
    const l = new api.RateLimiter({ tps: 10, now: () => NOW_MS });
    const jobs = Array.from({ length: 45 }, () => l.schedule('bulk', async (markSent) => { started.push(performance.now()); markSent(); }));
    await new Promise((r) => setTimeout(r, 350));
    const until = performance.now() + 1500;
    while (performance.now() < until); // a stalled event loop: timers fire late, all at once
    await Promise.all(jobs);
    for (let i = 0; i < started.length; i++) {
      const inWindow = started.filter((s) => s >= started[i] && s < started[i] + 1000).length;
      assert.ok(inWindow <= 10, `${inWindow} starts within one second from ${Math.round(started[i] - started[0])} ms`);
    }
    await l.stop();
  });
  it('lets interactive requests overtake queued bulk reads', async () => {
    const order = [];
    const l = new api.RateLimiter({ tps: 4, now: () => NOW_MS });
    const jobs = ['b1', 'b2', 'b3'].map((name) => l.schedule('bulk', async () => order.push(name)));
    await new Promise((r) => setTimeout(r, 20));
    jobs.push(l.schedule('interactive', async () => order.push('switch')));
    await Promise.all(jobs);
    assert.deepEqual(order, ['b1', 'switch', 'b2', 'b3']);
    await l.stop();
  });
  it('widens its margin after a 429 TPS', () => {
    const l = new api.RateLimiter({ now: () => NOW_MS });
    const base = l.state().marginMs;
    l.widenMargin();
    assert.ok(l.state().marginMs > base);
    l.stop();
  });
});

describe('refused before any planning or request', () => {
  let client;
  beforeEach(() => { client = offlineClient(); });
  afterEach(() => client.close());

  it('refuses absurd and wrong-typed times with its own words', async () => {
    for (const [fromTs, toTs, pattern] of [
      [0, 1e20, /after the year 2100/],
      [Date.UTC(9999, 0, 1) / 1000, Date.UTC(9999, 0, 2) / 1000, /after the year 2100/],
      [8.64e12, 8.64e12 + 60, /after the year 2100/],
      [0, Infinity, /whole number/],
      [NaN, 5, /whole number/],
      [{ toString: null }, 5, /an object/],
      [10n, 20n, /BigInt/],
      [Object.create(null), 5, /an object/],
    ]) {
      await assert.rejects(client.getLongEnergy(DEVICE, { fromTs, toTs }), invalid('INVALID_REQUEST', pattern));
      await assert.rejects(client.getModbus(DEVICE, { fromTs, toTs }), invalid('INVALID_REQUEST', pattern));
    }
    const circular = {};
    circular.self = circular;
    await assert.rejects(client.getShortEnergy(circular, { fromTs: 1, toTs: 2 }), invalid('INVALID_REQUEST', /an object is not a device id/));
    await assert.rejects(client.getLongEnergy(DEVICE, circular), invalid('INVALID_REQUEST', /fromTs/));
    await assert.rejects(client.getLongEnergy(DEVICE, null), invalid('INVALID_REQUEST', /must be an object/));
    await assert.rejects(client.getLongEnergy(DEVICE, { fromTs: 1, toTs: 2, granularity: { a: 1 } }), invalid('INVALID_REQUEST', /granularity/));
  });

  it('bounds what one call may cost: maxRequests (default 100) is checked before planning', async () => {
    const to = NOW_MS / 1000;
    await assert.rejects(client.getLongEnergy(DEVICE, { fromTs: 0, toTs: to, granularity: '5m' }), invalid('REQUEST_BUDGET', /maxRequests \(100\)/));
    await assert.rejects(client.getModbus(DEVICE, { fromTs: 0, toTs: to }), invalid('REQUEST_BUDGET', /needs at least \d+ requests/));
    await assert.rejects(client.getLongEnergy(DEVICE, { fromTs: to - 30 * 86400, toTs: to }, { maxRequests: 3 }), invalid('REQUEST_BUDGET', /maxRequests \(3\)/));
    // The arithmetic bound is immediate even for the longest span the times allow.
    const started = process.hrtime.bigint();
    await assert.rejects(client.getModbus(DEVICE, { fromTs: 0, toTs: Date.UTC(2099, 0, 1) / 1000 }), invalid('REQUEST_BUDGET'));
    assert.ok(process.hrtime.bigint() - started < 50_000_000n, 'refused without planning');
    await assert.rejects(client.getLongEnergy(DEVICE, { fromTs: 1, toTs: 2 }, { maxRequests: 0 }), invalid('INVALID_REQUEST', /maxRequests/));
  });

  it('refuses time zones not spelt as the TZ database does (the service is case-sensitive)', async () => {
    for (const zone of ['europe/berlin', 'EUROPE/BERLIN', 'utc', 'us/eastern', 'Not/AZone', 42]) {
      assert.equal(api.isValidTimezone(zone), false, String(zone));
    }
    for (const zone of ['Europe/Berlin', 'UTC', 'Australia/Sydney', 'America/Port-au-Prince', 'US/Eastern', 'Etc/GMT+5']) {
      assert.equal(api.isValidTimezone(zone), true, zone);
    }
    await assert.rejects(client.getLongEnergy(DEVICE, { fromTs: 1600000000, toTs: 1600086400, granularity: 'day', timezone: 'europe/berlin' }), invalid('INVALID_REQUEST', /case-sensitive/));
  });

  it('takes a WiFi PSK only as WPA2 does: 8 to 63 printable ASCII characters or 64 hex digits, named by the rule, never echoed', async () => {
    const device = { id: 'D6A0000000005', model: '6MW', firmwareVersion: '0.13.2', channels: [], switches: [], comms: {}, phases: { count: 1 } };
    const problems = (psk) => api.checkDeviceUpdate({ comms: { wifi: { ssid: 'Office', psk } } }, { deviceId: device.id, device });
    for (const psk of ['12345678', ' ~!"#$%&\'()*+,-./'.padEnd(63, 'x'), 'ABCDEF0123456789'.repeat(4)]) assert.deepEqual(problems(psk), [], psk);
    for (const psk of ['Grüße-äöüß-Netz', 'café-au-lait', '1234567', 'x'.repeat(64), 'e'.repeat(63) + 'g']) {
      const found = problems(psk);
      assert.equal(found.length, 1, psk);
      assert.match(found[0].message, /comms\.wifi\.psk must be a WPA2 passphrase of 8 to 63 printable ASCII characters \(codes 32 to 126.*\), or a key of exactly 64 hexadecimal digits/);
      assert.ok(!found[0].message.includes(psk), 'not echoed');
    }
  });

  it('counts an SSID in UTF-8 bytes (at most 32, as 802.11 does) and never sends a longer one', async () => {
    const device = { id: 'D6A0000000005', model: '6MW', firmwareVersion: '0.13.2', channels: [], switches: [], comms: {}, phases: { count: 1 } };
    const problems = (ssid) => api.checkDeviceUpdate({ comms: { wifi: { ssid, psk: 'secret-psk-1' } } }, { deviceId: device.id, device });
    // 📶 takes 4 bytes, é 2.
    for (const ssid of ['📶'.repeat(8), 'é'.repeat(16), 'x'.repeat(32), 'N']) assert.deepEqual(problems(ssid), [], ssid);
    assert.deepEqual(api.checkDeviceUpdate({ comms: { wifi: { ssid: '', psk: '' } } }, { deviceId: device.id, device }), [], 'empty + empty turns WiFi off');
    for (const [ssid, bytes] of [['📶'.repeat(8) + 'x', 33], ['📶'.repeat(9), 36], ['é'.repeat(32), 64], ['x'.repeat(33), 33]]) {
      const found = problems(ssid);
      assert.equal(found.length, 1, ssid);
      assert.match(found[0].message, new RegExp(`^comms\\.wifi\\.ssid must be at most 32 bytes in UTF-8 .*: this one has ${bytes} bytes$`));
      // No device given: refused by the rules that need none, before the device is read or anything is sent.
      await assert.rejects(offlineClient().updateDevice(device.id, { comms: { wifi: { ssid, psk: 'secret-psk-1' } } }), invalid('INVALID_REQUEST', new RegExp(`at most 32 bytes.*has ${bytes} bytes`)));
    }
  });

  it('refuses WiFi credentials with control characters without echoing them', async () => {
    const device = { id: 'D6A0000000005', model: '6MW', firmwareVersion: '0.13.2', channels: [], switches: [], comms: {}, phases: { count: 1 } };
    for (const wifi of [{ ssid: 'Office\nNet', psk: 'secret-psk-1' }, { ssid: 'Office', psk: 'secret\u0000psk' }]) {
      const problems = api.checkDeviceUpdate({ comms: { wifi } }, { deviceId: device.id, device });
      assert.equal(problems.length, 1);
      assert.match(problems[0].message, /control characters/);
      assert.ok(!problems[0].message.includes('secret'));
    }
  });

  it('leaves no listener on a long-lived signal once calls end', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 6; i++) {
      await client.getShortEnergy(DEVICE, { fromTs: NOW_MS / 1000 - 60, toTs: NOW_MS / 1000 }, { signal: controller.signal }).catch(() => undefined);
      await client.getDevice(DEVICE, { signal: controller.signal }).catch(() => undefined);
    }
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});
