'use strict';
// Secrets, after every other suite: the API key, every PSK and the credentials credentials.rel.js registered
// (Amber key, database passwords and tokens, broker password) appear in no captured log line, status, output or
// Catch msg (scanned as they came, see support.js), nor in an exported flow.
const assert = require('node:assert/strict');
const { helper, startSimulator, allNodes, load, startServer, stopServer, accountedFlow, captured, capture, capturesScanned, captureLog, figure, simClockSettings, BEFORE_SITE_MIDNIGHT_S } = require('./support');
const { SIM_DEVICES } = require('../../dist/simulator');

describe('reliability: secrets (after all suites)', function () {
  let sim;
  before(async function () { sim = await startSimulator({ port: 0, now: BEFORE_SITE_MIDNIGHT_S }); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });

  it('no API key or PSK in any captured log, status, output, error or exported flow', async function () {
    const psk = 'export-psk-0b9f3c77';
    captured.secrets.add(psk);
    captured.secrets.add(sim.keys.full);
    simClockSettings(sim);
    const { flow, credentials } = accountedFlow(sim, [{ id: 'wifi', type: 'energy-wifi-config', deviceId: SIM_DEVICES.wifi6MW, timeout: 1 }]);
    await load(allNodes(), flow, { ...credentials, wifi: { password: psk } });
    // What an export carries: the deployed flow configuration (credentials are kept apart, encrypted).
    const deployed = helper._RED.nodes.getFlows ? helper._RED.nodes.getFlows() : flow;
    capture(deployed, 'exported flow');
    captureLog();
    await capturesScanned();
    figure(`secrets checked: ${captured.secrets.size} (API keys, PSKs, passwords and tokens) over ${captured.scanned} captured outputs, statuses, Catch msgs and log batches; leaks ${captured.leaks.length}`);
    for (const leak of captured.leaks.slice(0, 5)) figure(`  leak: ${leak}`);
    assert.equal(captured.leaks.length, 0);
  });
});
