'use strict';
// The client against a recorded, live-shaped response set served over real HTTP (test/fixtures/live).
const assert = require('node:assert/strict');
const { EnergyApiClient, checkDeviceUpdate, deviceFacts } = require('../../dist/api');
const { startReplayServer } = require('../support/replay-server');
const set = require('../fixtures/live/responses.json');

const exchange = (method, path) => set.exchanges.find((x) => x.request.method === method && x.request.path === path);
const WIFI = 'D6A0000000005';
const SWITCHES = 'D630000000002';

describe('client against the recorded live response set', function () {
  this.timeout(20000);
  let server;
  let client;
  const requests = () => server.log();

  beforeEach(async () => {
    server = await startReplayServer(set);
    client = new EnergyApiClient({ baseUrl: server.baseUrl, apiKey: set.key, now: () => set.recordedAt * 1000, backoffBaseMs: 20 });
  });
  afterEach(async () => { await client.close(); await server.close(); });

  it('reads the sorted device list and learns the key\'s own limits from the live headers (seconds remaining)', async () => {
    const ids = await client.listDevices();
    assert.deepEqual(ids, exchange('GET', '/v3/devices').responses[0].body);
    const state = client.rateLimitState();
    assert.equal(state.tps, 12, 'the per-second limit follows the header, above the floor of 5');
    assert.equal(state.tpd, 43200);
    assert.equal(state.dailyRemaining, 39871);
    assert.equal(state.dailyResetAt, set.recordedAt + 43200, 'TpdReset is a duration, not a unix time');
  });

  it('reads a 6MW with an integer lastHeardAt and no uninitialised field as initialised', async () => {
    const device = await client.getDevice(WIFI);
    assert.ok(Number.isInteger(device.comms.lastHeardAt));
    assert.equal('uninitialised' in device, false);
    const facts = deviceFacts(device, 900, set.recordedAt * 1000);
    assert.equal(facts.online, true, 'heard from at the recording time: online, not uninitialised');
    assert.deepEqual(checkDeviceUpdate({ comms: { wifi: { ssid: 'Office', psk: 'a-long-secret' } } }, { deviceId: WIFI, device }), []);
  });

  it('waits out a 429 TPS for the seconds its TpsReset gives, widens its margin, then reads the device', async () => {
    const device = await client.getDevice(SWITCHES);
    assert.equal(device.id, SWITCHES);
    const [refused, answered] = requests();
    assert.equal(refused.status, 429);
    assert.equal(answered.status, 200);
    const gap = answered.at - refused.at;
    assert.ok(gap >= 400 && gap < 1500, `retried ${gap} ms later (TpsReset 0.412 s)`);
    assert.ok(client.rateLimitState().marginMs > 25, 'a 429 TPS widened the safety margin');
  });

  it('takes a PATCH answered with the bare device object as the updated device', async () => {
    const out = await client.updateDevice(SWITCHES, { label: 'Workshop' });
    assert.equal(out.status, 200);
    assert.equal(out.device.id, SWITCHES);
    assert.equal(out.device.label, 'Workshop');
  });

  it('reads the model and category catalogues', async () => {
    const models = await client.getModels();
    const sw = models.find((m) => m.code === '6M+3SW');
    assert.equal(sw.displayName, 'Auditor 6M+3SW');
    assert.equal(sw.switchesCount, 3);
    assert.equal(models.find((m) => m.code === '6MW').communications, 'cellular+wifi');
    const categories = await client.getChannelCategories();
    assert.equal(categories.find((c) => c.id === 1).label, 'Grid connect');
  });

  it('reads long energy of whole 5-minute records with one request as recorded', async () => {
    const { query } = exchange('GET', `/v3/long-energy/${SWITCHES}`).request;
    const entries = await client.getLongEnergy(SWITCHES, { fromTs: Number(query.fromTs), toTs: Number(query.toTs), granularity: '5m' });
    assert.equal(entries.length, 24);
    assert.ok(entries.every((e) => e.timestamp % 300 === 0 && e.duration % 300 === 0));
    assert.deepEqual(requests().map((r) => r.status), [200]);
  });
});
