'use strict';
const assert = require('node:assert/strict');
const { start, SIM_KEYS, SIM_DEVICES } = require('./helpers');

describe('simulator: authentication and routing', function () {
  let t;
  before(async () => { t = await start(); });
  after(() => t.sim.close());

  it('401 UNAUTHORIZED without an Authorization header or without a bearer token', async () => {
    const none = await t.get('/devices', { key: null });
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'UNAUTHORIZED');
    const basic = await t.get('/devices', { key: null, headers: { Authorization: 'Basic abc' } });
    assert.equal(basic.status, 401);
  });

  it('403 NOT_PERMITTED for a retired key', async () => {
    const r = await t.get('/devices', { key: SIM_KEYS.disabled });
    assert.equal(r.status, 403);
    assert.deepEqual(Object.keys(r.body), ['code', 'httpCode', 'message']);
    assert.equal(r.body.code, 'NOT_PERMITTED');
    assert.ok(!r.text.includes(SIM_KEYS.disabled), 'never echoes the whole key');
  });

  it('demo keys look like the live service\'s: key_ and 32 hex characters', () => {
    for (const key of Object.values(SIM_KEYS)) assert.match(key, /^key_[0-9a-f]{32}$/);
  });

  it('lists the devices of each key', async () => {
    const full = await t.get('/devices');
    assert.equal(full.body.length, 7);
    assert.deepEqual(full.body, [...full.body].sort(), 'sorted ascending as the live service does');
    assert.ok(!full.body.includes(SIM_DEVICES.forbidden));
    const subset = await t.get('/devices', { key: SIM_KEYS.subset });
    assert.deepEqual(subset.body, [SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW]);
  });

  it('404 for wrong case, trailing slash and unknown ids; 403 for a device outside the key', async () => {
    assert.equal((await t.get(`/Devices/${SIM_DEVICES.meter3M}`)).status, 404);
    assert.equal((await t.get(`/devices/${SIM_DEVICES.meter3M}/`)).status, 404);
    assert.equal((await t.get('/devices/')).status, 404);
    assert.equal((await t.get('/devices/Models')).status, 404);
    const unknown = await t.get('/devices/B999999999999');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'NOT_FOUND');
    const forbidden = await t.get(`/devices/${SIM_DEVICES.forbidden}`);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.code, 'FORBIDDEN');
    assert.equal(forbidden.body.httpCode, 401, 'the sample quirk of spec 7.1');
    const subset = await t.get(`/short-energy/${SIM_DEVICES.modbus6MOne}`, { key: SIM_KEYS.subset });
    assert.equal(subset.status, 403);
    assert.equal((await t.get('/devices/not-an-id')).status, 400);
  });

  it('serves models and channel categories', async () => {
    const models = await t.get('/devices/models');
    assert.equal(models.body.length, 10);
    const byCode = (code) => models.body.find((m) => m.code === code);
    assert.deepEqual(byCode('3M'), { code: '3M', displayName: 'Auditor 3M', channelsCount: 3, switchesCount: 0, communications: 'cellular' });
    assert.deepEqual(byCode('6M+3SW'), { code: '6M+3SW', displayName: 'Auditor 6M+3SW', channelsCount: 6, switchesCount: 3, communications: 'cellular' });
    assert.deepEqual(byCode('6MW-CER'), { code: '6MW-CER', displayName: 'Auditor 6MW-CER', channelsCount: 6, switchesCount: 1, communications: 'cellular+wifi' });
    assert.equal(byCode('6MW').communications, 'cellular+wifi');
    assert.deepEqual([byCode('6M').channelsCount, byCode('6M').switchesCount], [6, 0]);
    assert.deepEqual([byCode('6M+One').channelsCount, byCode('6M+One').switchesCount], [6, 0]);
    const cats = await t.get('/devices/channel-categories');
    const labels = Object.fromEntries(cats.body.map((c) => [c.id, c.label]));
    assert.deepEqual(labels, {
      '-1': 'Not set', 0: 'Not connected', 1: 'Grid connect', 2: 'Lighting & Power', 3: 'Pool pump', 4: 'Air conditioning',
      5: 'Solar generation', 6: 'Hot water', 7: 'Electric vehicle', 8: 'Battery', 9: 'Oven', 10: 'Lighting', 11: 'Power',
      12: 'Hybrid solar & battery system',
    });
  });

  it('renders the fleet as the spec describes', async () => {
    const wifi = (await t.get(`/devices/${SIM_DEVICES.wifi6MW}`)).body;
    assert.equal(wifi.comms.type, 'cellular,wifi');
    assert.equal(wifi.comms.mode, 'wifi');
    assert.equal(wifi.comms.lastHeardVia, 'wifi');
    assert.equal(wifi.comms.networkId, wifi.comms.wifi.ssid);
    assert.equal(wifi.comms.signalQualityDbm, -58);
    assert.equal(wifi.comms.wifi.signalQuality, 6);
    assert.equal(wifi.comms.wifi.signalQualityLabel, 'Good');
    assert.equal(wifi.comms.cellular.signalQuality, 7, 'RSRQ -6.5 (> -8) and RSRP -90 (> -92)');
    assert.ok(!('psk' in wifi.comms.wifi));
    assert.deepEqual(wifi.switches, []);
    const cer = (await t.get(`/devices/${SIM_DEVICES.cer6MWCER}`)).body;
    assert.equal(cer.comms.signalQualityDbm, -1);
    assert.equal(cer.comms.mode, '4G');
    assert.equal(cer.switches.length, 1);
    assert.ok(!('macAddress' in cer.comms));
    const un = (await t.get(`/devices/${SIM_DEVICES.uninitialised}`)).body;
    assert.equal(un.uninitialised, true);
    assert.equal(un.comms.lastHeardAt, null);
    assert.ok(!('latestStatus' in un) && !('firmwareVersion' in un));
    const sw = (await t.get(`/devices/${SIM_DEVICES.switch6M3SW}`)).body;
    assert.deepEqual(sw.phases.grouping.map((g) => g.included.length), [3, 3]);
    assert.deepEqual(sw.switches.map((s) => s.contactorType), ['NO', 'NC', 'NO']);
    assert.deepEqual(sw.switches.map((s) => [s.label, s.state]), [['Hot water', 'open'], ['Pool pump', 'open'], ['EV charger', 'open']]);
    const meter = (await t.get(`/devices/${SIM_DEVICES.meter3M}`)).body;
    assert.equal(meter.phases.count, 1);
    assert.equal(meter.phases.grouping.length, 3);
    const rog = (await t.get(`/devices/${SIM_DEVICES.rogowski3RM}`)).body;
    assert.ok(rog.channels.every((c) => c.ctRating === 3000));
  });

  it('logs every API request with the last 5 key characters', async () => {
    t.sim.control.clearLog();
    await t.get('/devices?fromts=1');
    await t.get('/devices', { key: null });
    const log = t.sim.control.log();
    assert.equal(log.length, 2);
    assert.deepEqual([log[0].status, log[0].key5, log[0].path, log[0].query.fromts], [200, SIM_KEYS.full.slice(-5), '/v3/devices', '1']);
    assert.equal(log[1].status, 401);
    const overHttp = await (await fetch(`${t.sim.url}/__sim/log`)).json();
    assert.equal(overHttp.length, 2);
    await fetch(`${t.sim.url}/__sim/log`, { method: 'DELETE' });
    assert.equal(t.sim.control.log().length, 0);
  });
});
