'use strict';
// The published package as a palette user gets it: packed from what a clone holds (prepack builds),
// installed into a clean Node-RED user directory with the palette manager's own npm command
// (--omit=dev --engine-strict), then Node-RED 4 (Node.js 20) and Node-RED 5 (Node.js 22 and 24),
// installed outside this repository, started on it and checked through the admin API.
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { resolvePackageRuntimes } = require('../../scripts/runtimes');
const s = require('./support');
const { skipBecause } = require('../support/skip');

const pkg = JSON.parse(fs.readFileSync(path.join(s.ROOT, 'package.json'), 'utf8'));
const NODE_TYPES = Object.keys(pkg['node-red'].nodes);
const RUNTIMES = process.env.ENERGY_API_TEST_RUNTIMES ? JSON.parse(process.env.ENERGY_API_TEST_RUNTIMES) : resolvePackageRuntimes();

/** Settings of a plain user install (toolchain.md): no outside hosts, a credential secret. */
const SETTINGS = {
  flowFile: 'flows.json',
  credentialSecret: 'energy-package-test',
  uiHost: '127.0.0.1',
  editorTheme: { projects: { enabled: false }, tours: false, palette: { catalogues: [] } },
  telemetry: { enabled: false, updateNotification: false },
  logging: { console: { level: 'info', metrics: false, audit: false } },
};

const filesUnder = (dir) => fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(dir, f)).isFile());

