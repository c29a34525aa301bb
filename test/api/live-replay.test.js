'use strict';
// The client against a recorded, live-shaped response set served over real HTTP (test/fixtures/live).
const assert = require('node:assert/strict');
const { EnergyApiClient, checkDeviceUpdate, deviceFacts } = require('../../dist/api');
const { startReplayServer } = require('../support/replay-server');
const set = require('../fixtures/live/responses.json');

const exchange = (method, path) => set.exchanges.find((x) => x.request.method === method && x.request.path === path);
const WIFI = 'D6A0000000005';
const SWITCHES = 'D630000000002';
const METER = 'B300000000001';

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

  it('reads the recorded 5-minute day range as the periods asked for: one request, the entry before fromTs left out', async () => {
    const recorded = exchange('GET', `/v3/long-energy/${METER}`);
    const { query } = recorded.request;
    assert.deepEqual([Number(query.fromTs), Number(query.toTs)], [1739970000, 1740402000], 'the vendor notebook\'s request');
    const body = recorded.responses[0].body;
    assert.deepEqual([body.length, body[0].timestamp, body.at(-1).timestamp], [1440, 1739970000, 1740401700], 'selected by timestamp');
    // The periods [fromTs, toTs - 300): the client asks for 300 s more, which is exactly the recorded request.
    const fromTs = 1739970000;
    const entries = await client.getLongEnergy(METER, { fromTs, toTs: 1740401700, granularity: '5m' });
    assert.deepEqual(requests().map((r) => [r.status, r.query.fromTs, r.query.toTs]), [[200, '1739970000', '1740402000']]);
    assert.equal(entries.length, 1439, 'the record stamped fromTs covers the 5 minutes before it: not asked for');
    assert.deepEqual([entries[0].timestamp, entries.at(-1).timestamp], [fromTs + 300, 1740401700]);
    assert.deepEqual(entries, body.slice(1), 'the records themselves, unchanged');
    assert.equal(client.longWindow(), 'timestamp', 'an entry stamped at fromTs: learnt the live reading');
    // Per local day in Sydney (1739970000 is a midnight there), by the period each entry covers: whole days,
    // and the last day without its last 5 minutes, as asked.
    const perDay = new Map();
    for (const e of entries) {
      const day = new Date((e.timestamp - e.duration) * 1000).toLocaleDateString('en-CA', { timeZone: 'Australia/Sydney' });
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    assert.deepEqual([...perDay.entries()], [['2025-02-20', 288], ['2025-02-21', 288], ['2025-02-22', 288], ['2025-02-23', 288], ['2025-02-24', 287]]);
  });

  it('moves recorded 15-minute entries, labelled with their first record, to the end of what they cover', async () => {
    const fiveMinutes = exchange('GET', `/v3/long-energy/${METER}`).responses[0].body;
    const quarter = set.exchanges.find((x) => x.request.query?.granularity === '15m');
    const fromTs = Number(quarter.request.query.fromTs);
    assert.deepEqual(quarter.responses[0].body.map((e) => e.timestamp), [0, 900, 1800, 2700].map((k) => fromTs + k));
    const entries = await client.getLongEnergy(METER, { fromTs, toTs: Number(quarter.request.query.toTs), granularity: '15m' });
    assert.deepEqual(entries.map((e) => [e.timestamp, e.duration]), [600, 1500, 2400, 3300].map((k) => [fromTs + k, 900]));
    for (const e of entries) {
      // The 5-minute records whose periods lie in [timestamp - duration, timestamp).
      const inside = fiveMinutes.filter((r) => r.timestamp - 300 >= e.timestamp - e.duration && r.timestamp <= e.timestamp);
      assert.equal(inside.length, 3);
      assert.deepEqual(e.eReal, e.eReal.map((_, c) => inside.reduce((a, r) => a + r.eReal[c], 0)), `entry ending ${e.timestamp}`);
    }
    assert.equal(client.longWindow(), 'timestamp');
  });
});
