'use strict';
// The hindsight optimum (dynamic programme) against brute force on small cases: every schedule of up to 14 units
// enumerated, the cheapest one meeting every period's target under the minimum on and off times.
const assert = require('node:assert/strict');
const { hindsightOptimum, jointHindsightOptimum } = require('../../../dist/domain/planning/hindsight');

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

/** A random load of n units: one or two periods, minOn and minOff of 1–3 units. */
function randomLoad(next, n) {
  const cut = 1 + Math.floor(next() * (n - 2));
  const periods = next() < 0.5
    ? [{ start: 0, end: n, need: Math.floor(next() * (n / 2)) }]
    : [{ start: 0, end: cut, need: Math.floor(next() * (cut / 2 + 1)) }, { start: cut, end: n, need: Math.floor(next() * ((n - cut) / 2 + 1)) }];
  return { periods, minOn: 1 + Math.floor(next() * 3), minOff: 1 + Math.floor(next() * 3) };
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

  it('two loads together: matches brute force over both schedules on 200 random small cases (a cost for running both)', function () {
    const next = random(7);
    for (let i = 0; i < 200; i++) {
      const n = 4 + Math.floor(next() * 5);
      const loads = [randomLoad(next, n), randomLoad(next, n)];
      const alone = [0, 1].map(() => Array.from({ length: n }, () => Math.round((next() * 10 - 3) * 10) / 10));
      // Running both costs extra in some units (a shared surplus the second load no longer finds), less in others.
      const both = Array.from({ length: n }, (_, u) => alone[0][u] + alone[1][u] + Math.round((next() * 6 - 1) * 10) / 10);
      const costs = [new Array(n).fill(0), alone[0], alone[1], both];
      const schedules = [0, 1].map((l) => {
        const out = [];
        for (let mask = 0; mask < 1 << n; mask++) {
          const on = Array.from({ length: n }, (_, u) => (mask >> u) & 1);
          if (feasible(on, loads[l])) out.push(on);
        }
        return out;
      });
      let expected = Infinity;
      for (const x of schedules[0]) for (const y of schedules[1]) expected = Math.min(expected, x.reduce((s, _, u) => s + costs[x[u] + 2 * y[u]][u], 0));
      const req = { loads, costs };
      if (expected === Infinity) {
        assert.throws(() => jointHindsightOptimum(req), /no pair of schedules/, JSON.stringify(req));
        continue;
      }
      const plan = jointHindsightOptimum(req);
      assert.ok(Math.abs(plan.cost - expected) < 1e-9, `${JSON.stringify(req)}: ${plan.cost} vs ${expected}`);
      [0, 1].forEach((l) => assert.ok(feasible(Array.from(plan.on[l]), loads[l]), `load ${l}'s schedule is feasible: ${JSON.stringify(req)}`));
      const costed = plan.on[0].reduce((s, _, u) => s + costs[plan.on[0][u] + 2 * plan.on[1][u]][u], 0);
      assert.ok(Math.abs(costed - plan.cost) < 1e-9, 'the schedules it gives cost what it says');
    }
  });

  it('two loads that do not interact: the sum of each one\'s optimum, over a long run walked back block by block', function () {
    const next = random(99);
    const n = 600;
    const loads = [
      { periods: [{ start: 0, end: 288, need: 36 }, { start: 288, end: 576, need: 36 }], minOn: 3, minOff: 2 },
      { periods: [{ start: 10, end: 298, need: 48 }, { start: 298, end: 586, need: 48 }], minOn: 6, minOff: 3 },
    ];
    const alone = [0, 1].map(() => Array.from({ length: n }, () => next() * 10 - 4));
    const joint = jointHindsightOptimum({ loads, costs: [new Array(n).fill(0), alone[0], alone[1], alone[0].map((c, u) => c + alone[1][u])] });
    const singles = [0, 1].map((l) => hindsightOptimum({ ...loads[l], costs: alone[l] }));
    assert.ok(Math.abs(joint.cost - singles[0].cost - singles[1].cost) < 1e-6, `${joint.cost} vs ${singles[0].cost + singles[1].cost}`);
    [0, 1].forEach((l) => {
      assert.ok(feasible(Array.from(joint.on[l]), loads[l]));
      assert.ok(Math.abs(Array.from(joint.on[l]).reduce((s, o, u) => s + o * alone[l][u], 0) - singles[l].cost) < 1e-6, `load ${l} alone costs its optimum`);
    });
  });
});
