'use strict';
const assert = require('node:assert/strict');
const { start, T0, SIM_KEYS, SIM_DEVICES } = require('./helpers');

const SW = SIM_DEVICES.switch6M3SW;

describe('simulator: PATCH /devices/{id}', function () {
  let t;
  beforeEach(async () => { t = await start(); });
  afterEach(() => t.sim.close());

  it('updates metadata with 200 and returns the device as GET does', async () => {
    const r = await t.patch(`/devices/${SW}`, { id: SW, label: 'New label', channels: [{ id: `${SW}_C2`, categoryId: 7, label: 'EV' }] });
    assert.equal(r.status, 200);
    assert.equal(r.body.label, 'New label');
    assert.equal(r.body.channels[1].categoryLabel, 'Electric vehicle');
    const got = await t.get(`/devices/${SW}`);
    assert.deepEqual(got.body, r.body);
    const cleared = await t.patch(`/devices/${SW}`, { label: null });
    assert.equal(cleared.body.label, '');
  });

  it('answers as the live service (a bare device, no uninitialised: false) and as the spec ({status, result}) on headerStyle spec', async () => {
    const live = await t.patch(`/devices/${SW}`, { label: 'Live form' });
    assert.equal(live.body.id, SW);
    assert.ok(!('result' in live.body) && !('uninitialised' in live.body));
    assert.equal((await t.get(`/devices/${SIM_DEVICES.uninitialised}`)).body.uninitialised, true, 'shown where it is true');
    t.sim.control.setLimits({ headerStyle: 'spec' });
    const spec = await t.patch(`/devices/${SW}`, { label: 'Spec form' });
    assert.equal(spec.status, 200);
    assert.deepEqual(Object.keys(spec.body).sort(), ['result', 'status']);
    assert.equal(spec.body.status, 200);
    assert.equal(spec.body.result.label, 'Spec form');
    assert.equal(spec.body.result.uninitialised, false);
    assert.deepEqual((await t.get(`/devices/${SW}`)).body, spec.body.result);
  });

  it('refuses writes without permission, without switching permission and with the wrong Content-Type', async () => {
    const ro = await t.patch(`/devices/${SW}`, { label: 'x' }, { key: SIM_KEYS.readOnly });
    assert.equal(ro.status, 403);
    assert.equal(ro.body.code, 'FORBIDDEN');
    const noSwitch = await t.patch(`/devices/${SW}`, { label: 'y', switches: [{ id: `${SW}_S1`, state: 'open' }] }, { key: SIM_KEYS.writeNoSwitch });
    assert.equal(noSwitch.status, 403);
    assert.equal((await t.get(`/devices/${SW}`)).body.label, 'Solar home', 'nothing applied');
    const text = await t.patch(`/devices/${SW}`, '{"label":"z"}', { headers: { 'Content-Type': 'text/plain' } });
    assert.equal(text.status, 400);
    assert.match(text.body.message, /Content-Type must be application\/json/);
    const interval = await t.patch(`/devices/${SW}`, { shortEnergyReportingInterval: 60 });
    assert.equal(interval.status, 403);
    assert.equal(interval.body.errors[0].code, 'FORBIDDEN');
  });

  it('reports every validation failure in the multi-error format with the lowest status', async () => {
    const r = await t.patch(`/devices/${SW}`, {
      id: 'D630000000099',
      label: 'x'.repeat(65),
      channels: [{ id: `${SW}_C7`, ctRating: 100 }, { id: `${SW}_C1`, ctRating: 123 }, { id: `${SW}_C2`, categoryId: 99 }],
      switches: [{ id: `${SW}_S4` }, { id: `${SW}_S1`, state: 'on', closedStateLabel: 'x'.repeat(17) }],
    });
    assert.equal(r.status, 422);
    assert.ok(Array.isArray(r.body.errors));
    assert.equal(r.body.errors.length, 8);
    assert.ok(r.body.errors.every((e) => e.code === 'UNPROCESSABLE_ENTITY' && e.httpCode === 422));
    const mixed = await t.patch(`/devices/${SW}`, { label: 5, channels: [{ id: `${SW}_C9` }] });
    assert.equal(mixed.status, 400, 'lowest of 400 and 422');
    assert.equal(mixed.body.errors.length, 2);
  });

  it('validates Rogowski, WiFi and uninitialised rules', async () => {
    const R = SIM_DEVICES.rogowski3RM;
    assert.equal((await t.patch(`/devices/${R}`, { channels: [{ id: `${R}_C1`, ctRating: 600 }] })).status, 422);
    const same = await t.patch(`/devices/${R}`, { channels: [{ id: `${R}_C1`, ctRating: 3000 }] });
    assert.equal(same.status, 200);
    assert.ok(!('pending' in same.body.channels[0]));
    assert.equal((await t.patch(`/devices/${SW}`, { comms: { wifi: { ssid: 'x', psk: '12345678' } } })).status, 422);
    assert.equal((await t.patch(`/devices/${SIM_DEVICES.cer6MWCER}`, { comms: { wifi: { ssid: 'x', psk: '12345678' } } })).status, 422, 'firmware 0.12.1');
    const U = SIM_DEVICES.uninitialised;
    assert.equal((await t.patch(`/devices/${U}`, { switches: [{ id: `${U}_S1`, state: 'closed' }] })).status, 422);
    const un = await t.patch(`/devices/${U}`, { label: 'Spare', channels: [{ id: `${U}_C1`, ctRating: 200 }] });
    assert.equal(un.status, 202);
    assert.equal(un.body.label, 'Spare');
    assert.deepEqual(un.body.channels[0].pending, { ctRating: 200 }, 'non-default ctRating on an uninitialised device is pending');
    t.sim.control.setClock({ advance: 3600 });
    assert.equal((await t.get(`/devices/${U}`)).body.channels[0].ctRating, 60, 'never applied');
  });

  it('validates and defaults phases', async () => {
    const M = SIM_DEVICES.meter3M;
    const two = await t.patch(`/devices/${M}`, { phases: { count: 2 } });
    assert.deepEqual(two.body.phases, { count: 2, grouping: [{ included: [`${M}_C1`, `${M}_C2`] }, { included: [`${M}_C3`] }] });
    const custom = await t.patch(`/devices/${M}`, { phases: { count: 2, grouping: [{ included: [`${M}_C1`] }, { included: [`${M}_C3`, `${M}_C2`] }] } });
    assert.equal(custom.status, 200);
    assert.equal((await t.patch(`/devices/${M}`, { phases: { count: 0 } })).status, 422);
    assert.equal((await t.patch(`/devices/${M}`, { phases: { count: 4 } })).status, 422);
    assert.equal((await t.patch(`/devices/${M}`, { phases: { count: 3, grouping: [{ included: [`${M}_C1`, `${M}_C1`, `${M}_C2`] }] } })).status, 422);
    assert.equal((await t.patch(`/devices/${M}`, { phases: { count: 3, grouping: [{ included: [`${M}_C1`, `${M}_C4`] }] } })).status, 422);
    assert.equal((await t.patch(`/devices/${M}`, { phases: { count: 1, grouping: [{ included: [`${M}_C1`, `${M}_C2`] }, { included: [`${M}_C3`] }] } })).status, 422);
  });

  it('switch state: pending until the device reports (reportNow)', async () => {
    const equal = await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S1`, state: 'open' }] });
    assert.equal(equal.status, 200);
    assert.ok(!('pending' in equal.body.switches[0]), 'same as current: no pending');
    const r = await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S1`, state: 'closed' }] });
    assert.equal(r.status, 202);
    assert.equal(r.body.switches[0].state, 'open');
    assert.deepEqual(r.body.switches[0].pending, { state: 'closed' });
    t.sim.control.reportNow(SW);
    const after = (await t.get(`/devices/${SW}`)).body.switches[0];
    assert.equal(after.state, 'closed');
    assert.ok(!('pending' in after));
  });

  it('pending values are applied at the device reports as the clock advances, one queued change per report', async () => {
    // T0 is 10:07:00, a report time; the first report at least 1 s later is 10:07:30.
    await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S2`, state: 'closed' }], channels: [{ id: `${SW}_C1`, ctRating: 400 }] });
    await t.patch(`/devices/${SW}`, { switches: [{ id: `${SW}_S2`, state: 'open' }] });
    let d = (await t.get(`/devices/${SW}`)).body;
    assert.deepEqual(d.switches[1].pending, { state: 'open' });
    assert.deepEqual(d.channels[0].pending, { ctRating: 400 });
    t.sim.control.setClock({ advance: 29 });
    d = (await t.get(`/devices/${SW}`)).body;
    assert.equal(d.channels[0].ctRating, 60);
    t.sim.control.setClock({ advance: 1 });
    d = (await t.get(`/devices/${SW}`)).body;
    assert.equal(d.channels[0].ctRating, 400);
    assert.ok(!('pending' in d.channels[0]));
    assert.equal(d.switches[1].state, 'closed', 'first queued change applied');
    assert.deepEqual(d.switches[1].pending, { state: 'open' });
    await fetch(`${t.sim.url}/__sim/clock`, { method: 'POST', body: JSON.stringify({ advance: 30 }) });
    d = (await t.get(`/devices/${SW}`)).body;
    assert.equal(d.switches[1].state, 'open');
    assert.ok(!('pending' in d.switches[1]));
    assert.equal(d.latestStatus, T0 + 60);
  });

  it('WiFi credentials: pending ssid and pskUpdatedAt, PSK never returned, empty+empty turns WiFi off', async () => {
    const W = SIM_DEVICES.wifi6MW;
    const r = await t.patch(`/devices/${W}`, { comms: { wifi: { ssid: 'Lab', psk: 'secret-pass' } } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.comms.wifi.pending, { ssid: 'Lab', pskUpdatedAt: T0 });
    assert.ok(!r.text.includes('secret-pass'));
    await fetch(`${t.sim.url}/__sim/report/${W}`, { method: 'POST' });
    let d = (await t.get(`/devices/${W}`)).body;
    assert.equal(d.comms.wifi.ssid, 'Lab');
    assert.equal(d.comms.networkId, 'Lab');
    assert.equal(d.comms.wifi.pskUpdatedAt, T0);
    assert.ok(!('pending' in d.comms.wifi));
    assert.equal((await t.patch(`/devices/${W}`, { comms: { wifi: { ssid: '' } } })).status, 422);
    // WPA2: 8 to 63 printable ASCII characters, or 64 hexadecimal digits.
    const psk = async (value) => (await t.patch(`/devices/${W}`, { comms: { wifi: { ssid: 'Lab', psk: value } } })).status;
    assert.equal(await psk('a'.repeat(63)), 200);
    assert.equal(await psk('0123456789abcdef'.repeat(4)), 200, 'a 64-digit hex key');
    assert.equal(await psk('Grüße-äöüß-Netz'), 422, 'letters outside ASCII');
    assert.equal(await psk('g'.repeat(64)), 422, '64 characters that are not hex digits');
    assert.equal(await psk('1234567'), 422);
    await t.patch(`/devices/${W}`, { comms: { wifi: { ssid: '', psk: '' } } });
    t.sim.control.reportNow(W);
    d = (await t.get(`/devices/${W}`)).body;
    assert.equal(d.comms.mode, '4G');
    assert.equal(d.comms.lastHeardVia, 'cellular');
    assert.equal(d.comms.wifi.pskUpdatedAt, T0);
    assert.ok(!('macAddress' in d.comms));
  });

  it('refuses an SSID over 32 bytes in UTF-8 (802.11 counts octets, not characters)', async () => {
    const W = SIM_DEVICES.wifi6MW;
    const ssid = async (value) => t.patch(`/devices/${W}`, { comms: { wifi: { ssid: value, psk: 'secret-pass' } } });
    // 📶 takes 4 bytes in UTF-8, é 2.
    assert.equal((await ssid('📶'.repeat(8))).status, 200, '8 characters, 32 bytes');
    assert.equal((await ssid('x'.repeat(32))).status, 200);
    for (const [value, why] of [['📶'.repeat(8) + 'x', '9 characters, 33 bytes'], ['é'.repeat(32), '32 characters, 64 bytes'], ['x'.repeat(33), '33 bytes']]) {
      const r = await ssid(value);
      assert.equal(r.status, 422, why);
      assert.match(r.text, /at most 32 bytes/);
    }
    assert.deepEqual((await t.get(`/devices/${W}`)).body.comms.wifi.pending.ssid, 'x'.repeat(32), 'a refused change queues nothing');
  });

  it('reset() restores the initial fleet', async () => {
    await t.patch(`/devices/${SW}`, { label: 'changed' });
    await fetch(`${t.sim.url}/__sim/reset`, { method: 'POST' });
    assert.equal((await t.get(`/devices/${SW}`)).body.label, 'Solar home');
  });
});
