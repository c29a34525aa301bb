'use strict';
// The forecast domain without HTTP: each provider's answer read into the one shape (irregular stamps, gaps, nulls,
// NaN), the archive of day-ahead forecasts, calibration's factor and its honest error figures, and the session's
// once-a-day read of the solar channel.
const assert = require('node:assert/strict');
const { readForecastSolar } = require('../../../dist/domain/forecast/forecast-solar.js');
const { readSolcast } = require('../../../dist/domain/forecast/solcast.js');
const { readOpenMeteo } = require('../../../dist/domain/forecast/open-meteo.js');
const { archiveForecast, takePairs, solarByRecord } = require('../../../dist/domain/forecast/archive.js');
const { fitCalibration, evaluateCalibration, applyCalibration } = require('../../../dist/domain/forecast/calibration.js');
const { LocalTime } = require('../../../dist/domain/forecast/local-time.js');
const { ForecastSession } = require('../../../dist/domain/forecast/session.js');

const HOUR = 3600;
const DAY = 86400;
const UTC = new LocalTime('UTC');
const T = Date.UTC(2026, 9, 5) / 1000; // a UTC midnight

describe('forecast sources: reading the answers', function () {
  it('Forecast.Solar: a stamp ends its period; a sunrise stamp 45 minutes before the hour makes a 45-minute period; null is a gap', function () {
    const body = { result: { watt_hours_period: { [T + 5.25 * HOUR]: 0, [T + 6 * HOUR]: 300, [T + 7 * HOUR]: 1200, [T + 8 * HOUR]: null, [T + 9 * HOUR]: 'NaN', [T + 11 * HOUR]: 2000 } } };
    const read = readForecastSolar(body);
    assert.deepEqual(read.periods, [
      { start: T + 5.25 * HOUR, end: T + 6 * HOUR, power: 400 },
      { start: T + 6 * HOUR, end: T + 7 * HOUR, power: 1200 },
      { start: T + 10 * HOUR, end: T + 11 * HOUR, power: 2000 },
    ]);
    assert.equal(read.gaps, 2);
    assert.equal(readForecastSolar({ result: null }), undefined);
    assert.equal(readForecastSolar('<html>'), undefined);
  });

  it('Solcast: kW to W over period_end − period; P10/P90 kept; a null or NaN estimate is a gap', function () {
    const item = (end, kw, p10 = kw * 0.8, p90 = kw * 1.1) => ({ period_end: new Date(end * 1000).toISOString().replace('.000Z', '.0000000Z'), period: 'PT30M', pv_estimate: kw, pv_estimate10: p10, pv_estimate90: p90 });
    const read = readSolcast({ forecasts: [item(T + 1800, 1.5), item(T + 3600, null), item(T + 5400, Number.NaN), { ...item(T + 7200, 2), period: 'PT15M' }] });
    assert.deepEqual(read.periods, [
      { start: T, end: T + 1800, power: 1500, p10: 1200, p90: 1650 },
      { start: T + 6300, end: T + 7200, power: 2000, p10: 1600, p90: 2200 },
    ]);
    assert.equal(read.gaps, 2);
  });

  it('Open-Meteo: each value is the mean of the step before its time; W = irradiance × kWp × loss factor; a dawn below 0 is 0', function () {
    const settings = { resolutionMin: 60, lossFactor: 0.85, plane: { kwp: 5 } };
    const read = readOpenMeteo({ hourly: { time: [T + HOUR, T + 2 * HOUR, T + 3 * HOUR, T + 4 * HOUR], global_tilted_irradiance: [-1.5, 400, null, 800] } }, settings);
    assert.deepEqual(read.periods, [
      { start: T, end: T + HOUR, power: 0 },
      { start: T + HOUR, end: T + 2 * HOUR, power: 1700 },
      { start: T + 3 * HOUR, end: T + 4 * HOUR, power: 3400 },
    ]);
    assert.equal(read.gaps, 1);
    assert.equal(readOpenMeteo({ minutely_15: {} }, settings), undefined);
  });
});

