'use strict';
// The clock a test gives the demo (scripts/shifted-clock.js): what reads the time is shifted, nothing else is.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { shiftDate, OFFSET_ENV } = require('../../scripts/shifted-clock');

const DAY_MS = 86400000;
const RealDate = Date;

describe('a shifted clock (scripts/shifted-clock.js)', () => {
  it('reads the time offset by the shift and leaves dates given explicitly as they are', () => {
    const scope = { Date: RealDate };
    shiftDate(scope, -200 * DAY_MS);
    const before = RealDate.now();
    const now = scope.Date.now();
    const made = new scope.Date().getTime();
    const after = RealDate.now();
    for (const t of [now, made]) assert.ok(t >= before - 200 * DAY_MS && t <= after - 200 * DAY_MS, `${t}`);
    assert.ok(Math.abs(RealDate.parse(scope.Date()) - (after - 200 * DAY_MS)) < 2000, 'Date() as a function: the shifted time as text');
    assert.equal(new scope.Date(0).getTime(), 0);
    assert.equal(new scope.Date(2026, 3, 14).getDate(), 14);
    assert.equal(scope.Date.UTC(2026, 3, 14), RealDate.UTC(2026, 3, 14));
    assert.ok(new scope.Date() instanceof RealDate && new RealDate() instanceof scope.Date);
    class Stamp extends scope.Date {}
    assert.ok(new Stamp() instanceof Stamp && new Stamp(5).getTime() === 5);
  });

  it('is preloaded into a process by its environment variable, and refuses a value that is not a number', () => {
    const file = path.resolve(__dirname, '..', '..', 'scripts', 'shifted-clock.js');
    const read = (value) => spawnSync(process.execPath, ['--require', file, '-e', 'process.stdout.write(String(Date.now() - Number(process.argv[1])))', String(Date.now())],
      { env: { ...process.env, [OFFSET_ENV]: value }, encoding: 'utf8' });
    const shifted = read(String(10 * DAY_MS));
    assert.equal(shifted.status, 0, shifted.stderr);
    assert.ok(Math.abs(Number(shifted.stdout) - 10 * DAY_MS) < 60000, shifted.stdout);
    const wrong = read('soon');
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, new RegExp(`${OFFSET_ENV} is not a number`));
  });
});
