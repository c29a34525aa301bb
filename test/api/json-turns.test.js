'use strict';
// Large JSON arrays are parsed a slice at a time (src/api/json.ts): the result equals one JSON.parse,
// malformed text is refused as a whole, and the event loop gets turns while a ~1 MB page is parsed.
const assert = require('node:assert/strict');
const { parseJsonInTurns } = require('../../dist/api/json.js');

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('parseJsonInTurns', () => {
  const rnd = random(11);
  const tricky = ['a,b', '[x]', '{y}', 'quote " inside', 'back\\slash\\', 'uni ✓ \u2028', ''];
  const element = (i) => ({
    timestamp: 1_700_000_000 + i * 300,
    label: tricky[i % tricky.length],
    eReal: Array.from({ length: 6 }, () => Math.round(rnd() * 1e6)),
    nested: { list: [[i], { k: `]${i}[` }], none: null },
  });
  const big = Array.from({ length: 5000 }, (_, i) => element(i));
  const text = JSON.stringify(big);

  it('equals one JSON.parse for a large array with brackets, commas and escapes inside strings', async () => {
    assert.ok(text.length > 500_000);
    const parsed = await parseJsonInTurns(text);
    assert.equal(parsed.ok, true);
    assert.deepEqual(parsed.value, big);
    assert.deepEqual(await parseJsonInTurns(`  \n${text}\n `), { ok: true, value: big });
  });

  it('parses small texts, objects and empty arrays in one go, and refuses what JSON.parse refuses', async () => {
    assert.deepEqual(await parseJsonInTurns('[]'), { ok: true, value: [] });
    assert.deepEqual(await parseJsonInTurns(`[${' '.repeat(70_000)}]`), { ok: true, value: [] });
    assert.deepEqual(await parseJsonInTurns('{"a":[1,2]}'), { ok: true, value: { a: [1, 2] } });
    for (const bad of [`${text.slice(0, -1)},]`, `${text}x`, text.slice(0, -1), text.replace('"timestamp"', 'timestamp'), `[${'1,'.repeat(40_000)}]`, '', '   ', 42]) {
      assert.deepEqual(await parseJsonInTurns(bad), { ok: false }, String(bad).slice(-40));
    }
  });

  it('gives the event loop turns while it parses', async () => {
    let turns = 0;
    const count = () => { turns += 1; if (turns < 1000) setImmediate(count); };
    setImmediate(count);
    const parsed = await parseJsonInTurns(text);
    assert.equal(parsed.ok, true);
    assert.ok(turns >= 5, `${turns} turns`);
  });
});
