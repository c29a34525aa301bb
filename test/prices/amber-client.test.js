'use strict';
// The Amber client against the simulator's Amber-compatible endpoint over real HTTP: what it asks,
// how it reads the answer, and how it keeps to the key's limit (429s and an empty window).
const assert = require('node:assert/strict');
const { startSimulator, SIM_AMBER_KEY, SIM_DEVICES, amberSiteId } = require('../../dist/simulator');
const { AmberClient } = require('../../dist/prices/amber-client');
const { readPrices } = require('../../dist/domain/pricing/normalise');

const SITE = amberSiteId(SIM_DEVICES.switch6M3SW);
const T = Date.UTC(2026, 9, 15, 2, 0, 40) / 1000;

describe('Amber client (simulator)', function () {
  let sim;
  const client = (extra = {}) => new AmberClient({ baseUrl: sim.amberUrl, apiKey: SIM_AMBER_KEY, now: () => sim.control.now() * 1000, ...extra });
  beforeEach(async () => { sim = await startSimulator({ port: 0, now: T }); });
  afterEach(() => sim.close());

  it('reads the current prices into slots: Amber\'s c/kWh as $/kWh, feed-in negated, the current one an estimate', async () => {
    const intervals = await client().currentPrices(SITE, { next: 2, previous: 1, resolution: 30 });
    const [request] = sim.control.log();
    assert.deepEqual(request.query, { next: '2', previous: '1', resolution: '30' });
    const { periods } = readPrices(intervals, { source: 'Amber' });
    assert.equal(periods.length, 4);
    const general = intervals.filter((i) => i.channelType === 'general');
    const feedIn = intervals.filter((i) => i.channelType === 'feedIn');
    periods.forEach((p, i) => {
      assert.equal(p.end, Date.parse(general[i].endTime) / 1000);
      assert.equal(p.start, p.end - 1800);
      assert.equal(p.micros, Math.round(general[i].perKwh * 10000));
      assert.equal(p.exportMicros, -Math.round(feedIn[i].perKwh * 10000));
    });
    assert.equal(periods[1].estimate, true, 'current');
    assert.equal(periods[0].estimate, undefined, 'actual');
    assert.equal(periods[2].estimate, true, 'forecast');
  });

  it('after a 429 it sends nothing on that key until the window resets, for every client of the key', async () => {
    sim.control.setAmberLimits({ limit: 2, windowS: 300 });
    const a = client();
    await a.currentPrices(SITE, { next: 0, previous: 0, resolution: 30 });
    // The second request leaves none in the window: the gate closes without a 429.
    await a.currentPrices(SITE, { next: 0, previous: 0, resolution: 30 });
    await assert.rejects(client().sites(), (err) => err.code === 'RATE_LIMITED' && /resets in 300 s/.test(err.message) && !err.message.includes(SIM_AMBER_KEY));
    assert.equal(sim.control.log().length, 2, 'nothing sent while the window is empty');
    sim.control.setClock({ advance: 300 });
    assert.equal((await client().sites()).length, 5);
    // A 429 from the service (another process used the key) closes the gate for its RateLimit-Reset.
    sim.control.setAmberLimits({ limit: 0, windowS: 120 });
    await assert.rejects(client().sites(), (err) => err.status === 429 && err.code === 'TOO_MANY_REQUESTS' && err.rateLimit.resetAt === T + 300 + 120);
    await assert.rejects(a.sites(), (err) => err.code === 'RATE_LIMITED');
    assert.equal(sim.control.log().filter((r) => r.status === 429).length, 1);
  });

  it('says what went wrong without the key: a wrong key, an unknown site, an unreachable address, a plain-http address elsewhere', async () => {
    const wrong = 'psk_00000000000000000000000000badkey';
    await assert.rejects(client({ apiKey: wrong }).sites(), (err) => err.status === 401 && /…adkey was not accepted/.test(err.message) && !err.message.includes(wrong));
    await assert.rejects(client().currentPrices('01J0000000000000000000000X', { next: 0, previous: 0, resolution: 30 }), (err) => err.status === 404 && /site was not found/.test(err.message));
    assert.throws(() => client().currentPrices('../devices', { next: 0, previous: 0, resolution: 30 }), /not an Amber site id/);
    assert.throws(() => client().currentPrices(SITE, { next: 2048, previous: 0, resolution: 30 }), /at most 2048 intervals/);
    await assert.rejects(new AmberClient({ baseUrl: 'http://127.0.0.1:1/amber/v1', apiKey: SIM_AMBER_KEY }).sites(), (err) => err.code === 'NETWORK' && !err.message.includes(SIM_AMBER_KEY));
    assert.throws(() => new AmberClient({ baseUrl: 'http://prices.example.com/v1', apiKey: SIM_AMBER_KEY }), /must be https/);
    assert.throws(() => new AmberClient({ baseUrl: sim.amberUrl, apiKey: '' }), /no Amber API key/);
  });

  it('its errors are the outside services\' in the one family, with their provider: Amber\'s refusals and its own', async () => {
    const { OutsideServiceError, PackageError, isEnergyApiError } = require('../../dist/api');
    const wrong = 'psk_00000000000000000000000000badkey';
    const refused = await client({ apiKey: wrong }).sites().catch((err) => err);
    assert.ok(refused instanceof OutsideServiceError && refused instanceof PackageError, String(refused));
    assert.equal(isEnergyApiError(refused), false, 'not the energy API\'s error');
    assert.deepEqual([refused.side, refused.provider, refused.code, refused.status, refused.sent], ['outside', 'Amber', 'HTTP_401', 401, true]);
    assert.ok(!JSON.stringify(refused.toJSON()).includes(wrong), 'the key is named by its last 5 characters only');
    const unreachable = await new AmberClient({ baseUrl: 'http://127.0.0.1:1/amber/v1', apiKey: SIM_AMBER_KEY }).sites().catch((err) => err);
    assert.ok(unreachable instanceof OutsideServiceError);
    assert.deepEqual([unreachable.code, unreachable.status, unreachable.sent], ['NETWORK', 0, false]);
    // Refused here, never sent: the code the energy API client gives its own refusals.
    const own = (err) => err instanceof OutsideServiceError && err.provider === 'Amber' && err.code === 'INVALID_REQUEST' && err.sent === false;
    assert.throws(() => new AmberClient({ baseUrl: sim.amberUrl, apiKey: '' }), own);
    assert.throws(() => client().currentPrices('../devices', { next: 0, previous: 0, resolution: 30 }), own);
    assert.throws(() => new AmberClient({ baseUrl: 'http://prices.example.com/v1', apiKey: SIM_AMBER_KEY }), (err) => err instanceof OutsideServiceError && err.code === 'INVALID_REQUEST');
  });
});

