'use strict';
// `npm ci` on the Node.js the README names for Node-RED 4 (20) installs without an engine warning: no
// devDependency may want a newer Node.js (Node-RED 5 comes from the runtime cache instead, scripts/runtimes.js).
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { npmCommand } = require('../../scripts/runtimes');

const ROOT = path.resolve(__dirname, '..', '..');

describe('npm ci', function () {
  this.timeout(180000);

  it(`warns of no unsupported engine on this Node.js (${process.version})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
      // A dry run resolves the lockfile's tree and checks every package's engines as `npm ci` does, installing nothing.
      const [cmd, args] = npmCommand(['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier']);
      const out = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', timeout: 170000 });
      const text = `${out.stdout}\n${out.stderr}`;
      assert.equal(out.status, 0, text.slice(-2000));
      assert.doesNotMatch(text, /EBADENGINE/, text.split('\n').filter((l) => /EBADENGINE/.test(l)).join('\n'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