describe('forecast calibration', function () {
  /** Days of hourly pairs: forecast a sun curve, measured `ratio` of it with a day's weather wobble. */
  function pairs(days, ratio, wobble = 0) {
    const out = [];
    for (let d = 0; d < days; d++) {
      const w = 1 + wobble * Math.sin(d * 2.3);
      for (let h = 6; h < 18; h++) {
        const forecast = 4000 * Math.sin(((h + 0.5 - 6) / 12) * Math.PI);
        out.push({ start: T + d * DAY + h * HOUR, end: T + d * DAY + (h + 1) * HOUR, day: d, hour: h, forecast, actual: forecast * ratio * w });
      }
    }
    return out;
  }

  it('learns a 20 % smaller array and halves the error a day, judged leave one day out', function () {
    const list = pairs(7, 0.8, 0.1);
    const model = fitCalibration(list);
    assert.ok(Math.abs(model.overall - 0.8) < 0.02, `overall ${model.overall}`);
    const report = evaluateCalibration(list);
    assert.equal(report.days, 7);
    assert.equal(report.applied, true);
    assert.ok(report.before.biasKwh > 5);
    assert.ok(report.after.maeKwh < report.before.maeKwh / 2, JSON.stringify(report));
    const [p] = applyCalibration(model, [{ start: T + 12 * HOUR, end: T + 13 * HOUR, power: 1000, p10: 800, p90: 1200 }], UTC);
    assert.ok(p.power > 750 && p.power < 850 && p.p10 < p.power && p.p90 > p.power);
  });

  it('needs 2 days to learn and 3 to be judged; a correction that does not lower the error is not applied', function () {
    assert.equal(fitCalibration(pairs(1, 0.8)), undefined);
    assert.equal(evaluateCalibration(pairs(2, 0.8)).after, undefined);
    assert.equal(evaluateCalibration(pairs(2, 0.8)).applied, false);
    // A true forecast with weather noise: nothing to correct.
    const report = evaluateCalibration(pairs(6, 1, 0.3));
    assert.ok(report.after.maeKwh >= report.before.maeKwh || report.applied);
    assert.equal(report.applied, report.after.maeKwh < report.before.maeKwh);
  });

  it('a shaded morning is learnt by hour of day', function () {
    const list = pairs(6, 1).map((p) => (p.hour < 10 ? { ...p, actual: p.forecast * 0.4 } : p));
    const model = fitCalibration(list);
    assert.ok(model.byHour[7] < 0.6 && model.byHour[14] > 0.9, JSON.stringify(model.byHour));
  });
});

describe('forecast archive and session', function () {
  it('keeps the last day-ahead forecast of each period, else the first of the day; pairs need every 5-minute record', function () {
    const archive = new Map();
    const period = (start, power) => ({ start, end: start + HOUR, power });
    archiveForecast(archive, [period(T + 10 * HOUR, 1000)], T - 6 * HOUR, UTC);
    archiveForecast(archive, [period(T + 10 * HOUR, 1500)], T - 2 * HOUR, UTC);
    archiveForecast(archive, [period(T + 10 * HOUR, 9999), period(T + 11 * HOUR, 2000)], T + 8 * HOUR, UTC);
    archiveForecast(archive, [period(T + 11 * HOUR, 7777), period(T + 5 * HOUR, 5)], T + 9 * HOUR, UTC);
    assert.deepEqual([...archive.values()].map((p) => [p.start - T, p.power, p.dayAhead]), [[10 * HOUR, 1500, true], [11 * HOUR, 2000, false]]);
    const entries = [];
    for (let t = T + 10 * HOUR; t < T + 12 * HOUR; t += 300) if (t !== T + 11.5 * HOUR) entries.push({ timestamp: t + 300, eReal: [0, -300 * 1200] });
    const records = solarByRecord(entries, 1);
    const pairs = takePairs(archive, records, T + DAY, UTC);
    assert.deepEqual(pairs.map((p) => [p.hour, p.forecast, p.actual]), [[10, 1500, 1200]], 'the sign is the channel\'s; the period with a missing record is dropped');
    assert.equal(archive.size, 0);
  });

  it('reads the solar channel once a day, half an hour after local midnight, at most a week back', function () {
    const s = new ForecastSession({ source: 'forecast.solar', timezone: 'UTC', calibrationDays: 14 });
    const day = (d, h) => T + d * DAY + h * HOUR;
    const sun = (d) => Array.from({ length: 10 }, (_, i) => ({ start: day(d, 8 + i), end: day(d, 9 + i), power: 1000 }));
    s.accept({ periods: [...sun(0), ...sun(1)], gaps: 0 }, day(-1, 20));
    assert.equal(s.actualsDue(day(1, 0.25)), undefined, 'not before the day settles');
    assert.deepEqual(s.actualsDue(day(1, 0.75)), { fromTs: day(0, 8), toTs: day(1, 0) });
    s.acceptActuals([], 1, { fromTs: day(0, 8), toTs: day(1, 0) });
    assert.equal(s.actualsDue(day(1, 20)), undefined, 'once a day');
    assert.deepEqual(s.actualsDue(day(2, 1)), { fromTs: day(1, 8), toTs: day(2, 0) }, "from the oldest period waiting");
    assert.deepEqual(s.kept().actualsUntil, day(1, 0));
    assert.deepEqual(new ForecastSession({ source: 'solcast', timezone: 'UTC' }, s.kept()).hasForecast, false, 'another source\'s forecast is not taken');
  });
});
