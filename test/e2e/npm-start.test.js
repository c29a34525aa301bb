'use strict';
// `node scripts/start.js` as `npm start` runs it: addresses printed, flows deployed, and
// SIGTERM/SIGINT stop Node-RED and the simulator without leaving a process behind.
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

function isAlive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

function childPids(pid) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch { /* gone */ }
  }
  return out;
}

async function startCli(signal) {
  const [port, simPort] = [await freePort(), await freePort()];
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-cli-'));
  const env = { ...process.env, PORT: String(port), SIM_PORT: String(simPort), NODE_RED_USER_DIR: userDir };
  delete env.ENERGY_API_URL;
  const cli = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  cli.stdout.on('data', (d) => { out += d; });
  cli.stderr.on('data', (d) => { out += d; });
  const deadline = Date.now() + 30000;
  while (!out.includes('Ctrl-C stops everything')) {
    if (Date.now() > deadline || cli.exitCode !== null) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { cli, port, simPort, userDir, output: () => out, signal };
}

describe('e2e: npm start', function () {
  this.timeout(60000);

  for (const signal of ['SIGTERM', 'SIGINT']) {
    it(`prints the addresses, serves the demo, and ${signal} stops everything`, async () => {
      const run = await startCli(signal);
      try {
        assert.match(run.output(), new RegExp(`Node-RED editor: +http://127\\.0\\.0\\.1:${run.port}/`));
        assert.match(run.output(), new RegExp(`Dashboard: +http://127\\.0\\.0\\.1:${run.port}/dashboard`));
        assert.match(run.output(), new RegExp(`simulator at http://127\\.0\\.0\\.1:${run.simPort}/v3`));
        const flows = await (await fetch(`http://127.0.0.1:${run.port}/flows`)).json();
        assert.ok(flows.some((n) => n.type === 'energy-api'));
        const sim = await fetch(`http://127.0.0.1:${run.simPort}/__sim/clock`);
        assert.strictEqual(sim.status, 200);
        const nodeRed = childPids(run.cli.pid);
        assert.strictEqual(nodeRed.length, 1, 'one Node-RED child');

        const exited = new Promise((resolve) => run.cli.once('exit', (code) => resolve(code)));
        run.cli.kill(signal);
        assert.strictEqual(await exited, 0);
        assert.ok(!isAlive(nodeRed[0]), 'Node-RED stopped');
        await assert.rejects(fetch(`http://127.0.0.1:${run.simPort}/__sim/clock`), 'the simulator stopped');
        await assert.rejects(fetch(`http://127.0.0.1:${run.port}/`), 'the editor stopped');
      } finally {
        if (run.cli.exitCode === null) run.cli.kill('SIGKILL');
        fs.rmSync(run.userDir, { recursive: true, force: true });
      }
    });
  }

  it('with ENERGY_API_URL and ENERGY_API_KEY the same flows talk to that service, and the key is stored nowhere', async () => {
    const { startSimulator, SIM_KEYS } = require(path.join(ROOT, 'dist/simulator/index.js'));
    const service = await startSimulator({ port: 0 });
    const [port, unusedSimPort] = [await freePort(), await freePort()];
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-cli-real-'));
    const env = { ...process.env, PORT: String(port), SIM_PORT: String(unusedSimPort), NODE_RED_USER_DIR: userDir, ENERGY_API_URL: service.baseUrl, ENERGY_API_KEY: SIM_KEYS.full };
    const cli = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    cli.stdout.on('data', (d) => { out += d; });
    try {
      const deadline = Date.now() + 30000;
      while (!out.includes('Ctrl-C stops everything')) {
        if (Date.now() > deadline || cli.exitCode !== null) throw new Error(out);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(out, new RegExp(`Energy API: +${service.baseUrl.replace(/[.]/g, '\\.')} \\(key from ENERGY_API_KEY\\)`));
      await assert.rejects(fetch(`http://127.0.0.1:${unusedSimPort}/__sim/clock`), 'no simulator of its own');
      const flows = await (await fetch(`http://127.0.0.1:${port}/flows`)).json();
      assert.strictEqual(flows.find((n) => n.type === 'energy-api').baseUrl, service.baseUrl);
      // The on-deploy reads of the examples reach the service with the key.
      const until = Date.now() + 15000;
      while (!service.control.log().some((r) => r.key5 === SIM_KEYS.full.slice(-5) && r.status === 200)) {
        if (Date.now() > until) throw new Error('no request reached the service');
        await new Promise((r) => setTimeout(r, 250));
      }
      for (const file of fs.readdirSync(userDir).filter((f) => f.endsWith('.json'))) {
        assert.ok(!fs.readFileSync(path.join(userDir, file), 'utf8').includes(SIM_KEYS.full), `${file} holds no key`);
      }
    } finally {
      const exited = new Promise((resolve) => cli.once('exit', resolve));
      cli.kill('SIGTERM');
      await exited;
      await service.close();
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('a second start keeps the flows a user changed', async function () {
    this.timeout(120000); // two starts, each given 30 s to come up, and two stops
    const run = await startCli('SIGTERM');
    const url = `http://127.0.0.1:${run.port}/`;
    const headers = { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' };
    try {
      const current = await (await fetch(`${url}flows`, { headers })).json();
      const mine = current.flows.filter((n) => n.type !== 'tab' || n.label === 'Energy dashboard').filter((n) => !n.z || current.flows.find((t) => t.id === n.z && t.label === 'Energy dashboard'));
      const res = await fetch(`${url}flows`, { method: 'POST', headers, body: JSON.stringify({ rev: current.rev, flows: mine }) });
      assert.strictEqual(res.status, 200);
      const exited = new Promise((resolve) => run.cli.once('exit', resolve));
      run.cli.kill('SIGTERM');
      await exited;

      const again = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
        env: { ...process.env, PORT: String(run.port), SIM_PORT: String(run.simPort), NODE_RED_USER_DIR: run.userDir, ENERGY_API_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      again.stdout.on('data', (d) => { out += d; });
      again.stderr.on('data', (d) => { out += d; });
      const deadline = Date.now() + 30000;
      while (!out.includes('Ctrl-C stops everything')) {
        if (Date.now() > deadline) throw new Error(out);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(out, /your flows kept/);
      const tabs = (await (await fetch(`${url}flows`, { headers })).json()).flows.filter((n) => n.type === 'tab');
      assert.deepStrictEqual(tabs.map((t) => t.label), ['Energy dashboard']);
      const done = new Promise((resolve) => again.once('exit', (code, signal) => resolve({ code, signal })));
      again.kill('SIGTERM');
      // Once, at load 8-10, it ended by a signal instead of exiting 0: its output says what it was doing.
      const ended = await done;
      assert.deepStrictEqual(ended, { code: 0, signal: null }, `ended ${JSON.stringify(ended)}; its output:\n${out.slice(-3000)}`);
    } finally {
      if (run.cli.exitCode === null) run.cli.kill('SIGKILL');
      fs.rmSync(run.userDir, { recursive: true, force: true });
    }
  });
});
