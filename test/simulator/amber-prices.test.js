'use strict';
// The simulator's Amber-compatible price endpoint (/amber/v1), over real HTTP on a frozen clock: paths,
// fields and rate-limit answers as Amber's public API description has them, and a market that is cheap
// at midday with sun, dear in the evening, spikes now and then, and whose estimates turn final.
const assert = require('node:assert/strict');
const { startSimulator, SIM_AMBER_KEY, SIM_KEYS, SIM_DEVICES, amberSiteId } = require('../../dist/simulator/index.js');

const SITE = amberSiteId(SIM_DEVICES.switch6M3SW);
const T = Date.UTC(2026, 9, 15, 2, 0, 0) / 1000; // 2026-10-15 12:00 NEM time, on a 30-minute boundary

describe('simulator: Amber-compatible prices', function () {
  let sim;
  const get = async (path, key = SIM_AMBER_KEY) => {
    const res = await fetch(sim.amberUrl + path, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  beforeEach(async () => { sim = await startSimulator({ port: 0, now: T }); });
  afterEach(() => sim.close());

  it('lists the sites of the Australian devices, with their channels; its own key only', async () => {
    const sites = await get('/sites');
    assert.equal(sites.status, 200);
    const home = sites.body.find((s) => s.id === SITE);
    assert.match(home.id, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'a ULID-shaped id');
    assert.deepEqual(home.channels.map((c) => c.type), ['general', 'feedIn']);
    assert.deepEqual([home.network, home.status, home.intervalLength], ['Ausgrid', 'active', 30]);
    assert.match(home.nmi, /^\d{10,11}$/);
    assert.equal(sites.body.length, 5, 'Sydney, Sydney, Melbourne, Brisbane, Adelaide; not London or the uninitialised one');
    assert.equal((await get('/sites', null)).status, 401);
    assert.equal((await get('/sites', SIM_KEYS.full)).status, 401, 'the energy API key is not an Amber key');
    assert.equal((await get('/sites/01J0000000000000000000000X/prices/current')).status, 404);
  });

  it('current prices: previous actual, the current estimate, next forecasts, general then feed-in; Amber\'s time fields', async () => {
    const r = await get(`/sites/${SITE}/prices/current?next=4&previous=2&resolution=30`);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 14);
    assert.deepEqual(r.body.map((i) => i.channelType), [...Array(7).fill('general'), ...Array(7).fill('feedIn')]);
    assert.deepEqual(r.body.slice(0, 7).map((i) => i.type), ['ActualInterval', 'ActualInterval', 'CurrentInterval', 'ForecastInterval', 'ForecastInterval', 'ForecastInterval', 'ForecastInterval']);
    const current = r.body[2];
    assert.deepEqual([current.startTime, current.endTime, current.nemTime, current.date, current.duration], ['2026-10-15T02:00:01Z', '2026-10-15T02:30:00Z', '2026-10-15T12:30:00+10:00', '2026-10-15', 30]);
    assert.equal(current.estimate, true, 'at the start of a 30-minute interval its price is an estimate');
    for (const field of ['perKwh', 'spotPerKwh', 'renewables']) assert.equal(typeof current[field], 'number');
    assert.ok(['none', 'potential', 'spike'].includes(current.spikeStatus));
    // A feed-in price is what exporting costs: about the spot price, negated.
    const feedIn = r.body[9];
    assert.equal(feedIn.endTime, current.endTime);
    assert.ok(Math.abs(feedIn.perKwh + current.spotPerKwh) < 1.01);
    assert.equal(r.headers.get('ratelimit-policy'), '50;w=300');
  });

  it('estimates turn final: a 5-minute price 20 s into its interval, a 30-minute one in its last 5 minutes', async () => {
    const at = async (seconds, resolution) => {
      sim.control.setClock({ now: T + seconds });
      return (await get(`/sites/${SITE}/prices/current?resolution=${resolution}`)).body[0];
    };
    const early = await at(10, 5);
    const late = await at(30, 5);
    assert.equal(early.estimate, true);
    assert.equal(late.estimate, false);
    assert.notEqual(early.perKwh, late.perKwh, 'the estimate was not the final price');
    assert.equal((await at(1510, 30)).estimate, true, '25 min 10 s in');
    assert.equal((await at(1530, 30)).estimate, false, '25 min 30 s in: all six 5-minute prices are published');
  });

  it('a 30-minute price is the mean of its six 5-minute prices; the same seed gives the same prices', async () => {
    const fives = (await get(`/sites/${SITE}/prices?startDate=2026-10-14&endDate=2026-10-14&resolution=5`)).body.filter((i) => i.channelType === 'general');
    const thirties = (await get(`/sites/${SITE}/prices?startDate=2026-10-14&endDate=2026-10-14&resolution=30`)).body.filter((i) => i.channelType === 'general');
    assert.equal(fives.length, 288);
    assert.equal(thirties.length, 48);
    thirties.forEach((h, k) => {
      const mean = fives.slice(k * 6, k * 6 + 6).reduce((s, i) => s + i.perKwh, 0) / 6;
      assert.ok(Math.abs(h.perKwh - mean) < 1e-4, `${h.nemTime}: ${h.perKwh} vs ${mean}`);
      assert.equal(h.type, 'ActualInterval');
    });
    const again = await startSimulator({ port: 0, now: T });
    const other = await startSimulator({ port: 0, now: T, seed: 2 });
    try {
      const read = async (s) => (await (await fetch(`${s.amberUrl}/sites/${SITE}/prices?startDate=2026-10-14&endDate=2026-10-14`, { headers: { Authorization: `Bearer ${SIM_AMBER_KEY}` } })).json()).map((i) => i.perKwh);
      assert.deepEqual(await read(again), thirties.concat((await get(`/sites/${SITE}/prices?startDate=2026-10-14&endDate=2026-10-14`)).body.filter((i) => i.channelType === 'feedIn')).map((i) => i.perKwh));
      assert.notDeepEqual(await read(other), await read(again));
    } finally {
      await again.close();
      await other.close();
    }
  });

  it('a month of the market: cheap or negative at midday on sunny days, an evening peak, and spikes in summer', async () => {
    const month = async (first) => {
      const out = [];
      for (let d = 0; d < 28; d += 7) {
        const day = (n) => new Date(Date.parse(first) + n * 86400e3).toISOString().slice(0, 10);
        sim.control.setClock({ now: Date.parse(first) / 1000 + 40 * 86400 });
        out.push(...(await get(`/sites/${SITE}/prices?startDate=${day(d)}&endDate=${day(d + 6)}&resolution=30`)).body.filter((i) => i.channelType === 'general'));
      }
      return out;
    };
    const spring = await month('2026-10-01');
    const hour = (i) => Number(i.nemTime.slice(11, 13)) + Number(i.nemTime.slice(14, 16)) / 60;
    const mean = (list) => list.reduce((s, i) => s + i.perKwh, 0) / list.length;
    const midday = spring.filter((i) => hour(i) > 11 && hour(i) <= 14);
    const evening = spring.filter((i) => hour(i) > 17 && hour(i) <= 20);
    assert.ok(mean(midday) < 12, `midday mean ${mean(midday)} c/kWh`);
    assert.ok(mean(evening) > 40, `evening mean ${mean(evening)} c/kWh`);
    assert.ok(midday.some((i) => i.perKwh < 0), 'some midday prices are negative');
    const summer = await month('2027-01-01');
    const spikes = summer.filter((i) => i.spikeStatus === 'spike');
    assert.ok(spikes.length > 0, 'a summer month has spikes');
    assert.ok(spikes.every((i) => i.perKwh > 100 && hour(i) >= 16.5 && hour(i) <= 21.5), 'evening spikes above 100 c/kWh');
  });

  it('refuses what Amber refuses: a resolution other than 5 or 30, more than 2048 intervals, more than 7 days', async () => {
    assert.equal((await get(`/sites/${SITE}/prices/current?resolution=15`)).status, 400);
    assert.equal((await get(`/sites/${SITE}/prices/current?next=2000&previous=48`)).status, 422);
    assert.equal((await get(`/sites/${SITE}/prices/current?next=2000&previous=47`)).status, 200);
    assert.equal((await get(`/sites/${SITE}/prices?startDate=2026-10-01&endDate=2026-10-09`)).status, 422);
    assert.equal((await get(`/sites/${SITE}/prices/current?next=-1`)).status, 400);
  });

  it('its own rate limit: 50 requests per 300 s, IETF RateLimit headers, 429 until the window resets; logged', async () => {
    sim.control.setAmberLimits({ limit: 3, windowS: 300 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get('/sites'));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429]);
    assert.deepEqual(['limit', 'remaining', 'reset', 'policy'].map((h) => answers[3].headers.get(`ratelimit-${h}`)), ['3', '0', '300', '3;w=300']);
    sim.control.setClock({ advance: 120 });
    const still = await get('/sites');
    assert.equal(still.status, 429);
    assert.equal(still.headers.get('ratelimit-reset'), '180');
    sim.control.setClock({ advance: 180 });
    assert.equal((await get('/sites')).status, 200);
    const logged = sim.control.log().filter((r) => r.path.startsWith('/amber/v1/'));
    assert.equal(logged.length, 6);
    assert.deepEqual(logged.map((r) => r.status), [200, 200, 200, 429, 429, 200]);
    assert.ok(logged.every((r) => r.key5 === SIM_AMBER_KEY.slice(-5)));
    // The energy API's limits are its own.
    assert.equal((await fetch(`${sim.baseUrl}/devices`, { headers: { Authorization: `Bearer ${SIM_KEYS.full}` } })).status, 200);
  });
});
