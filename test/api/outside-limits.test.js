'use strict';
// The outside services' limiter (Amber, the forecast sources): one per provider, address and key, held by its users;
// a hold one of them hears holds all, on the clock the first holder gives; the last release stops it. Over real HTTP
// on a loopback server that answers what the test queues.
const assert = require('node:assert/strict');
const http = require('node:http');
const { acquireOutsideLimiter } = require('../../dist/api/outside-limits.js');
const { getJson } = require('../../dist/api/outside-http.js');
const { OutsideServiceError } = require('../../dist/api');
const { FORECAST_SOLAR_RULES } = require('../../dist/domain/forecast/forecast-solar.js');
const { SOLCAST_RULES } = require('../../dist/domain/forecast/solcast.js');

const T = Date.UTC(2026, 9, 15, 2, 0, 0);
/** A provider stating its wait in a Retry-After header (seconds). */
const RULES = {
  provider: 'Test',
  holdAfter: (answer, nowMs) => (answer.status === 429 ? nowMs + Number(answer.headers['retry-after']) * 1000 : undefined),
};

describe('outside services: one limiter per provider key, with the provider\'s rules', function () {
  let server;
  let base;
  let answers;
  let arrivals;
  let t;
  const now = () => t;

  beforeEach(async function () {
    t = T;
    answers = [];
    arrivals = 0;
    server = http.createServer((req, res) => {
      arrivals += 1;
      const { status, headers, body } = answers.shift() ?? { status: 200, headers: {} };
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body ?? []));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterEach(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  const ask = (limiter) => limiter.send('/x', () => getJson(`${base}/x`, { provider: limiter.rules.provider }));
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('two callers of one key share one limiter: a 429 with Retry-After holds both until it passes', async function () {
    const a = acquireOutsideLimiter(RULES, base, 'key-one-12345', now);
    const b = acquireOutsideLimiter(RULES, base, 'key-one-12345', () => 0);
    const other = acquireOutsideLimiter(RULES, base, 'key-two-67890', now);
    assert.equal(a.value, b.value, 'one limiter for the key, whoever asks');
    assert.notEqual(a.value, other.value, 'another key has its own');

    answers.push({ status: 429, headers: { 'retry-after': '120' } });
    const refused = await ask(a.value);
    assert.equal(refused.status, 429);
    assert.equal(a.value.blockedUntil, T + 120_000, 'on the first holder\'s clock');
    for (const held of [a, b]) {
      await assert.rejects(ask(held.value), (err) => err instanceof OutsideServiceError && err.code === 'RATE_LIMITED' && err.sent === false
        && err.rateLimit.resetAt === T / 1000 + 120);
    }
    assert.equal(arrivals, 1, 'nothing sent while held');
    assert.equal((await ask(other.value)).status, 200, 'another key is not held');
    assert.equal(arrivals, 2);

    t = T + 119_999;
    await assert.rejects(ask(b.value), (err) => err.code === 'RATE_LIMITED');
    t = T + 120_000;
    assert.equal((await ask(b.value)).status, 200);
    assert.equal(arrivals, 3);
    await Promise.all([a.release(), b.release(), other.release()]);
  });

  it('the last release stops the limiter: what waits is refused, no timer is left, the next user starts afresh', async function () {
    const paced = { ...RULES, perSecond: 1 };
    const a = acquireOutsideLimiter(paced, base, 'key-paced-12345', now);
    const b = acquireOutsideLimiter(paced, base, 'key-paced-12345', now);
    await ask(a.value);
    const before = timeouts();
    // One a second, on a clock that does not move: the second waits.
    const waiting = ask(b.value);
    const outcome = waiting.then(() => 'sent', (err) => err);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(timeouts(), before + 1, 'the wait is one timer');
    await a.release();
    assert.equal(await Promise.race([outcome, new Promise((resolve) => setImmediate(() => resolve('still waiting')))]), 'still waiting', 'held while a user holds it');
    await b.release();
    const err = await outcome;
    assert.ok(err instanceof OutsideServiceError && err.code === 'ABORTED' && err.provider === 'Test', String(err));
    assert.ok(timeouts() <= before, 'no timer left');
    assert.equal(arrivals, 1);
    const next = acquireOutsideLimiter(paced, base, 'key-paced-12345', now);
    assert.notEqual(next.value, a.value, 'a new limiter for the next user');
    await next.release();
  });

  it('Forecast.Solar\'s 12 an hour per address are kept here: the 13th in any 60 minutes is refused unsent', async function () {
    // Two planes (two nodes) on one address: one limiter counts both.
    const east = acquireOutsideLimiter(FORECAST_SOLAR_RULES, base, '', now);
    const west = acquireOutsideLimiter(FORECAST_SOLAR_RULES, base, '', now);
    for (let i = 0; i < 12; i += 1) {
      t = T + i * 60_000;
      assert.equal((await ask(i % 2 ? west.value : east.value)).status, 200);
    }
    assert.equal(arrivals, 12);
    t = T + 12 * 60_000;
    await assert.rejects(ask(east.value), (err) => err instanceof OutsideServiceError && err.code === 'RATE_LIMITED' && err.sent === false
      && err.rateLimit.resetAt === T / 1000 + 3600);
    assert.equal(west.value.blockedUntil, T + 3600_000, 'until the hour\'s first request is an hour old');
    t = T + 3600_000 - 1;
    await assert.rejects(ask(west.value), (err) => err.code === 'RATE_LIMITED');
    assert.equal(arrivals, 12, 'nothing sent while the hour is full');
    t = T + 3600_000;
    assert.equal((await ask(west.value)).status, 200, 'the first left the hour: one more goes');
    await assert.rejects(ask(east.value), (err) => err.code === 'RATE_LIMITED', 'and the hour is full again');
    // Asked at once, the hour's last request goes to one caller only.
    t = T + 3600_000 + 60_000;
    const both = await Promise.allSettled([ask(east.value), ask(west.value)]);
    assert.deepEqual(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(arrivals, 14);
    await Promise.all([east.release(), west.release()]);
  });

  it('Solcast\'s 10 a UTC day per key are kept here; its daily 429 holds the key to 00:00 UTC, a busy 429 for 15 minutes', async function () {
    const site1 = acquireOutsideLimiter(SOLCAST_RULES, base, 'solcast-key-12345', now);
    const site2 = acquireOutsideLimiter(SOLCAST_RULES, base, 'solcast-key-12345', now);
    // Solcast busy at the top of the hour: a 429 that is not the daily limit.
    answers.push({ status: 429, headers: {}, body: { response_status: { error_code: 'ServiceUnavailable', message: 'busy' } } });
    assert.equal((await ask(site1.value)).status, 429);
    assert.equal(site2.value.blockedUntil, T + 15 * 60_000, 'a busy 429 holds the key 15 minutes, not the day');
    t = T + 15 * 60_000;
    for (let i = 1; i < 10; i += 1) assert.equal((await ask(i % 2 ? site2.value : site1.value)).status, 200);
    assert.equal(arrivals, 10);
    await assert.rejects(ask(site1.value), (err) => err instanceof OutsideServiceError && err.code === 'RATE_LIMITED' && err.sent === false
      && /daily limit \(10\) is spent/.test(err.message) && !err.message.includes('solcast-key'));
    assert.equal(arrivals, 10, 'the 11th of the day is not sent');
    // The next UTC day: the count starts again; the daily limit's 429 (asked from elsewhere too) holds to 00:00 UTC.
    const midnight = Date.UTC(2026, 9, 16);
    t = midnight + 60_000;
    answers.push({ status: 429, headers: {}, body: { response_status: { error_code: 'TooManyRequests', message: 'You have exceeded your free daily limit.' } } });
    assert.equal((await ask(site2.value)).status, 429);
    assert.equal(site1.value.blockedUntil, Date.UTC(2026, 9, 17), 'the daily limit holds the key to the next 00:00 UTC');
    assert.equal(arrivals, 11);
    t = Date.UTC(2026, 9, 17) + 60_000;
    answers.push({ status: 429, headers: {}, body: { response_status: { message: 'You have exceeded your free daily limit.' } } });
    await ask(site1.value);
    assert.equal(site2.value.blockedUntil, Date.UTC(2026, 9, 18), 'the daily limit said in words only holds to 00:00 UTC too');
    await Promise.all([site1.release(), site2.release()]);
  });

  it('a provider\'s own headers are read by its rules only: Forecast.Solar\'s hourly X-Ratelimit-* set no pace', async function () {
    const lease = acquireOutsideLimiter(FORECAST_SOLAR_RULES, base, '', now);
    // Read as the energy API's generic headers, a limit of 1 with a reset 30 s away would be one request a second.
    answers.push({ status: 200, headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30', 'x-ratelimit-period': '3600' } });
    await ask(lease.value);
    assert.equal((await ask(lease.value)).status, 200, 'the second goes at once on a clock that does not move');
    assert.equal(lease.value.blockedUntil, 0);
    answers.push({ status: 429, headers: { 'x-ratelimit-retry-at': new Date(T + 1800_000).toISOString() } });
    await ask(lease.value);
    assert.equal(lease.value.blockedUntil, T + 1800_000, 'a 429 holds the address until its X-Ratelimit-Retry-At');
    await lease.release();
  });
});