describe('package: packed, installed as the palette manager does, run on Node-RED 4 and 5', function () {
  this.timeout(180000);
  let work;
  let packed;

  before(function () {
    this.timeout(300000);
    work = s.tempDir('energy-package-');
    packed = s.packFreshClone(work);
  });

  after(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  describe('the tarball', () => {
    it('is built by prepack from a clone without dist/, and ships each node with its .html, locales and icons beside the .js', () => {
      assert.strictEqual(packed.hadDist, false, 'the clone copy already had dist/');
      for (const [type, file] of Object.entries(pkg['node-red'].nodes)) {
        const dir = path.dirname(file);
        const base = path.basename(file, '.js');
        for (const f of [file, `${dir}/${base}.html`, `${dir}/locales/en-US/${base}.json`, `${dir}/locales/en-US/${base}.html`]) {
          assert.ok(packed.files.includes(f), `${type}: ${f} is not in the tarball`);
        }
        const html = fs.readFileSync(path.join(packed.dir, dir, `${base}.html`), 'utf8');
        const icon = /\bicon:\s*['"]([^'"]+)['"]/.exec(html);
        if (icon && !icon[1].includes('/')) assert.ok(packed.files.includes(`${dir}/icons/${icon[1]}`), `${type}: its icon ${icon[1]} is not in ${dir}/icons/`);
      }
      for (const f of [pkg.main, pkg.types, pkg.bin['energy-api-simulator'], 'LICENSE', 'README.md', 'package.json']) {
        assert.ok(packed.files.includes(f), `${f} is not in the tarball`);
      }
    });

    it('ships no source maps and no sourceMappingURL comment', () => {
      assert.deepStrictEqual(packed.files.filter((f) => f.endsWith('.map')), []);
      const withMapComment = packed.files.filter((f) => /\.(js|d\.ts)$/.test(f) && /sourceMappingURL=/.test(fs.readFileSync(path.join(packed.dir, f), 'utf8')));
      assert.deepStrictEqual(withMapComment, []);
    });

    it("ships declarations only for the client it exports (main), and they resolve within the tarball", () => {
      const declarations = packed.files.filter((f) => f.endsWith('.d.ts'));
      assert.ok(declarations.includes(pkg.types), `${pkg.types} is missing`);
      const clientDir = `${path.dirname(pkg.main)}/`;
      assert.deepStrictEqual(declarations.filter((f) => !f.startsWith(clientDir)), [], `declarations outside ${clientDir}`);
      for (const file of declarations) {
        const text = fs.readFileSync(path.join(packed.dir, file), 'utf8');
        for (const [, spec] of text.matchAll(/from '(\.[^']+)'/g)) {
          const target = path.posix.join(path.posix.dirname(file), spec.replace(/\.js$/, '.d.ts'));
          assert.ok(declarations.includes(target), `${file} imports ${spec}, but ${target} is not shipped`);
        }
      }
    });

    it('is a public scoped package with the full Apache-2.0 licence text and a copyright line', () => {
      const packedPkg = JSON.parse(fs.readFileSync(path.join(packed.dir, 'package.json'), 'utf8'));
      assert.strictEqual(packedPkg.publishConfig && packedPkg.publishConfig.access, 'public');
      assert.match(packedPkg.name, /^@[^/]+\//);
      assert.strictEqual(packedPkg.license, 'Apache-2.0');
      const licence = fs.readFileSync(path.join(packed.dir, 'LICENSE'), 'utf8');
      assert.match(licence, /^Copyright \d{4} \S/m);
      for (const part of ['Apache License', 'Version 2.0, January 2004', 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION',
        '9. Accepting Warranty or Additional Liability.', 'END OF TERMS AND CONDITIONS']) {
        assert.ok(licence.includes(part), `LICENSE lacks "${part}"`);
      }
    });

    it("README images show on npm and in the flow library: absolute https addresses or files in the tarball", () => {
      const readme = fs.readFileSync(path.join(packed.dir, 'README.md'), 'utf8');
      const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g), ...readme.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1]);
      assert.ok(images.length > 0, 'the README shows no image');
      for (const src of images) {
        assert.ok(/^https:\/\//.test(src) || packed.files.includes(src.replace(/^\.\//, '')), `README image ${src} is neither absolute nor shipped`);
      }
    });

    it('ships every example flow as valid JSON', () => {
      const examples = filesUnder(path.join(s.ROOT, 'examples')).filter((f) => f.endsWith('.json'));
      assert.ok(examples.length > 0);
      for (const f of examples) {
        assert.ok(packed.files.includes(`examples/${f}`), `examples/${f} is not in the tarball`);
        assert.ok(Array.isArray(JSON.parse(fs.readFileSync(path.join(packed.dir, 'examples', f), 'utf8'))), `examples/${f} is not a flow`);
      }
    });
  });

  for (const runtime of RUNTIMES) {
    describe(`installed from the palette, on Node-RED ${runtime.nodeRed} and Node.js ${runtime.nodeMajor}`, () => {
      let userDir;
      let nodeRed;
      let simulator;
      let editorUrl;
      let env;

      before(async function () {
        this.timeout(300000);
        if (runtime.error) {
          skipBecause(this, runtime.error);
        }
        env = s.cleanEnv(runtime.nodeBin);
        userDir = s.createUserDir(SETTINGS);
        const { npmCli, args } = s.paletteInstallCommand(runtime.redJs);
        assert.ok(args.includes('--omit=dev') && args.includes('--engine-strict'), `palette install arguments: ${args.join(' ')}`);
        const install = spawnSync(runtime.nodeBin, [npmCli, 'install', ...args, '--', packed.tarball], { cwd: userDir, env, encoding: 'utf8', timeout: 240000 });
        assert.strictEqual(install.status, 0, `the palette manager's npm install failed:\n${install.stderr}\n${install.stdout}`);

        const port = await s.freePort();
        nodeRed = s.startProcess(runtime.nodeBin, [runtime.redJs, '-u', userDir, '-p', String(port)], { cwd: userDir, env });
        await nodeRed.waitForLine(/Server now running at/, 90000, 'Node-RED');
        editorUrl = `http://127.0.0.1:${port}/`;
        const versions = nodeRed.lines.filter((l) => /(Node-RED|Node\.js)\s+version:/.test(l)).map((l) => l.replace(/^.*\] /, '').replace(/\s+/g, ' '));
        console.log(`      runs on ${versions.join(', ')}`);
      });

      after(async () => {
        if (simulator) await simulator.stop();
        if (nodeRed) await nodeRed.stop();
        if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
      });

      async function admin(route, { method = 'GET', body, accept = 'application/json' } = {}) {
        const res = await fetch(new URL(route, editorUrl), {
          method,
          headers: { Accept: accept, 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        assert.ok(res.ok, `${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
        return /json/.test(res.headers.get('content-type') || '') ? JSON.parse(text) : text;
      }

      it('installed with --omit=dev only the runtime dependencies, as a user module', () => {
        const installed = JSON.parse(fs.readFileSync(path.join(userDir, 'package.json'), 'utf8'));
        assert.ok(installed.dependencies[pkg.name], 'the user directory package.json does not list the package');
        for (const dev of Object.keys(pkg.devDependencies)) {
          assert.ok(!fs.existsSync(path.join(userDir, 'node_modules', dev)), `devDependency ${dev} was installed`);
        }
        for (const dep of Object.keys(pkg.dependencies)) {
          assert.ok(fs.existsSync(path.join(userDir, 'node_modules', dep, 'package.json')), `dependency ${dep} is missing`);
        }
      });

      it('loads every node type without error (GET /nodes)', async () => {
        const module = await admin(`nodes/${pkg.name}`);
        assert.strictEqual(module.version, pkg.version);
        assert.strictEqual(module.user, true, 'not listed as a user-installed module');
        const problems = module.nodes.filter((set) => !set.enabled || set.err).map((set) => `${set.name}: ${set.err || 'disabled'}`);
        assert.deepStrictEqual(problems, []);
        assert.deepStrictEqual(module.nodes.flatMap((set) => set.types).sort(), [...NODE_TYPES].sort());
      });

      it('lists every example in the Import menu and serves each as a flow', async () => {
        const expected = filesUnder(path.join(packed.dir, 'examples')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
        const listed = await admin(`library/examples/flows/${pkg.name}`);
        assert.deepStrictEqual(listed.map((e) => e.fn).sort(), expected);
        for (const name of expected) {
          const flow = await admin(`library/examples/flows/${pkg.name}/${encodeURIComponent(name)}`);
          assert.ok(Array.isArray(typeof flow === 'string' ? JSON.parse(flow) : flow), `example ${name} is not a flow`);
        }
      });

      it("serves each node's editor, help, messages and icon, and the editor resources", async () => {
        const html = await admin('nodes', { accept: 'text/html' });
        const catalogs = await admin('nodes/messages?lng=en-US');
        const icons = (await admin('icons'))[pkg.name] || [];
        for (const type of NODE_TYPES) {
          assert.ok(html.includes(`RED.nodes.registerType('${type}'`) || html.includes(`RED.nodes.registerType("${type}"`), `${type}: no registerType`);
          assert.ok(html.includes(`data-template-name="${type}"`), `${type}: no edit dialog`);
          const help = new RegExp(`data-help-name="${type}"[^>]*>\\s*<p>\\S`).exec(html);
          assert.ok(help, `${type}: no help (locales/en-US/${type}.html)`);
          const catalog = catalogs[`${pkg.name}/${type}`];
          assert.ok(catalog && catalog[type] && Object.keys(catalog[type]).length > 0, `${type}: no en-US messages`);
          assert.ok(icons.includes(`${type}.svg`), `${type}: icon not listed (${icons.join(', ')})`);
          const icon = await fetch(new URL(`icons/${pkg.name}/${type}.svg`, editorUrl));
          assert.strictEqual(icon.status, 200, `${type}: icon answered ${icon.status}`);
          assert.match(icon.headers.get('content-type'), /^image\/svg\+xml/);
        }
        for (const src of [...html.matchAll(/<script src="(resources\/[^"]+)"/g)].map((m) => m[1])) {
          const res = await fetch(new URL(src, editorUrl));
          assert.strictEqual(res.status, 200, `${src} answered ${res.status}`);
        }
      });

      it("runs a deployed flow against the package's simulator bin", async function () {
        this.timeout(120000);
        const bin = path.join(userDir, 'node_modules', '.bin', 'energy-api-simulator');
        assert.ok(fs.existsSync(bin), 'node_modules/.bin/energy-api-simulator was not installed');
        const simPort = await s.freePort();
        simulator = s.startProcess(bin, ['--port', String(simPort)], { cwd: userDir, env: { ...env, PORT: String(simPort) } });
        // The simulator's CLI prints its base address and a demo key (never hard-coded here).
        const addressLine = await simulator.waitForLine(/https?:\/\/\S+\/v\d+\b/, 30000, 'energy-api-simulator');
        const keyLine = await simulator.waitForLine(/\bkey\b[^:]*:\s*\S+/i, 30000, 'energy-api-simulator');
        const fullKeyLine = simulator.lines.find((l) => /\bkey\b[^:]*full[^:]*:\s*\S+/i.test(l)) || keyLine;
        const apiKey = /:\s*(\S+)\s*$/.exec(fullKeyLine)[1];
        const baseUrl = /(https?:\/\/\S+\/v\d+)\b/.exec(addressLine)[1];
        const devicesRes = await fetch(`${baseUrl}/devices`, { headers: { Authorization: `Bearer ${apiKey}` } });
        assert.strictEqual(devicesRes.status, 200, `the simulator refused the key it printed (${devicesRes.status})`);
        const deviceIds = await devicesRes.json();
        assert.ok(Array.isArray(deviceIds) && deviceIds.length > 0, `GET /devices: ${JSON.stringify(deviceIds)}`);
        const deviceId = typeof deviceIds[0] === 'string' ? deviceIds[0] : deviceIds[0].id;

        const z = 'pkgtest-tab';
        await admin('flows', {
          method: 'POST',
          body: {
            flows: [
              { id: z, type: 'tab', label: 'package test' },
              { id: 'pkgtest-api', type: 'energy-api', name: 'simulator', baseUrl, tps: 5, tpd: 10000, timezone: '', credentials: { apiKey } },
              { id: 'pkgtest-in', type: 'http in', z, name: '', url: '/energy-package-test', method: 'get', upload: false, swaggerDoc: '', x: 140, y: 60, wires: [['pkgtest-status']] },
              { id: 'pkgtest-status', type: 'energy-device-status', z, name: '', api: 'pkgtest-api', mode: 'device', deviceId, offlineAfter: 900, interval: 0, onlyOnChange: false, outputOnDeploy: false, x: 360, y: 60, wires: [['pkgtest-out']] },
              { id: 'pkgtest-out', type: 'http response', z, name: '', statusCode: '', headers: {}, x: 580, y: 60, wires: [] },
              { id: 'pkgtest-catch', type: 'catch', z, name: '', scope: null, uncaught: false, x: 140, y: 120, wires: [['pkgtest-error']] },
              { id: 'pkgtest-error', type: 'change', z, name: 'error to 500', rules: [{ t: 'set', p: 'statusCode', pt: 'msg', to: '500', tot: 'num' }, { t: 'set', p: 'payload', pt: 'msg', to: 'error', tot: 'msg' }], x: 360, y: 120, wires: [['pkgtest-out']] },
            ],
          },
        });
        const res = await s.eventually(async () => {
          const r = await fetch(new URL('energy-package-test', editorUrl));
          return r.status === 404 ? null : r; // the route exists once the flow has started
        }, 15000, 'the deployed http-in route');
        const body = await res.text();
        assert.strictEqual(res.status, 200, `the flow answered ${res.status}: ${body}`);
        const device = JSON.parse(body);
        assert.strictEqual(device.id, deviceId);
        assert.ok(!body.includes(apiKey), 'the API key reached the flow output');
      });

      it('logged no error and no warning about this package', () => {
        const lines = nodeRed.lines.filter((l) => /\[(error|warn)\]/.test(l) && (l.includes('energy') || /\[error\]/.test(l)));
        assert.deepStrictEqual(lines, []);
      });
    });
  }
});
