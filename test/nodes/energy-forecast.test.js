'use strict';
// energy-forecast in a real Node-RED against the simulator's Forecast.Solar, Solcast and Open-Meteo endpoints over
// HTTP, on the simulator's clock: each source asked and read into msg.forecast, a 429, a refused key, gaps and nulls,
// the last good forecast kept (and across a restart), and no timer left after close.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  startServer, stopServer, startSimulator, useSimClock, flowWith, messagesOf, statusesOf, until, loggedText, assertNoKey, helper,
} = require('../support/env');
const { SIM_DEVICES, SIM_SOLCAST_KEY, simulatedForecast } = require('../../dist/simulator');

/** 20:00 UTC on 4 October 2026 = 07:00 on 5 October in Sydney (AEDT, +11). */
const NOW = Date.UTC(2026, 9, 4, 20) / 1000;
const HOUR = 3600;
const HOME = SIM_DEVICES.switch6M3SW;

describe('energy-forecast (Node-RED, simulator clock)', function () {
  this.timeout(30000);
  let sim;
  let site;
  let userDir;
  before(async function () {
    sim = await startSimulator({ port: 0, now: NOW });
    site = sim.control.listForecastSites().find((s) => s.deviceId === HOME);
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () {
    sim.control.reset();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-forecast-'));
    useSimClock(sim, { userDir });
  });
  afterEach(async function () {
    await helper.unload();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  const forecastNode = (props = {}) => ({
    id: 'fc', type: 'energy-forecast', name: '', source: 'forecast.solar', baseUrl: sim.forecastSolarUrl, latitude: site.latitude, longitude: site.longitude,
    declination: 20, azimuth: 180, kwp: 8.25, timezone: 'Australia/Sydney', interval: 0, wires: [['out']], ...props,
  });
  const load = (props, credentials = {}) => flowWith(sim, [forecastNode(props)], { credentials: { api: { apiKey: sim.keys.full }, ...credentials } });
  const requests = (base) => sim.control.log().filter((r) => r.path.startsWith(base));
  /** The node's first msg: the deploy-time poll's. */
  async function deployed(props, credentials) {
    const nodes = await load(props, credentials);
    const out = messagesOf(nodes.out);
    const caught = messagesOf(nodes.caught);
    const statuses = statusesOf(nodes.fc);
    return { nodes, out, caught, statuses };
  }

  it('Forecast.Solar: asks the estimate for the plane and sends msg.forecast hour by hour in W', async function () {
    const { out } = await deployed();
    await until(() => out.length === 1);
    const [request] = requests('/forecast-solar/');
    assert.equal(request.path, `/forecast-solar/estimate/${site.latitude}/${site.longitude}/20/180/8.25`);
    assert.deepEqual(request.query, { time: 'seconds' });
    const msg = out[0];
    assert.equal(msg.forecastSource, 'live');
    assert.equal(msg.source, 'forecast.solar');
    assert.equal(msg.issuedAt, NOW);
    const expected = simulatedForecast(HOME, NOW, 48, { from: NOW - 7 * HOUR, stepS: HOUR, kwp: 8.25 }).filter((p) => p.power > 0);
    assert.equal(msg.forecast.length, expected.length);
    msg.forecast.forEach((p, i) => {
      assert.deepEqual([p.start, p.end], [expected[i].start, expected[i].end]);
      assert.ok(Math.abs(p.power - expected[i].power) <= 0.5, `${p.power} vs ${expected[i].power}`);
    });
    assert.equal(msg.payload, msg.forecast.find((p) => p.start <= NOW && p.end > NOW).power);
    assert.ok(msg.todayKwh > 10 && msg.tomorrowKwh > 10);
    assert.equal(msg.calibration, undefined);
  });

  it('Solcast: the rooftop site with the key as a bearer token; pv_estimate, 10 and 90 in W over 30-minute periods', async function () {
    const { out } = await deployed({ source: 'solcast', baseUrl: sim.solcastUrl, siteId: site.solcastSiteId, latitude: '', longitude: '', kwp: '' }, { fc: { apiKey: SIM_SOLCAST_KEY } });
    await until(() => out.length === 1);
    const [request] = requests('/solcast/');
    assert.equal(request.path, `/solcast/rooftop_sites/${site.solcastSiteId}/forecasts`);
    assert.deepEqual(request.query, { format: 'json', hours: '48' });
    assert.equal(request.key5, SIM_SOLCAST_KEY.slice(-5), 'bearer token');
    const expected = simulatedForecast(HOME, NOW, 48, { stepS: 1800 });
    const { forecast } = out[0];
    assert.equal(forecast.length, 96);
    forecast.forEach((p, i) => {
      assert.deepEqual([p.start, p.end], [expected[i].start, expected[i].end]);
      for (const k of ['power', 'p10', 'p90']) assert.ok(Math.abs(p[k] - expected[i][k]) <= 0.1, `${k} ${p[k]} vs ${expected[i][k]}`);
    });
  });

  it('Open-Meteo: global tilted irradiance × kWp × loss factor, hourly or every 15 minutes', async function () {
    const { out } = await deployed({ source: 'open-meteo', baseUrl: sim.openMeteoUrl, resolution: 15, lossFactor: 0.85 });
    await until(() => out.length === 1);
    const [request] = requests('/open-meteo/');
    assert.deepEqual(request.query, {
      latitude: String(site.latitude), longitude: String(site.longitude), minutely_15: 'global_tilted_irradiance', tilt: '20', azimuth: '180',
      timezone: 'auto', forecast_days: '3', timeformat: 'unixtime',
    });
    const midnight = NOW - 7 * HOUR;
    const expected = simulatedForecast(HOME, NOW, 72, { from: midnight, stepS: 900, kwp: 8.25 });
    const { forecast } = out[0];
    // From local midnight: the last value stamped at the end of the third day's last quarter hour but one.
    assert.equal(forecast.length, 287);
    forecast.forEach((p, i) => {
      assert.equal(p.start, expected[i].start);
      assert.ok(Math.abs(p.power - expected[i].power) <= 1, `${p.power} vs ${expected[i].power}`);
    });
  });

  it('a 429: a clear error at a Catch node, a red status, the last good forecast sent again marked, nothing sent until the limit allows', async function () {
    sim.control.setForecastLimits({ forecastSolarPerHour: 1 });
    const { nodes, out, caught, statuses } = await deployed();
    await until(() => out.length === 1);
    sim.control.setClock({ advance: 600 });
    nodes.fc.receive({ payload: 'refresh' });
    await until(() => caught.length === 1 && out.length === 2);
    assert.equal(caught[0].apiError.status, 429);
    assert.equal(caught[0].apiError.name, 'OutsideServiceError', 'the source\'s error, not the energy API\'s');
    assert.equal(caught[0].apiError.provider, 'Forecast.Solar');
    assert.match(caught[0].error.message, /429: Forecast\.Solar's limit for this address is reached; nothing is sent before 21:00 UTC/);
    assert.equal(out[1].forecastSource, 'last good');
    assert.deepEqual(out[1].forecast, out[0].forecast);
    assert.match(out[1].forecastError, /429/);
    assert.equal(statuses.at(-1).fill, 'red');
    assert.match(statuses.at(-1).text, /429 TOO_MANY_REQUESTS/);
    // Blocked until X-Ratelimit-Retry-At: no request reaches the source.
    sim.control.setClock({ advance: 600 });
    nodes.fc.receive({});
    await until(() => caught.length === 2 && out.length === 3);
    assert.equal(caught[1].apiError.code, 'RATE_LIMITED');
    assert.equal(requests('/forecast-solar/').length, 2);
    sim.control.setClock({ advance: 2400 });
    nodes.fc.receive({});
    await until(() => out.length === 4);
    assert.equal(out[3].forecastSource, 'live');
    assert.equal(requests('/forecast-solar/').length, 3);
  });

  it('two Solcast sites on one key share its daily limit: the 11th request of the UTC day is refused unsent, or goes when the plan allows more', async function () {
    // 00:30 UTC: a whole UTC day ahead. Both nodes ask at deploy, then every 150 minutes when a msg asks.
    const siteNode = (id, extra = {}) => forecastNode({ id, source: 'solcast', baseUrl: sim.solcastUrl, siteId: site.solcastSiteId, wires: [['out']], ...extra });
    // Each day's nodes are new ones (none kept a forecast on disk that would spare a request).
    async function day(extra, [east, west]) {
      sim.control.setClock({ now: Date.UTC(2026, 9, 5, 0, 30) / 1000 });
      const loaded = await flowWith(sim, [siteNode(east, extra), siteNode(west, extra)], { credentials: { api: { apiKey: sim.keys.full }, [east]: { apiKey: SIM_SOLCAST_KEY }, [west]: { apiKey: SIM_SOLCAST_KEY } } });
      const nodes = { ...loaded, east: loaded[east], west: loaded[west] };
      const out = messagesOf(nodes.out);
      const caught = messagesOf(nodes.caught);
      await until(() => out.length === 2);
      for (let round = 1; round <= 5; round += 1) {
        sim.control.setClock({ advance: 150 * 60 });
        const before = out.length + caught.length;
        nodes.east.receive({});
        nodes.west.receive({});
        await until(() => out.length + caught.length >= before + 2);
      }
      await helper.unload();
      return { out, caught, sent: requests('/solcast/').length, refusedBySolcast: requests('/solcast/').filter((r) => r.status === 429).length };
    }
    const hobbyist = await day({}, ['east', 'west']);
    assert.equal(hobbyist.sent, 10, 'ten requests reach Solcast in the UTC day, from both sites together');
    assert.equal(hobbyist.refusedBySolcast, 0, 'none of them refused: the limit was kept here');
    assert.equal(hobbyist.caught.length, 2, 'the 11th and 12th asks are refused before they are sent');
    for (const c of hobbyist.caught) {
      assert.equal(c.apiError.code, 'RATE_LIMITED');
      assert.match(c.error.message, /Solcast's daily limit \(10\) is spent/);
    }
    // An older account allowed 50 a day: told so, both sites go on (and the shortest gap is 30 minutes).
    sim.control.reset();
    sim.control.setForecastLimits({ solcastPerDay: 50 });
    const older = await day({ dailyLimit: 50 }, ['east-50', 'west-50']);
    assert.equal(older.sent, 12);
    assert.equal(older.caught.length, 0);
    // A daily limit that is no whole number of requests: a clear error and a red status, nothing asked.
    sim.control.reset();
    const bad = await deployed({ id: 'fc', source: 'solcast', baseUrl: sim.solcastUrl, siteId: site.solcastSiteId, dailyLimit: 2.5 }, { fc: { apiKey: SIM_SOLCAST_KEY } });
    await until(() => bad.statuses.some((st) => st.fill === 'red'));
    assert.match(bad.statuses.at(-1).text, /dailyLimit must be a whole number/);
    assert.equal(requests('/solcast/').length, 0);
  });

  it('a refused key: the error names the key by its last 5 characters only, no forecast is made up', async function () {
    const key = 'sc_wrong_key_0123456789abcdef';
    const { nodes, out, caught, statuses } = await deployed({ source: 'solcast', baseUrl: sim.solcastUrl, siteId: site.solcastSiteId }, { fc: { apiKey: key } });
    await until(() => caught.length === 1);
    assert.equal(caught[0].apiError.status, 401);
    assert.match(caught[0].error.message, /Solcast did not accept the API key …bcdef/);
    assert.equal(caught[0].forecastSource, 'none');
    assert.equal(statuses.at(-1).fill, 'red');
    nodes.fc.receive({});
    await until(() => caught.length === 2);
    assert.equal(out.length, 0);
    assertNoKey(key, loggedText(), caught, statuses);
  });

  it('a gap and nulls (NaN) in a forecast are left out, never read as 0, and counted', async function () {
    sim.control.setForecastFaults({ gapFrom: NOW + 2 * HOUR, gapTo: NOW + 4 * HOUR, nullFrom: NOW + 6 * HOUR, nullTo: NOW + 7 * HOUR });
    const { out } = await deployed({ source: 'solcast', baseUrl: sim.solcastUrl, siteId: site.solcastSiteId }, { fc: { apiKey: SIM_SOLCAST_KEY } });
    await until(() => out.length === 1);
    const { forecast, gaps } = out[0];
    assert.equal(gaps, 2);
    assert.equal(forecast.length, 96 - 4 - 2);
    assert.ok(forecast.every((p) => Number.isFinite(p.power) && p.power >= 0));
    assert.ok(!forecast.some((p) => (p.start >= NOW + 2 * HOUR && p.start < NOW + 4 * HOUR) || (p.start >= NOW + 6 * HOUR && p.start < NOW + 7 * HOUR)));
    // Forecast.Solar's hourly series with the same faults: its stamps mark period ends.
    await helper.unload();
    sim.control.reset();
    sim.control.setForecastFaults({ gapFrom: NOW + 2 * HOUR, gapTo: NOW + 4 * HOUR, nullFrom: NOW + 6 * HOUR, nullTo: NOW + 7 * HOUR });
    const again = await deployed();
    await until(() => again.out.length === 1);
    const hours = again.out[0].forecast.map((p) => p.start);
    for (const missing of [NOW + 2 * HOUR, NOW + 3 * HOUR, NOW + 6 * HOUR]) assert.ok(!hours.includes(missing), `no period at ${missing}`);
    assert.ok(hours.includes(NOW + 4 * HOUR) && hours.includes(NOW + HOUR));
    assert.ok(again.out[0].forecast.every((p) => p.end - p.start === HOUR));
    assert.equal(again.out[0].gaps, 1);
  });

  it('restart: the last good forecast is kept in the user directory: sent at once, as the current one within the polling interval, else marked while the source fails', async function () {
    const first = await deployed();
    await until(() => first.out.length === 1);
    const file = path.join(userDir, 'energy-forecast', 'fc.json');
    await until(() => fs.existsSync(file) && JSON.parse(fs.readFileSync(file, 'utf8')).lastGood);
    await helper.unload();
    // Within the polling interval (60 min) a redeploy sends the kept forecast as the current one and asks nothing.
    sim.control.setClock({ advance: 1800 });
    const redeployed = await deployed();
    await until(() => redeployed.out.length === 1);
    assert.equal(redeployed.out[0].forecastSource, 'live');
    assert.deepEqual(redeployed.out[0].forecast, first.out[0].forecast);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(requests('/forecast-solar/').length, 1, 'no request at the redeploy');
    await helper.unload();
    // Older than the interval, with the source refusing: sent at once marked last good, then the poll's 429.
    sim.control.setForecastLimits({ forecastSolarPerHour: 0 });
    sim.control.setClock({ advance: 1900 });
    const second = await deployed();
    await until(() => second.out.length === 2 && second.caught.length === 1);
    assert.equal(second.out[0].forecastSource, 'last good');
    assert.deepEqual(second.out[0].forecast, first.out[0].forecast);
    assert.equal(second.out[0].issuedAt, NOW);
    assert.equal(second.out[1].forecastSource, 'last good');
    assert.equal(second.caught[0].apiError.status, 429);
    assert.match(second.statuses.at(-1).text, /lastGood/);
    // The source allows again after its hour: live once more (and the process's gate for it open for later tests).
    sim.control.setForecastLimits({ forecastSolarPerHour: 12 });
    sim.control.setClock({ advance: 3600 });
    second.nodes.fc.receive({});
    await until(() => second.out.length === 3);
    assert.equal(second.out[2].forecastSource, 'live');
  });

  it('close leaves no timer and sends nothing late', async function () {
    // One deploy first, so that Node-RED's one-time lazy timers are in the baseline.
    const warm = await deployed();
    await until(() => warm.out.length === 1);
    await helper.unload();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    sim.control.setClock({ advance: 3600 });
    sim.control.setFaults({ latencyMs: 800 });
    const { out } = await deployed();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the deploy poll is on the wire
    await helper.unload();
    const sent = out.length;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal(out.length, sent, 'nothing after close');
    const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    assert.ok(after <= before, `timers: ${before} before, ${after} after`);
  });
});
