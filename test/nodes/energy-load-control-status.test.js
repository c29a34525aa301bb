'use strict';
// The load-control status names its power figure: no bare signed number ("-341 W · off") to puzzle over.
const assert = require('node:assert/strict');
const { statusOf } = require('../../dist/nodes/energy-load-control/report.js');
const messages = require('../../src/nodes/energy-load-control/locales/en-US/energy-load-control.json')['energy-load-control'].status;

/** The catalogue's words, filled as Node-RED fills them. */
const words = (key, values = {}) => messages[key].replace(/__(\w+)__/g, (_, name) => values[name]);
const evaluation = (signal) => ({ at: 0, signal, onAt: null, offAt: null, loadDraw: null, state: 'off', pending: false, stale: false, reason: 'noSurplus', holdLeftS: 0, outcomes: [], memory: {} });
const status = (mode, signal) => statusOf(evaluation(signal), { state: 'off' }, { mode, dryRun: false }, words).text;

describe('energy-load-control status', function () {
  it('surplus mode says surplus or deficit, not a signed figure', () => {
    assert.equal(status('surplus', -341), 'deficit 341 W · off · no surplus');
    assert.equal(status('surplus', 1250), 'surplus 1.3 kW · off · no surplus');
  });

  it('peak mode says whether the site imports or exports', () => {
    assert.equal(status('peak', 5200).split(' · ')[0], 'import 5.2 kW');
    assert.equal(status('peak', -800).split(' · ')[0], 'export 800 W');
  });

  it('threshold mode shows the measured power as its thresholds read it; no reading shows a dash', () => {
    assert.equal(status('threshold', -341).split(' · ')[0], '-341 W');
    assert.equal(status('surplus', null).split(' · ')[0], '–');
  });
});
