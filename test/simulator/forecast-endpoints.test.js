'use strict';
// The simulator's Forecast.Solar, Solcast and Open-Meteo compatible endpoints over real HTTP on a frozen clock:
// paths and fields, the numbers of forecastFor, each provider's limit and 429, a refused key, gaps and nulls.
const assert = require('node:assert/strict');
const { startSimulator, SIM_SOLCAST_KEY, SIM_DEVICES, simulatedForecast } = require('../../dist/simulator');

/** 20:00 UTC on 5 October 2026 = 07:00 in Sydney (AEDT, +11). */
const NOW = Date.UTC(2026, 9, 5, 20) / 1000;
const HOUR = 3600;

describe('simulator forecast endpoints', function () {
  let sim;
  let home;
  const json = async (url, init) => {
    const res = await fetch(url, init);
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const solcast = (path, key = SIM_SOLCAST_KEY) => json(`${sim.solcastUrl}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  const estimate = (query = '?time=seconds') => json(`${sim.forecastSolarUrl}/estimate/${home.latitude}/${home.longitude}/20/180/8.25${query}`);

  before(async function () {
    sim = await startSimulator({ now: NOW });
    home = (await json(`${sim.url}/__sim/forecast-sites`)).body.find((s) => s.deviceId === SIM_DEVICES.switch6M3SW);
  });
  after(() => sim.close());
  beforeEach(() => sim.control.reset());

  it('lists its sites: coordinates, declared kWp, Solcast ids', async function () {
    assert.equal(home.kwp, 8.25);
    assert.match(home.solcastSiteId, /^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    assert.equal(home.timezone, 'Australia/Sydney');
  });

  it('Forecast.Solar: today and tomorrow hour by hour from sunrise, the hour\'s energy stamped at its end, and its limit headers', async function () {
    const { status, headers, body } = await estimate();
    assert.equal(status, 200);
    assert.equal(headers.get('x-ratelimit-limit'), '12');
    assert.equal(headers.get('x-ratelimit-period'), '3600');
    assert.equal(headers.get('x-ratelimit-remaining'), '11');
    assert.deepEqual(Object.keys(body.result).sort(), ['watt_hours', 'watt_hours_day', 'watt_hours_period', 'watts']);
    assert.equal(body.message.type, 'success');
    assert.equal(body.message.info.timezone, 'Australia/Sydney');
    assert.deepEqual(body.message.ratelimit, { period: 3600, limit: 12, remaining: 11 });
    const stamps = Object.keys(body.result.watt_hours_period).map(Number);
    const expected = simulatedForecast(SIM_DEVICES.switch6M3SW, NOW, 48, { from: NOW - 7 * HOUR, stepS: HOUR, kwp: 8.25 });
    for (const p of expected.filter((e) => e.power > 0)) assert.equal(body.result.watt_hours_period[p.end], Math.round(p.power), `hour ending ${p.end}`);
    assert.equal(Object.keys(body.result.watt_hours_day).length, 2);
    assert.ok(stamps.every((t, i) => i === 0 || t > stamps[i - 1]));
    const local = await estimate('');
    assert.match(Object.keys(local.body.result.watts)[0], /^2026-10-0\d \d\d:00:00$/);
  });

  it('Forecast.Solar: the 13th request in an hour is a 429 with X-Ratelimit-Retry-At, free again an hour after the first', async function () {
    for (let i = 0; i < 12; i++) assert.equal((await estimate()).status, 200);
    const refused = await estimate();
    assert.equal(refused.status, 429);
    assert.equal(refused.body.message.code, 429);
    assert.equal(refused.headers.get('x-ratelimit-retry-at'), new Date((NOW + HOUR) * 1000).toISOString().replace('.000Z', '+00:00'));
    sim.control.setClock({ now: NOW + HOUR });
    assert.equal((await estimate()).status, 200);
  });

  it('Solcast: 30-minute pv_estimate, pv_estimate10, pv_estimate90 in kW from the current period, bearer or api_key', async function () {
    const { status, body } = await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts?format=json&hours=48`);
    assert.equal(status, 200);
    assert.equal(body.forecasts.length, 96);
    const expected = simulatedForecast(SIM_DEVICES.switch6M3SW, NOW, 48, { stepS: 1800 });
    body.forecasts.forEach((f, i) => {
      assert.equal(f.period, 'PT30M');
      assert.equal(Date.parse(f.period_end) / 1000, expected[i].end);
      assert.match(f.period_end, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.0000000Z$/);
      assert.ok(Math.abs(f.pv_estimate * 1000 - expected[i].power) < 0.1);
      assert.ok(f.pv_estimate10 <= f.pv_estimate && f.pv_estimate <= f.pv_estimate90);
    });
    const byQuery = await json(`${sim.solcastUrl}/rooftop_sites/${home.solcastSiteId}/forecasts?api_key=${SIM_SOLCAST_KEY}&hours=1`);
    assert.equal(byQuery.body.forecasts.length, 2);
  });

  it('Solcast: a wrong or missing key is a 401, an unknown site a 404, the 11th request of a UTC day a 429 until 00:00 UTC', async function () {
    const wrong = await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts`, 'not-the-key');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.response_status.error_code, 'Unauthorized');
    assert.equal((await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts`, '')).status, 401);
    assert.equal((await solcast('/rooftop_sites/0000-0000-0000-0000/forecasts')).status, 404);
    for (let i = 0; i < 10; i++) assert.equal((await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts?hours=1`)).status, 200);
    const refused = await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts?hours=1`);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.response_status.error_code, 'TooManyRequests');
    sim.control.setClock({ now: Math.ceil(NOW / 86400) * 86400 });
    assert.equal((await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts?hours=1`)).status, 200);
  });

  it('Open-Meteo: hourly and 15-minute global tilted irradiance from local midnight, each the mean of the step before', async function () {
    const url = `${sim.openMeteoUrl}/v1/forecast?latitude=${home.latitude}&longitude=${home.longitude}&hourly=global_tilted_irradiance`
      + '&minutely_15=global_tilted_irradiance&tilt=20&azimuth=180&timezone=auto&forecast_days=2&timeformat=unixtime';
    const { status, body } = await json(url);
    assert.equal(status, 200);
    assert.equal(body.timezone, 'Australia/Sydney');
    assert.equal(body.utc_offset_seconds, 11 * HOUR);
    assert.equal(body.hourly_units.global_tilted_irradiance, 'W/m²');
    assert.equal(body.hourly.time.length, 48);
    assert.equal(body.minutely_15.time.length, 192);
    assert.equal(body.hourly.time[0], NOW - 7 * HOUR);
    const expected = simulatedForecast(SIM_DEVICES.switch6M3SW, NOW, 48, { from: NOW - 8 * HOUR, stepS: HOUR, kwp: 1 });
    body.hourly.time.forEach((t, i) => {
      assert.equal(expected[i].end, t);
      assert.ok(Math.abs(body.hourly.global_tilted_irradiance[i] * 0.85 - expected[i].power) < 0.1);
    });
    assert.ok(Math.max(...body.hourly.global_tilted_irradiance) > 700);
    const bad = await json(`${sim.openMeteoUrl}/v1/forecast?latitude=${home.latitude}&longitude=${home.longitude}&hourly=nonsense`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, true);
    sim.control.setForecastLimits({ openMeteoPerMinute: 1 });
    assert.equal((await json(url)).status, 200);
    const refused = await json(url);
    assert.equal(refused.status, 429);
    assert.match(refused.body.reason, /Minutely API request limit exceeded/);
  });

  it('leaves out the periods of a gap and gives null in a null window, for each provider', async function () {
    const gapFrom = NOW + 2 * HOUR;
    sim.control.setForecastFaults({ gapFrom, gapTo: gapFrom + 2 * HOUR, nullFrom: NOW + 6 * HOUR, nullTo: NOW + 7 * HOUR });
    const sc = (await solcast(`/rooftop_sites/${home.solcastSiteId}/forecasts?hours=12`)).body.forecasts;
    assert.equal(sc.length, 20);
    assert.ok(!sc.some((f) => { const end = Date.parse(f.period_end) / 1000; return end > gapFrom && end <= gapFrom + 2 * HOUR; }));
    assert.equal(sc.filter((f) => f.pv_estimate === null).length, 2);
    const fs = (await estimate()).body.result.watt_hours_period;
    assert.equal(fs[NOW + 3 * HOUR], undefined);
    assert.equal(fs[NOW + 7 * HOUR], null);
    const om = (await json(`${sim.openMeteoUrl}/v1/forecast?latitude=${home.latitude}&longitude=${home.longitude}&hourly=global_tilted_irradiance&timezone=auto&forecast_days=1&timeformat=unixtime`)).body.hourly;
    assert.equal(om.global_tilted_irradiance[om.time.indexOf(NOW + 3 * HOUR)], null);
  });
});
