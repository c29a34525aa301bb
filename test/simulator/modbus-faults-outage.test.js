'use strict';
const assert = require('node:assert/strict');
const { start, T0, SIM_DEVICES } = require('./helpers');

const utc = (...a) => Date.UTC(...a) / 1000;
const MB = SIM_DEVICES.modbus6MOne;
const M = SIM_DEVICES.meter3M;

describe('simulator: modbus', function () {
  let t;
  before(async () => { t = await start({ now: utc(2026, 5, 10) }); });
  after(() => t.sim.close());

  it('switches from PMC-220 to PMC-340B at the meter change, with counters consistent with energy', async () => {
    const change = utc(2026, 5, 1);
    const r = await t.get(`/modbus/${MB}?fromTs=${change - 900}&toTs=${change + 900}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.map((e) => e.model), ['PMC-220', 'PMC-220', 'PMC-220', 'PMC-340B', 'PMC-340B', 'PMC-340B']);
    assert.deepEqual(Object.keys(r.body[0]), ['_I', '_V', '_PF', 'kVAh', 'kWh_Exp', 'kWh_Imp', 'kWh_Net', 'kWh_Tot', 'kvarh_Exp', 'kvarh_Imp', 'kvarh_Net', 'kvarh_Tot', 'model', 'timestamp']);
    assert.ok('_Uan' in r.body[3] && 'kvarh_Q4' in r.body[3] && !('duration' in r.body[3]));
    // The meter on the board counts the Grid channel: its import over an hour matches long energy (0.01 kWh units).
    const from = utc(2026, 4, 20, 6);
    const a = (await t.get(`/modbus/${MB}?fromTs=${from}&toTs=${from + 1}`)).body[0];
    const b = (await t.get(`/modbus/${MB}?fromTs=${from + 3600}&toTs=${from + 3601}`)).body[0];
    // The hour 06:00-07:00 is the 5-minute records stamped 06:05 to 07:00 (an hour entry would be 05:55-06:55).
    const records = (await t.get(`/long-energy/${MB}?fromTs=${from + 300}&toTs=${from + 3900}`)).body;
    assert.equal(records.length, 12);
    const imported = records.reduce((a, e) => a + e.eRealPositive[0], 0) / 36000;
    assert.ok(imported > 0);
    assert.ok(Math.abs(b.kWh_Imp - a.kWh_Imp - imported) <= 1, `${b.kWh_Imp - a.kWh_Imp} vs ${imported}`);
  });

  it('422 with the spaced code for non-modbus devices; span and empty periods', async () => {
    const r = await t.get(`/modbus/${M}`);
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'UNPROCESSABLE ENTITY');
    assert.equal(r.body.message, `Modbus query unsupported for device id ${M}`);
    assert.equal((await t.get(`/modbus/${MB}?fromTs=${utc(2026, 0, 1)}&toTs=${utc(2026, 0, 8) + 1}`)).status, 422);
    assert.deepEqual((await t.get(`/modbus/${MB}?fromTs=${utc(2023, 0, 1)}&toTs=${utc(2023, 0, 2)}`)).body, []);
    const latest = await t.get(`/modbus/${MB}/latest?fields[energy]=timestamp`);
    assert.deepEqual(latest.body, { timestamp: utc(2026, 5, 10) });
  });
});

describe('simulator: faults and outages', function () {
  it('fault injection is deterministic for a seed and never changes state', async () => {
    const t = await start();
    const run = async () => {
      t.sim.control.setFaults({ errorRate: 0.3, resetRate: 0.2, malformedRate: 0.2, seed: 42 });
      const outcomes = [];
      for (let i = 0; i < 30; i++) {
        try {
          const r = await t.patch(`/devices/${M}`, { label: `try ${i}` });
          outcomes.push(r.body === undefined ? 'malformed' : r.status);
        } catch {
          outcomes.push('reset');
        }
      }
      return outcomes;
    };
    const first = await run();
    const second = await run();
    assert.deepEqual(first, second);
    for (const kind of ['reset', 'malformed', 200]) assert.ok(first.includes(kind), kind);
    assert.ok(first.some((o) => o === 500 || o === 502 || o === 503));
    const lastApplied = first.lastIndexOf(200);
    t.sim.control.setFaults({ errorRate: 0, resetRate: 0, malformedRate: 0 });
    assert.equal((await t.get(`/devices/${M}`)).body.label, `try ${lastApplied}`, 'faulted PATCHes were not applied');
    await t.sim.close();
  });

  it('storm429 gives bare 429s that do not count against the limits', async () => {
    const t = await start({ tps: 2 });
    await fetch(`${t.sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ storm429: 3 }) });
    for (let i = 0; i < 3; i++) {
      const r = await t.get('/devices');
      assert.equal(r.status, 429);
      assert.equal(r.text, '');
      assert.equal(r.headers.get('x-ratelimit-limit'), null);
      assert.equal(r.headers.get('retry-after'), null);
    }
    assert.equal((await t.get('/devices')).status, 200);
    await t.sim.close();
  });

  it('latencyMs delays responses', async () => {
    const t = await start({ latencyMs: 150 });
    const began = Date.now();
    await t.get('/devices');
    assert.ok(Date.now() - began >= 140);
    await t.sim.close();
  });

  it('an outage hides data after its start until it ends, then everything is back-filled', async () => {
    const t = await start();
    const from = T0 - 600;
    t.sim.control.setOutage(M, { from, to: T0 + 600 });
    const during = (await t.get(`/short-energy/${M}?fromTs=${T0 - 1200}&toTs=${T0 + 1}`)).body;
    assert.equal(during[during.length - 1].timestamp, from);
    assert.equal((await t.get(`/devices/${M}`)).body.comms.lastHeardAt, from);
    assert.equal((await t.get(`/long-energy/${M}/latest`)).body.timestamp, Math.floor(from / 300) * 300, 'the last whole 5-minute record');
    await t.patch(`/devices/${SIM_DEVICES.switch6M3SW}`, {}); // unrelated devices unaffected
    const sw = SIM_DEVICES.switch6M3SW;
    await fetch(`${t.sim.url}/__sim/outage`, { method: 'POST', body: JSON.stringify({ deviceId: sw, from: T0, to: T0 + 300 }) });
    await t.patch(`/devices/${sw}`, { switches: [{ id: `${sw}_S3`, state: 'closed' }] });
    t.sim.control.setClock({ advance: 120 });
    assert.deepEqual((await t.get(`/devices/${sw}`)).body.switches[2].pending, { state: 'closed' }, 'offline devices pick up nothing');
    t.sim.control.setClock({ advance: 600 });
    const after = (await t.get(`/short-energy/${M}?fromTs=${T0 - 1200}&toTs=${T0 + 1}`)).body;
    // Back-filled: the same entries as a simulator that had no outage (the few lost on the way, as UDP loses them, included).
    const control = await start({ now: T0 + 720 });
    const expected = (await control.get(`/short-energy/${M}?fromTs=${T0 - 1200}&toTs=${T0 + 1}`)).body;
    await control.sim.close();
    assert.ok(expected.length >= 36, `most of the 41 slots arrive (${expected.length})`);
    assert.deepEqual(after.map((e) => e.timestamp), expected.map((e) => e.timestamp));
    assert.equal(after[after.length - 1].timestamp, T0);
    assert.equal((await t.get(`/devices/${sw}`)).body.switches[2].state, 'closed');
    await t.sim.close();
  });
});
