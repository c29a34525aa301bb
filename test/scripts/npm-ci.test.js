'use strict';
// `npm ci` on the Node.js the README names for Node-RED 4 (20) installs quietly: no devDependency may want a newer
// Node.js (Node-RED 5 comes from the runtime cache instead, scripts/runtimes.js), and no dependency's install script
// is left unapproved (core-js's only prints a banner: denied in package.json's allowScripts).
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { npmCommand } = require('../../scripts/runtimes');

const ROOT = path.resolve(__dirname, '..', '..');

describe('npm ci', function () {
  this.timeout(180000);

  it(`warns of nothing on this Node.js (${process.version}): no unsupported engine, no unapproved install script`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
      // A dry run resolves the lockfile's tree and checks engines and install scripts as `npm ci` does, installing nothing.
      const [cmd, args] = npmCommand(['ci', '--dry-run', '--no-audit', '--no-fund', '--no-update-notifier']);
      const out = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', timeout: 170000 });
      const text = `${out.stdout}\n${out.stderr}`;
      assert.equal(out.status, 0, text.slice(-2000));
      assert.doesNotMatch(text, /EBADENGINE/, text.split('\n').filter((l) => /EBADENGINE/.test(l)).join('\n'));
      assert.deepEqual(text.split('\n').filter((l) => /^npm warn/.test(l)), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
