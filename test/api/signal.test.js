'use strict';
const assert = require('node:assert/strict');
const { lteSignalQuality, wifiSignalQuality, signalQualityLabel } = require('../../dist/api');

describe('signal quality tables (shared by client and simulator)', function () {
  it('LTE matrix corners and bands', () => {
    assert.equal(lteSignalQuality(-3, -79), 9);
    assert.equal(lteSignalQuality(-3, -113), 0);
    assert.equal(lteSignalQuality(-3, -111), 3);
    assert.equal(lteSignalQuality(-13, -86), 4);
    assert.equal(lteSignalQuality(-19, -70), 0);
    assert.equal(lteSignalQuality(-17, -82), 3);
    assert.equal(lteSignalQuality(undefined, -80), -1);
  });
  it('WiFi RSSI table and labels', () => {
    assert.deepEqual([-95, -91, -90, -81, -80, -76, -75, -66, -65, -56, -55, -51, -50, -41, -40, -30, -29].map(wifiSignalQuality),
      [0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 7, 8, 8, 9, 9, -1]);
    assert.deepEqual([-1, 0, 2, 3, 4, 5, 7, 8, 9].map(signalQualityLabel),
      ['Invalid or Unknown', 'Poor', 'Poor', 'Low', 'Low', 'Good', 'Good', 'Excellent', 'Excellent']);
  });
});