describe('energy-price poll schedule (pure)', function () {
  const { nextPollAt } = require('../../dist/nodes/energy-price/schedule');
  const t = Date.UTC(2026, 9, 15, 2, 0, 0);
  it('30 s into the next interval; at the final of an estimate; at most once a minute; not before a reset', function () {
    const at = (ms) => new Date(ms).toISOString().slice(11, 19);
    assert.equal(at(nextPollAt(t + 40_000, t + 40_000, 30, undefined)), '02:30:30');
    assert.equal(at(nextPollAt(t + 40_000, t + 40_000, 5, undefined)), '02:05:30');
    const estimate = { start: t / 1000, end: t / 1000 + 1800, estimate: true };
    assert.equal(at(nextPollAt(t + 40_000, t + 40_000, 30, estimate)), '02:25:30', 'when the last 5 minutes are published');
    assert.equal(at(nextPollAt(t + 1_540_000, t + 1_530_000, 30, estimate)), '02:26:40', 'still an estimate after it should be final: again a minute later');
    assert.equal(at(nextPollAt(t + 40_000, t + 40_000, 5, undefined, t + 200_000)), '02:05:30');
    assert.equal(at(nextPollAt(t + 40_000, t + 40_000, 5, undefined, t + 400_000)), '02:06:41', 'a second after the limit resets');
  });
});
