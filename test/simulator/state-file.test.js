'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { start, SIM_KEYS, SIM_DEVICES } = require('./helpers');

const SW = SIM_DEVICES.switch6M3SW;
const START = Date.UTC(2026, 0, 13, 21, 30) / 1000;
const HOUR = 3600;

describe('simulator: state file', function () {
  this.timeout(60000);
  let dir;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-state-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('PATCHed values, switch states and the switch history survive a restart; without the file the fleet starts fresh', async () => {
    const stateFile = path.join(dir, 'nested', 'state.json');
    const first = await start({ now: START, stateFile });
    await first.patch(`/devices/${SW}`, {
      label: 'My home',
      channels: [{ id: `${SW}_C6`, label: 'Everything else', categoryId: 11 }],
      switches: [{ id: `${SW}_S2`, state: 'closed', label: 'Pool' }],
      phases: { count: 1 },
    });
    first.sim.control.setClock({ advance: 60 });
    first.sim.control.setClock({ advance: HOUR });
    const energy = (await first.get(`/long-energy/${SW}?fromTs=${START}&toTs=${START + HOUR}`)).body;
    assert.ok(energy.slice(1).every((e) => e.eReal[3] > 0), 'the pool pump runs after the pickup');
    const device = (await first.get(`/devices/${SW}`)).body;
    await first.sim.close();
    assert.ok(!fs.readFileSync(stateFile, 'utf8').includes(SIM_KEYS.full), 'no key in the state file');

    const second = await start({ now: START + HOUR, stateFile });
    try {
      const again = (await second.get(`/devices/${SW}`)).body;
      assert.equal(again.label, 'My home');
      assert.deepEqual(again.switches[1], device.switches[1]);
      assert.equal(again.switches[1].state, 'closed');
      assert.deepEqual(again.channels[5], device.channels[5]);
      assert.deepEqual(again.phases, device.phases);
      assert.deepEqual((await second.get(`/long-energy/${SW}?fromTs=${START}&toTs=${START + HOUR}`)).body, energy, 'the same history gives the same energy');
    } finally {
      await second.sim.close();
    }

    const fresh = await start({ now: START + HOUR });
    try {
      const d = (await fresh.get(`/devices/${SW}`)).body;
      assert.equal(d.label, 'Solar home');
      assert.equal(d.switches[1].state, 'open');
    } finally {
      await fresh.sim.close();
    }
  });

  it('refuses a file that is not a state file, naming it', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"hello":1}');
    await assert.rejects(start({ stateFile: bad }), /bad\.json is not a simulator state file/);
  });
});

describe('simulator: request log', function () {
  it('records the sim-clock time and the PATCH body of each request', async () => {
    const t = await start({ now: START });
    try {
      t.sim.control.setClock({ advance: 12.5 });
      await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S1`, state: 'closed' }] });
      const entry = t.sim.control.log().find((r) => r.method === 'PATCH');
      assert.equal(entry.simNow, START + 12.5);
      assert.deepEqual(entry.body, { switches: [{ id: `${SW}_S1`, state: 'closed' }] });
      assert.equal(entry.status, 202);
    } finally {
      await t.sim.close();
    }
  });
});

describe('simulator: command line', function () {
  it('--help names the options and the demo key', () => {
    const cli = path.resolve(__dirname, '../../dist/simulator/cli.js');
    const out = execFileSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
    for (const option of ['--port', '--state-file', '--header-style', '--long-window', '--seed', '--tps', '--tpd']) assert.ok(out.includes(option), option);
    assert.ok(out.includes(SIM_KEYS.full));
  });
});
