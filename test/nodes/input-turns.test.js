'use strict';
// Inputs of the package's nodes start at once until a turn of the event loop has done its share of them, then in
// order, one per turn: a fan-out of hundreds of msgs does not hold the loop (src/nodes/shared/input-turns.ts).
const assert = require('node:assert/strict');
const { startInput, waitingInputs } = require('../../dist/nodes/shared/input-turns.js');

const busy = (ms) => { const end = performance.now() + ms; while (performance.now() < end) { /* a handler's work */ } };
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('input turns', function () {
  it('starts a burst in order: at once while the turn has time, then one per turn with other callbacks in between', async function () {
    const started = [];
    let turns = 0;
    const ticker = setInterval(() => { turns += 1; }, 0);
    await turn();
    // 40 inputs delivered in one turn, each 1 ms of work: about 8 start at once.
    for (let i = 0; i < 40; i++) startInput(() => { started.push({ i, turns }); busy(1); });
    const atOnce = started.length;
    assert.ok(atOnce >= 1 && atOnce < 20, `${atOnce} started in the delivering turn`);
    assert.equal(waitingInputs(), 40 - atOnce);
    while (waitingInputs() > 0) await turn();
    await turn();
    clearInterval(ticker);
    assert.deepEqual(started.map((s) => s.i), Array.from({ length: 40 }, (_, i) => i), 'in the order delivered');
    const later = started.slice(atOnce);
    for (let k = 1; k < later.length; k++) assert.ok(later[k].turns >= later[k - 1].turns, 'never out of turn');
    assert.ok(later[later.length - 1].turns > 0, 'timers ran while the burst was worked off');
  });

  it('a single input starts at once', async () => {
    await turn();
    await turn();
    let ran = false;
    startInput(() => { ran = true; });
    assert.equal(ran, true);
  });
});
