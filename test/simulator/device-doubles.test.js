'use strict';
// The simulator's device doubles over HTTP: a go-eCharger (API v2) and a Shelly Gen2 relay, each wired to a channel of
// the solar home, so what they draw shows in that channel's and the grid's short energy after the device's delay; the
// car's seeded timetable; what the docs say each request answers.
const assert = require('node:assert/strict');
const { startSimulator, startGoeCharger, startOpenEvse, startShellyRelay, visitOf, visitAt, SIM_DEVICES } = require('../../dist/simulator');

const DEV = SIM_DEVICES.switch6M3SW;
const ZONE = 'Australia/Sydney';
const EVENING = Date.UTC(2026, 1, 9, 8, 0, 0) / 1000; // 19:00 in Sydney: the car is home

describe('device doubles (simulator)', function () {
  this.timeout(20000);
  let sim;
  const doubles = [];
  beforeEach(async function () { sim = await startSimulator({ port: 0, now: EVENING }); });
  afterEach(async function () {
    for (const d of doubles.splice(0)) await d.close();
    await sim.close();
  });
  const get = async (url) => { const res = await fetch(url); return { status: res.status, body: await res.json() }; };
  /** Average W of channel (0-based) over the short entries in (from, to]. */
  async function watts(channel, from, to) {
    const res = await fetch(`${sim.baseUrl}/short-energy/${DEV}?fromTs=${from}&toTs=${to + 1}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    const body = await res.json();
    const entries = (Array.isArray(body) ? body : body.data).filter((e) => e.timestamp > from && e.timestamp <= to);
    const j = entries.reduce((s, e) => s + e.eReal[channel], 0);
    return j / entries.reduce((s, e) => s + e.duration, 0);
  }

  it('the car\'s timetable is seeded: about 18:00 to about 07:30, 15–40 kWh, the same for a seed', function () {
    const opts = { seed: 7, zone: ZONE };
    for (let day = 20500; day < 20530; day += 1) {
      const v = visitOf(opts, day);
      const local = (t) => ((t + 11 * 3600) % 86400) / 3600;
      assert.ok(local(v.arrive) >= 17.2 && local(v.arrive) <= 18.8, `arrives ${local(v.arrive)}`);
      assert.ok(local(v.leave) >= 6.9 && local(v.leave) <= 8.1, `leaves ${local(v.leave)}`);
      assert.ok(v.needWh >= 15000 && v.needWh <= 40000);
      assert.deepEqual(visitOf(opts, day), v);
    }
    assert.notDeepEqual(visitOf({ seed: 8, zone: ZONE }, 20500), visitOf(opts, 20500), 'another seed, another timetable');
    // Across Sydney's DST start (2026-10-04, 02:00 → 03:00): the evening before still comes home at about 18:00 local.
    const { DateTime } = require('luxon');
    for (const date of ['2026-10-03', '2026-10-04']) {
      const day = Math.floor(DateTime.fromISO(date, { zone: 'UTC' }).toSeconds() / 86400);
      const hour = DateTime.fromSeconds(visitOf(opts, day).arrive, { zone: ZONE }).hour;
      assert.ok(hour === 17 || hour === 18, `${date}: arrives at ${hour}h local`);
    }
  });

  it('with homeDays the car stays home all weekend and on a seeded share of weekdays; the other days keep the weekday timetable', function () {
    const { DateTime } = require('luxon');
    const plain = { seed: 7, zone: ZONE };
    const opts = { ...plain, homeDays: { weekends: true, workFromHome: 0.2 } };
    const hour = (t) => { const d = DateTime.fromSeconds(t, { zone: ZONE }); return d.hour + d.minute / 60; };
    let workFromHome = 0;
    for (let day = 20500; day < 20560; day += 1) {
      const noon = DateTime.fromSeconds(day * 86400, { zone: 'UTC' }).setZone(ZONE, { keepLocalTime: true }).set({ hour: 12 });
      const weekend = noon.weekday >= 6;
      const v = visitOf(opts, day);
      assert.deepEqual(visitOf(opts, day), v, 'the same for a seed');
      assert.ok(hour(v.arrive) >= 17.2 && hour(v.arrive) <= 18.8 && hour(v.leave) >= 6.9 && hour(v.leave) <= 8.1, `${noon.toISODate()}: about 18:00 to about 07:30`);
      assert.ok(DateTime.fromSeconds(v.arrive, { zone: ZONE }).weekday <= 5, 'it comes home on a day it left: a weekday');
      const home = visitAt(opts, noon.toSeconds()) !== undefined;
      if (weekend) assert.ok(home, `${noon.toISODate()}: home on a ${noon.weekdayLong}`);
      else if (home) workFromHome += 1;
      else {
        assert.equal(visitAt(plain, noon.toSeconds()), undefined);
        // A weekday it leaves after a weekday night: the night as without home days.
        if (DateTime.fromSeconds(v.leave, { zone: ZONE }).toISODate() === noon.plus({ days: 1 }).toISODate()) assert.deepEqual(v, visitOf(plain, day));
      }
    }
    assert.ok(workFromHome >= 3 && workFromHome <= 16, `a share of the weekdays at home: ${workFromHome} of about 43`);
  });

  it('go-e: /api/set amp and frc take effect after the device delay; the draw shows on its channel and the grid', async function () {
    const goe = await startGoeCharger(sim.control, { deviceId: DEV, channel: 4, seed: 3, zone: ZONE, phases: 1 });
    doubles.push(goe);
    let st = await get(`${goe.url}/api/status?filter=car,amp,frc,psm`);
    assert.deepEqual(Object.keys(st.body).sort(), ['amp', 'car', 'frc', 'psm']);
    assert.equal(st.body.frc, 0);
    assert.equal((await get(`${goe.url}/api/set?frc=1`)).status, 200);
    sim.control.setClock({ advance: 300 });
    const before = await watts(4, EVENING + 60, EVENING + 300);
    const gridBefore = await watts(0, EVENING + 60, EVENING + 300);
    assert.ok(before < 1, `frc Off: no draw (${before} W)`);
    assert.deepEqual((await get(`${goe.url}/api/set?amp=10&frc=2`)).body, { amp: true, frc: true });
    st = await get(`${goe.url}/api/status`);
    assert.equal(st.body.car, 3, 'the car waits: the new current comes after the delay');
    sim.control.setClock({ advance: 300 });
    st = await get(`${goe.url}/api/status`);
    assert.equal(st.body.car, 2);
    assert.equal(st.body.nrg[11], 2300, 'P total: 10 A on one phase at 230 V');
    const after = await watts(4, EVENING + 330, EVENING + 600);
    assert.ok(Math.abs(after - 2300) < 1, `its channel shows 2300 W (${after})`);
    const grid = await watts(0, EVENING + 330, EVENING + 600);
    assert.ok(grid - gridBefore > 1500, `the grid imports it too (${gridBefore} → ${grid} W)`);
    assert.equal((await get(`${goe.url}/api/set?amp=3`)).status, 400, 'below 6 A');
    assert.equal((await get(`${goe.url}/api/set?car=1`)).status, 400, 'read-only');
    goe.device.refuseWith = 503;
    assert.equal((await get(`${goe.url}/api/set?amp=8`)).status, 503);
  });

  it('OpenEVSE: POST /override sets the current or sleeps the charger after the device delay; GET /status as documented; the draw shows on its channel', async function () {
    const evse = await startOpenEvse(sim.control, { deviceId: DEV, channel: 4, seed: 3, zone: ZONE });
    doubles.push(evse);
    const send = async (method, body) => {
      const res = await fetch(`${evse.url}/override`, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    assert.deepEqual(await send('GET'), { status: 404, body: { msg: 'Not found' } }, 'no override yet');
    assert.equal((await send('POST', { state: 'disabled' })).status, 200);
    sim.control.setClock({ advance: 300 });
    let st = await get(`${evse.url}/status`);
    assert.deepEqual([st.body.state, st.body.status, st.body.vehicle, st.body.amp, st.body.manual_override], [254, 'disabled', 1, 0, 1], 'sleeping, the car connected');
    assert.ok((await watts(4, EVENING + 60, EVENING + 300)) < 1, 'sleeping: no draw');
    assert.equal((await send('POST', { state: 'active', charge_current: 10 })).status, 200);
    st = await get(`${evse.url}/status`);
    assert.equal(st.body.state, 254, 'the new override comes after the delay');
    sim.control.setClock({ advance: 300 });
    st = await get(`${evse.url}/status`);
    assert.deepEqual([st.body.state, st.body.status, st.body.pilot, st.body.amp, st.body.power], [3, 'active', 10, 10000, 2300], 'charging at 10 A: amp in mA, power in W');
    const drawn = await watts(4, EVENING + 330, EVENING + 600);
    assert.ok(Math.abs(drawn - 2300) < 1, `its channel shows 2300 W (${drawn})`);
    assert.deepEqual((await send('GET')).body, { state: 'active', charge_current: 10 });
    assert.equal((await send('POST', { state: 'active', charge_current: 3 })).status, 200);
    sim.control.setClock({ advance: 60 });
    assert.equal((await get(`${evse.url}/status`)).body.pilot, 6, 'no pilot below 6 A');
    assert.deepEqual(await send('POST', '{"state": "on"'), { status: 400, body: { msg: 'Could not parse JSON' } });
    assert.equal((await send('POST', { state: 'paused' })).status, 400, 'state is active or disabled');
    assert.equal((await send('DELETE')).status, 200);
    sim.control.setClock({ advance: 60 });
    st = await get(`${evse.url}/status`);
    assert.deepEqual([st.body.manual_override, st.body.pilot], [0, 32], 'no override: the charger\'s maximum');
    evse.device.refuseWith = 503;
    assert.equal((await send('POST', { state: 'disabled' })).status, 503);
    evse.device.refuseWith = undefined;
    evse.device.unplugged = true;
    st = await get(`${evse.url}/status`);
    assert.deepEqual([st.body.state, st.body.vehicle], [1, 0], 'no car: not connected');
  });

  it('what a double draws is in the 5-minute long energy too, equal to its short energy, on its channel and the grid', async function () {
    const goe = await startGoeCharger(sim.control, { deviceId: DEV, channel: 4, seed: 3, zone: ZONE, phases: 1 });
    doubles.push(goe);
    const auth = { headers: { Authorization: `Bearer ${sim.keys.full}` } };
    const read = async (kind, from, to) => {
      const body = await (await fetch(`${sim.baseUrl}/${kind}-energy/${DEV}?fromTs=${from}&toTs=${to}`, auth)).json();
      return Array.isArray(body) ? body : body.data;
    };
    assert.equal((await get(`${goe.url}/api/set?amp=10&frc=2`)).status, 200);
    sim.control.setClock({ advance: 1200 });
    // Two whole records once the car draws: (EVENING + 600, EVENING + 1200].
    const from = EVENING + 600;
    const to = EVENING + 1200;
    const long = (await read('long', from, to + 1)).filter((e) => e.timestamp > from && e.timestamp <= to);
    const short = (await read('short', from, to + 1)).filter((e) => e.timestamp > from && e.timestamp <= to);
    assert.equal(long.length, 2);
    assert.equal(short.length, 20);
    for (const channel of [4, 0]) {
      const longJ = long.reduce((sum, e) => sum + e.eReal[channel], 0);
      const shortJ = short.reduce((sum, e) => sum + e.eReal[channel], 0);
      assert.equal(longJ, shortJ, `channel ${channel + 1}: long ${longJ} J, short ${shortJ} J`);
    }
    const carJ = long.reduce((sum, e) => sum + e.eReal[4], 0);
    assert.ok(Math.abs(carJ / 600 - 2300) < 50, `the car's channel shows about 2300 W in long energy (${carJ / 600} W)`);
  });

  it('go-e: the car leaves in the morning (car 1, no draw), and tapers as it fills', async function () {
    const goe = await startGoeCharger(sim.control, { deviceId: DEV, channel: 4, seed: 3, zone: ZONE, phases: 3, maxW3: 11000 });
    doubles.push(goe);
    await get(`${goe.url}/api/set?amp=16&frc=2`);
    const drawn = [];
    for (let h = 0; h < 14; h += 1) {
      sim.control.setClock({ advance: 3600 });
      drawn.push((await get(`${goe.url}/api/status`)).body);
    }
    const charging = drawn.filter((s) => s.car === 2).map((s) => s.nrg[11]);
    assert.ok(charging[0] >= 11000 - 1, `full power first (${charging[0]} W)`);
    assert.ok(drawn.some((s) => s.car === 4 || (s.car === 2 && s.nrg[11] < 11000)), 'tapers or completes');
    assert.equal(drawn.at(-1).car, 1, 'gone by 09:00');
    assert.equal(drawn.at(-1).nrg[11], 0);
  });

  it('Shelly: Switch.Set and Switch.GetStatus over GET and JSON-RPC; the heater draws on its channel while on and the tank takes heat', async function () {
    const shelly = await startShellyRelay(sim.control, { deviceId: DEV, channel: 2, seed: 3, watts: 3000 });
    doubles.push(shelly);
    sim.control.setClock({ advance: 3 * 3600 }); // hot water drawn meanwhile
    assert.deepEqual((await get(`${shelly.url}/rpc/Switch.Set?id=0&on=true`)).body, { was_on: false });
    let status = (await get(`${shelly.url}/rpc/Switch.GetStatus?id=0`)).body;
    assert.equal(status.output, false, 'the relay switches after its delay');
    sim.control.setClock({ advance: 120 });
    status = (await get(`${shelly.url}/rpc/Switch.GetStatus?id=0`)).body;
    assert.equal(status.output, true);
    assert.equal(status.apower, 3000);
    const now = Math.floor(sim.control.now());
    const w = await watts(2, now - 90, now);
    assert.ok(Math.abs(w - 3000) < 1, `the hot-water channel shows it (${w} W)`);
    const res = await fetch(`${shelly.url}/rpc`, { method: 'POST', body: JSON.stringify({ id: 7, method: 'Switch.Set', params: { id: 0, on: false } }) });
    assert.deepEqual(await res.json(), { id: 7, src: 'shellyplus1pm-double', result: { was_on: true } });
    assert.equal((await get(`${shelly.url}/rpc/Switch.GetStatus?id=1`)).status, 500, 'no switch 1');
  });
});

describe('device doubles from the command line (--doubles)', function () {
  this.timeout(20000);
  it('starts the go-e, OpenEVSE and Shelly doubles beside the simulator and prints their addresses; SIGTERM stops all', async function () {
    const { spawn } = require('node:child_process');
    const path = require('node:path');
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../dist/simulator/cli.js'), '--port', '0', '--doubles'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    try {
      const addressOf = (name) => out.split('\n').find((l) => l.trim().startsWith(name))?.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
      const deadline = Date.now() + 15000;
      while (!addressOf('Shelly')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no doubles printed:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const get = async (url) => (await fetch(url)).json();
      assert.ok([1, 2, 3, 4].includes((await get(`${addressOf('go-eCharger')}/api/status?filter=car`)).car), 'the go-e answers its status');
      assert.ok('state' in (await get(`${addressOf('OpenEVSE')}/status`)), 'the OpenEVSE answers its status');
      assert.deepEqual(await get(`${addressOf('Shelly')}/rpc/Switch.Set?id=0&on=true`), { was_on: false }, 'the Shelly switches');
      assert.match(out, new RegExp(`go-eCharger.*${SIM_DEVICES.switch6M3SW} channel 5`));
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      assert.equal(await exited, 0, 'stops cleanly');
    }
  });
});
