'use strict';
// How the limiter paces starts: evenly at the window's rate, and a timer that runs late (a busy event loop)
// does not push every later start back, while the sliding window over the wire times still holds.
// On a clock the test controls: fake timers, and a monotonic clock that a "busy" event loop moves on by the
// time it held the loop (fake timers cannot run late), so the verdicts never depend on the machine's load.
const assert = require('node:assert/strict');
const FakeTimers = require('@sinonjs/fake-timers');
const api = require('../../dist/api');

const NOW_MS = Date.UTC(2026, 5, 15, 12, 0, 0);

const gaps = (times) => times.slice(1).map((t, i) => t - times[i]);
const mostInWindow = (times, windowMs) => Math.max(...times.map((t) => times.filter((s) => s >= t && s < t + windowMs).length));

/** Fake timers, and a monotonic clock that also counts the ms a synchronous block held the event loop. */
function controlledLoop() {
  const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'], now: 0 });
  let heldMs = 0;
  return {
    monotonic: () => clock.now + heldMs,
    /** The event loop is busy for `ms`: every timer due meanwhile runs that much later on the monotonic clock. */
    busy(ms) { heldMs += ms; },
    /** Runs timers (and the promises they resolve) until `done` settles. */
    async run(done) {
      let settled = false;
      const result = done.finally(() => { settled = true; });
      while (!settled) await clock.tickAsync(1);
      return result;
    },
    uninstall: () => clock.uninstall(),
  };
}
describe('limiter: pacing', function () {
  this.timeout(20000);
  let loop;
  beforeEach(function () { loop = controlledLoop(); });
  afterEach(function () { loop.uninstall(); });

  it('spreads a fresh burst evenly at the window\'s rate: (1000 + margin) / tps apart', async () => {
    const l = new api.RateLimiter({ tps: 5, now: () => NOW_MS, monotonic: loop.monotonic });
    const started = [];
    await loop.run(Promise.all(Array.from({ length: 4 }, () => l.schedule('bulk', async (markSent) => { started.push(loop.monotonic()); markSent(); }))));
    const spacing = (1000 + l.state().marginMs) / 5;
    // Each start on its turn, within the 1 ms the timers round up to.
    started.forEach((at, k) => assert.ok(at - started[0] >= k * spacing - 1 && at - started[0] <= k * spacing + 1, `start ${k} after ${(at - started[0]).toFixed(1)} ms`));
    await loop.run(l.stop());
  });

  it('catches up after timers that run late instead of adding each delay to the pace, within the window', async () => {
    const tps = 10;
    const l = new api.RateLimiter({ tps, now: () => NOW_MS, monotonic: loop.monotonic });
    const spacing = (1000 + l.state().marginMs) / tps;
    const sent = [];
    const count = 31;
    const blocks = [];
    // Each start blocks the event loop for 20 ms just before the next start is due, as parsing a large
    // response at an unlucky moment does: every timer of the limiter runs about 20 ms late.
    await loop.run(Promise.all(Array.from({ length: count }, () => l.schedule('bulk', async (markSent) => {
      sent.push(loop.monotonic());
      markSent();
      blocks.push(new Promise((r) => setTimeout(() => { loop.busy(20); r(); }, spacing - 8)));
    }))));
    await loop.run(Promise.all(blocks));
    const average = (sent[count - 1] - sent[0]) / (count - 1);
    // Adding each delay would give spacing + ~12 ms (~115 ms); the window lets only 1/tps of it through.
    assert.ok(average < spacing + 6, `average gap ${average.toFixed(1)} ms for a spacing of ${spacing} ms`);
    // A late start lets the next one make up at most a quarter of a spacing or 50 ms, whichever is more.
    assert.ok(Math.min(...gaps(sent)) >= spacing - Math.max(spacing / 4, 50) - 1, 'never closer than the catch-up allows');
    assert.ok(mostInWindow(sent, 1000 + l.state().marginMs) <= tps, 'at most tps on the wire in any window');
    await loop.run(l.stop());
  });

  it('at a fleet\'s rate (100/s) makes up to 50 ms of each late timer, so delays of the event loop do not cost throughput', async () => {
    const tps = 100;
    const l = new api.RateLimiter({ tps, now: () => NOW_MS, monotonic: loop.monotonic });
    const spacing = (1000 + l.state().marginMs) / tps;
    const sent = [];
    const count = 201;
    let blocked = 0;
    // Every tenth start, the event loop is busy for 20 ms (a large answer parsed, a burst of msgs delivered).
    await loop.run(Promise.all(Array.from({ length: count }, () => l.schedule('bulk', async (markSent) => {
      sent.push(loop.monotonic());
      markSent();
      if (sent.length % 10 === 0) { blocked += 1; setImmediate(() => loop.busy(20)); }
    }))));
    const average = (sent[count - 1] - sent[0]) / (count - 1);
    // Losing each delay beyond a quarter spacing would add about 20 ms per 10 starts (2 ms a start).
    assert.ok(blocked >= 15);
    assert.ok(average < spacing + 0.6, `average gap ${average.toFixed(2)} ms for a spacing of ${spacing} ms`);
    assert.ok(mostInWindow(sent, 1000 + l.state().marginMs) <= tps, 'at most tps on the wire in any window');
    await loop.run(l.stop());
  });
});
