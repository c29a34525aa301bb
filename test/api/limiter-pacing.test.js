'use strict';
// How the limiter paces starts: evenly at the window's rate, and a timer that runs late (a busy event loop)
// does not push every later start back, while the sliding window over the wire times still holds.
const assert = require('node:assert/strict');
const { performance } = require('node:perf_hooks');
const api = require('../../dist/api');

const NOW_MS = Date.UTC(2026, 5, 15, 12, 0, 0);

function busy(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until); // eslint-disable-line no-empty
}

const gaps = (times) => times.slice(1).map((t, i) => t - times[i]);
const mostInWindow = (times, windowMs) => Math.max(...times.map((t) => times.filter((s) => s >= t && s < t + windowMs).length));

describe('limiter: pacing', function () {
  this.timeout(20000);

  it('spreads a fresh burst evenly at the window\'s rate: (1000 + margin) / tps apart', async () => {
    const l = new api.RateLimiter({ tps: 5, now: () => NOW_MS });
    const started = [];
    await Promise.all(Array.from({ length: 4 }, () => l.schedule('bulk', async (markSent) => { started.push(performance.now()); markSent(); })));
    const spacing = (1000 + l.state().marginMs) / 5;
    // A start is never before its turn; one whose timer ran late lets the next catch up.
    started.forEach((at, k) => assert.ok(at - started[0] >= k * spacing - 1, `start ${k} after ${(at - started[0]).toFixed(1)} ms`));
    assert.ok(Math.min(...gaps(started)) >= spacing * 0.75 - 1, 'never closer than three quarters of a spacing');
    await l.stop();
  });

  it('catches up after timers that run late instead of adding each delay to the pace, within the window', async () => {
    const tps = 10;
    const l = new api.RateLimiter({ tps, now: () => NOW_MS });
    const spacing = (1000 + l.state().marginMs) / tps;
    const sent = [];
    const count = 31;
    const blocks = [];
    // Each start blocks the event loop for 20 ms just before the next start is due, as parsing a large
    // response at an unlucky moment does: every timer of the limiter runs about 20 ms late.
    await Promise.all(Array.from({ length: count }, () => l.schedule('bulk', async (markSent) => {
      sent.push(performance.now());
      markSent();
      blocks.push(new Promise((r) => setTimeout(() => { busy(20); r(); }, spacing - 8)));
    })));
    await Promise.all(blocks);
    const average = (sent[count - 1] - sent[0]) / (count - 1);
    // Adding each delay would give spacing + ~12 ms (~115 ms); the window lets only 1/tps of it through.
    assert.ok(average < spacing + 6, `average gap ${average.toFixed(1)} ms for a spacing of ${spacing} ms`);
    assert.ok(Math.min(...gaps(sent)) >= spacing * 0.75 - 1, 'never closer than three quarters of a spacing');
    assert.ok(mostInWindow(sent, 1000 + l.state().marginMs) <= tps, 'at most tps on the wire in any window');
    await l.stop();
  });

  it('at a fleet\'s rate (100/s) makes up to 50 ms of each late timer, so delays of the event loop do not cost throughput', async () => {
    const tps = 100;
    const l = new api.RateLimiter({ tps, now: () => NOW_MS });
    const spacing = (1000 + l.state().marginMs) / tps;
    const sent = [];
    const count = 201;
    let blocked = 0;
    // Every tenth start, the event loop is busy for 20 ms (a large answer parsed, a burst of msgs delivered).
    await Promise.all(Array.from({ length: count }, () => l.schedule('bulk', async (markSent) => {
      sent.push(performance.now());
      markSent();
      if (sent.length % 10 === 0) { blocked += 1; setImmediate(() => busy(20)); }
    })));
    const average = (sent[count - 1] - sent[0]) / (count - 1);
    // Losing each delay beyond a quarter spacing would add about 20 ms per 10 starts (2 ms a start).
    assert.ok(blocked >= 15);
    assert.ok(average < spacing + 0.6, `average gap ${average.toFixed(2)} ms for a spacing of ${spacing} ms`);
    assert.ok(mostInWindow(sent, 1000 + l.state().marginMs) <= tps, 'at most tps on the wire in any window');
    await l.stop();
  });
});
