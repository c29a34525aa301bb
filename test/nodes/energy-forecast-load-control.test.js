'use strict';
// energy-forecast wired into energy-load-control, as the example "Hot water on tomorrow's sun and prices" wires them,
// in a real Node-RED against the simulator over HTTP on its clock: the plan runs on the forecast; while Forecast.Solar
// refuses (429), the kept forecast reaches the plan marked, and the plan says it runs on the last forecast.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, stopServer, startSimulator, useSimClock, flowWith, messagesOf, until, helper } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const HOME = SIM_DEVICES.switch6M3SW;
/** 20:00 on 10 October 2026 in Sydney (AEDT, +11): the hot water's target of 17:00 is tomorrow's. */
const EVENING = Date.UTC(2026, 9, 10, 9) / 1000;

describe('energy-forecast → energy-load-control (Node-RED, simulator clock)', function () {
  this.timeout(60000);
  let sim;
  let userDir;
  before(async function () { sim = await startSimulator({ port: 0, now: EVENING }); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  afterEach(async function () {
    await helper.unload();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  it('the plan runs on the forecast, and on the last forecast while the source refuses', async function () {
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-forecast-lc-'));
    useSimClock(sim, { userDir });
    const site = sim.control.listForecastSites().find((s) => s.deviceId === HOME);
    const nodes = await flowWith(sim, [
      {
        id: 'fc', type: 'energy-forecast', source: 'forecast.solar', baseUrl: sim.forecastSolarUrl, latitude: site.latitude, longitude: site.longitude,
        declination: 20, azimuth: 180, kwp: 8.25, timezone: 'Australia/Sydney', wires: [['lc', 'sun']],
      },
      {
        id: 'lc', type: 'energy-load-control', api: 'api', deviceId: HOME, switchId: `${HOME}_S1`, mode: 'surplus', loadChannel: '3', loadPower: 3600,
        interval: 0, window: 120, minOn: 0, minOff: 0, staleAfter: 3600, dryRun: true, runFor: 10800, by: '17:00', minBlock: 1800,
        wires: [['decisions'], ['evaluations'], ['plans']],
      },
    ]);
    const plans = messagesOf(nodes.plans);
    const sun = messagesOf(nodes.sun);
    await until(() => sun.length === 1 && plans.length >= 1, 20000, 'the forecast and a plan on it');
    assert.equal(sun[0].forecastSource, 'live');
    await until(() => plans.at(-1).sun === 'forecast', 20000, 'a plan on the forecast');
    assert.deepEqual(messagesOf(nodes.caught), []);

    // Forecast.Solar refuses from now on: the kept forecast goes on, marked, and the plan says so.
    sim.control.setForecastLimits({ forecastSolarPerHour: 0 });
    sim.control.setClock({ advance: 600 });
    nodes.fc.receive({});
    await until(() => sun.length === 2, 20000, 'the last good forecast');
    assert.equal(sun[1].forecastStale, true);
    await until(() => plans.at(-1).sun === 'lastForecast', 20000, 'a plan on the last forecast');
  });
});
