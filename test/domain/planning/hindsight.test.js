'use strict';
// The hindsight optimum (dynamic programme) against brute force on small cases: every schedule of up to 14 units
// enumerated, the cheapest one meeting every period's target under the minimum on and off times.
const assert = require('node:assert/strict');
const { hindsightOptimum } = require('../../../dist/domain/planning/hindsight');

/** Runs of equal state in a schedule; the first off run is free (the load rested before), the last may be cut by the end. */
function feasible(on, { periods, minOn, minOff }) {
  for (const p of periods) {
    let count = 0;
    for (let u = p.start; u < p.end; u++) count += on[u];
    if (count < p.need) return false;
  }
  let runStart = 0;
  for (let u = 1; u <= on.length; u++) {
    if (u < on.length && on[u] === on[u - 1]) continue;
    const length = u - runStart;
    const state = on[u - 1];
    const last = u === on.length;
    const first = runStart === 0;
    if (!last && state === 1 && length < minOn) return false;
    if (!last && !first && state === 0 && length < minOff) return false;
    runStart = u;
  }
  return true;
}

function bruteForce(req) {
  const n = req.costs.length;
  let best = Infinity;
  for (let mask = 0; mask < 1 << n; mask++) {
    const on = Array.from({ length: n }, (_, u) => (mask >> u) & 1);
    if (!feasible(on, req)) continue;
    best = Math.min(best, on.reduce((sum, o, u) => sum + o * req.costs[u], 0));
  }
  return best;
}

/** A small deterministic generator (the cases are the same on every run). */
function random(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('the hindsight optimum (pure)', function () {
  it('a hand-worked case: two cheapest units apart cost a start each; minOn 2 merges them', function () {
    const costs = [5, 1, 4, 1, 5, 5];
    assert.equal(hindsightOptimum({ costs, periods: [{ start: 0, end: 6, need: 2 }], minOn: 1, minOff: 1 }).cost, 2);
    const merged = hindsightOptimum({ costs, periods: [{ start: 0, end: 6, need: 2 }], minOn: 2, minOff: 1 });
    assert.equal(merged.cost, 5);
    assert.equal(merged.starts, 1);
    // Paid to consume: it runs beyond the target.
    assert.equal(hindsightOptimum({ costs: [-1, 3, -2], periods: [{ start: 0, end: 3, need: 1 }], minOn: 1, minOff: 1 }).cost, -3);
  });

  it('matches brute force on 300 random small cases (periods, minOn, minOff, negative costs)', function () {
    const next = random(42);
    for (let i = 0; i < 300; i++) {
      const n = 4 + Math.floor(next() * 11);
      const costs = Array.from({ length: n }, () => Math.round((next() * 10 - 3) * 10) / 10);
      const cut = 1 + Math.floor(next() * (n - 2));
      const periods = next() < 0.5
        ? [{ start: 0, end: n, need: Math.floor(next() * (n / 2)) }]
        : [{ start: 0, end: cut, need: Math.floor(next() * (cut / 2 + 1)) }, { start: cut, end: n, need: Math.floor(next() * ((n - cut) / 2 + 1)) }];
      const req = { costs, periods, minOn: 1 + Math.floor(next() * 3), minOff: 1 + Math.floor(next() * 3) };
      const expected = bruteForce(req);
      if (expected === Infinity) {
        assert.throws(() => hindsightOptimum(req), /no schedule/, JSON.stringify(req));
        continue;
      }
      const plan = hindsightOptimum(req);
      assert.ok(Math.abs(plan.cost - expected) < 1e-9, `${JSON.stringify(req)}: ${plan.cost} vs ${expected}`);
      assert.ok(feasible(Array.from(plan.on), req), `the schedule it gives is feasible: ${JSON.stringify(req)}`);
      assert.ok(Math.abs(Array.from(plan.on).reduce((s, o, u) => s + o * costs[u], 0) - plan.cost) < 1e-9);
    }
  });
});
