'use strict';
// What tests skip reaches the summary of `npm test` (scripts/test.js), not only the suites' logs.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readSkips, skipLines } = require('../support/skip');

const ROOT = path.resolve(__dirname, '..', '..');
const MOCHA = require.resolve('mocha/bin/mocha.js', { paths: [ROOT] });

describe('skips in the summary of npm test', function () {
  this.timeout(30000);

  it('each reason is listed with what it skipped', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-skips-'));
    const file = path.join(dir, 'suite.skips');
    try {
      const run = spawnSync(process.execPath, [MOCHA, '--no-config', 'test/fixtures/skipping.spec.js'],
        { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ENERGY_API_SKIPS_FILE: file } });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /1 passing/);
      assert.match(run.stdout, /3 pending/);
      const skips = readSkips(file);
      assert.deepEqual(skips, [
        { reason: 'mosquitto is not installed', titles: ['needs a broker'] },
        { reason: 'Chromium not found', titles: ['editor opens a dialog'] },
      ]);
      assert.deepEqual(skipLines(skips, ''), [
        'skipped "needs a broker": mosquitto is not installed',
        'skipped "editor opens a dialog": Chromium not found',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a suite that skipped nothing adds no line', () => {
    assert.deepEqual(readSkips(path.join(os.tmpdir(), 'energy-skips-none', 'absent.skips')), []);
    assert.deepEqual(skipLines([]), []);
  });

  it('more than three skipped blocks are counted, not all listed', () => {
    const titles = ['a', 'b', 'c', 'd', 'e'];
    assert.deepEqual(skipLines([{ reason: 'redis-server is not installed', titles }], ''), ['skipped "a", "b", "c" and 2 more: redis-server is not installed']);
  });
});
