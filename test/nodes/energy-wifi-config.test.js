'use strict';
const assert = require('node:assert/strict');
const {
  helper, startClockedSimulator, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey, until, TEST_NOW_S,
} = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');

const WIFI = SIM_DEVICES.wifi6MW;
// Frozen sim clock, nodes on it: the device applies a change only when a test lets it report.
const FROZEN_AT = TEST_NOW_S;
const PSK = 'Payload-Secret-7781';
const CREDENTIAL_PSK = 'Credential-Secret-4432';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('energy-wifi-config', function () {
  let sim;
  const nodes = [nodeFile('energy-api'), nodeFile('energy-wifi-config')];

  before(async function () {
    sim = await startClockedSimulator();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); });
  afterEach(async function () { await helper.unload(); });

  /** Everything the node produced, for the PSK scans. */
  let seen;

  async function setup(props = {}, password) {
    const api = apiConfig(sim);
    const flow = [
      api.node,
      { id: 'wifi', type: 'energy-wifi-config', api: 'api', deviceId: WIFI, timeout: 30, wires: [['out']], ...props },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: ['wifi'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    const credentials = { ...api.credentials, ...(password ? { wifi: { password } } : {}) };
    await load(nodes, flow, credentials);
    const ctx = { node: helper.getNode('wifi'), out: helper.getNode('out'), caught: helper.getNode('caught'), statuses: [], outputs: [] };
    seen = ctx;
    ctx.node.on('call:status', (call) => ctx.statuses.push(call.args[0]));
    ctx.out.on('input', (msg) => ctx.outputs.push(msg));
    ctx.caught.on('input', (msg) => ctx.outputs.push(msg));
    return ctx;
  }

  afterEach(function () {
    if (!seen) return;
    for (const secret of [PSK, CREDENTIAL_PSK]) assertNoKey(secret, seen.outputs, seen.statuses, loggedText());
    // The scan itself must be able to fail.
    assert.throws(() => assertNoKey(PSK, { payload: { psk: PSK } }));
    seen = undefined;
  });

  const patches = () => sim.control.log().filter((r) => r.method === 'PATCH');
  const deviceGets = () => sim.control.log().filter((r) => r.method === 'GET' && r.path.endsWith(`/devices/${WIFI}`));

  const patched = () => until(() => patches().length > 0 && patches()[0].status !== 0, 5000, 'the PATCH');

  /** The device reports once the PATCH is answered; then the 5 s poll spacing passes on the nodes' clock. */
  async function reportAfterPatch() {
    await patched();
    sim.control.reportNow(WIFI);
    sim.control.setClock({ advance: 5 });
  }

  async function expectRefusal(ctx, msg) {
    ctx.node.receive(msg);
    const caught = await nextMessage(ctx.caught);
    await sleep(50);
    assert.equal(ctx.outputs.length, 1, 'only the Catch node got the msg');
    ctx.outputs.length = 0;
    assert.equal(patches().length, 0, 'refused before any write');
    assert.equal(ctx.statuses[ctx.statuses.length - 1].fill, 'red');
    assert.equal(JSON.stringify(caught).includes('"psk"'), false, 'the caught msg carries no psk');
    return caught;
  }

  it('sets the network, tracks comms.wifi.pending until the device applies it, never emitting the PSK', async function () {
    const ctx = await setup();
    ctx.node.receive({ payload: { ssid: 'Workshop', psk: PSK } });
    await reportAfterPatch();
    const msg = await nextMessage(ctx.out, 15000);
    assert.deepEqual(msg.payload, { ssid: 'Workshop', pskUpdatedAt: FROZEN_AT, applied: true, wifiOff: false });
    assert.equal(msg.deviceId, WIFI);
    assert.equal(msg.device.comms.wifi.ssid, 'Workshop');
    assert.equal(msg.device.comms.wifi.pending, undefined);
    assert.equal(patches().length, 1);
    assert.equal(deviceGets().length, 2, 'one read to validate the PATCH, one poll after the 5 s spacing');
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'green', shape: 'dot', text: 'energy-wifi-config.status.applied' });
  });

  it('turns WiFi off with an empty ssid and psk', async function () {
    const ctx = await setup();
    ctx.node.receive({ payload: { ssid: '', psk: '' } });
    await reportAfterPatch();
    const msg = await nextMessage(ctx.out, 15000);
    assert.deepEqual(msg.payload, { ssid: '', pskUpdatedAt: FROZEN_AT, applied: true, wifiOff: true });
    assert.equal(msg.device.comms.wifi.ssid, '');
    assert.equal(msg.device.comms.lastHeardVia, 'cellular');
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'green', shape: 'dot', text: 'energy-wifi-config.status.wifiOff' });
  });

  it('uses the node\'s password credential when msg.payload has no psk; a timeout gives applied: false, not an error', async function () {
    const ctx = await setup({ timeout: 2 }, CREDENTIAL_PSK);
    ctx.node.receive({ payload: { ssid: 'Guest' } });
    // The wait (and its deadline) begins with the "waiting" status: only then may the clock move past it.
    await until(() => ctx.statuses.some((s) => s.text.endsWith('common.status.waiting')), 10000, 'the wait');
    await sleep(100);
    assert.equal(ctx.outputs.length, 0, 'waits while the timeout has not passed on the nodes\' clock');
    sim.control.setClock({ advance: 3 });
    const msg = await nextMessage(ctx.out, 6000);
    assert.deepEqual(msg.payload, { ssid: 'Guest', pskUpdatedAt: FROZEN_AT, applied: false, wifiOff: false });
    assert.deepEqual(msg.device.comms.wifi.pending, { ssid: 'Guest', pskUpdatedAt: FROZEN_AT });
    assert.equal(patches().length, 1);
    assert.deepEqual(ctx.statuses[ctx.statuses.length - 1], { fill: 'yellow', shape: 'ring', text: 'energy-wifi-config.status.notApplied' });
    // The simulator accepted the credential as the PSK: once the device reports, the change is applied.
    sim.control.reportNow(WIFI);
    const res = await fetch(`${sim.baseUrl}/devices/${WIFI}`, { headers: { Authorization: `Bearer ${sim.keys.full}` } });
    assert.equal((await res.json()).comms.wifi.ssid, 'Guest');
  });

  it('takes a 64-digit hexadecimal key (the WPA2 key itself) as well as a passphrase', async function () {
    const ctx = await setup();
    const hexKey = '0123456789abcdefABCDEF0123456789abcdef0123456789ABCDEF0123456789';
    ctx.node.receive({ payload: { ssid: 'Hex', psk: hexKey } });
    await until(() => patches().length === 1 && patches()[0].status !== 0, 10000, 'the PATCH');
    assert.equal(patches()[0].status, 200, 'the simulator takes it as the service is documented to (no rule narrows WPA2)');
    assert.equal(patches()[0].body.comms.wifi.psk.length, 64);
    for (const secret of [hexKey]) assertNoKey(secret, ctx.statuses, loggedText());
  });

  it('refuses models without WiFi settings and old firmware before any write', async function () {
    const ctx = await setup();
    let caught = await expectRefusal(ctx, { payload: { ssid: 'Net', psk: PSK }, deviceId: SIM_DEVICES.meter3M });
    assert.match(caught.error.message, /only on the 6MW and 6MW-CER: device B300000000001 is a 3M/);
    assert.equal(caught.apiError.code, 'INVALID_REQUEST');
    caught = await expectRefusal(ctx, { payload: { ssid: 'Net', psk: PSK }, deviceId: SIM_DEVICES.switch6M3SW });
    assert.match(caught.error.message, /is a 6M\+3SW/);
    caught = await expectRefusal(ctx, { payload: { ssid: 'Net', psk: PSK }, deviceId: SIM_DEVICES.cer6MWCER });
    assert.match(caught.error.message, /firmware 0\.13\.1 or later: device D6C0000000006 has 0\.12\.1/);
  });

  it('counts the SSID in UTF-8 bytes: 32 are sent, 33 are refused before any request, named by the limit and the count', async function () {
    const ctx = await setup();
    // 📶 takes 4 bytes in UTF-8, é 2: 8 × 📶 is 32 bytes, 32 × é is 64.
    const refusals = [['📶'.repeat(8) + 'x', 33], ['📶'.repeat(9), 36], ['é'.repeat(32), 64]];
    for (const [ssid, bytes] of refusals) {
      const caught = await expectRefusal(ctx, { payload: { ssid, psk: PSK } });
      assert.match(caught.error.message, new RegExp(`msg\\.payload\\.ssid must be at most 32 bytes in UTF-8 .*: this one has ${bytes} bytes`));
      assert.equal(caught.apiError.code, 'INVALID_REQUEST');
    }
    assert.equal(deviceGets().length, 0, 'refused before the device is read');
    ctx.node.receive({ payload: { ssid: '📶'.repeat(8), psk: PSK } });
    await until(() => patches().length === 1 && patches()[0].status !== 0, 10000, 'the PATCH');
    assert.equal(patches()[0].status, 200);
    assert.equal(patches()[0].body.comms.wifi.ssid, '📶'.repeat(8));
  });

  it('refuses bad payloads with a clear error and without echoing the PSK', async function () {
    const ctx = await setup();
    const refusals = [
      [{ payload: { ssid: 'Net' } }, /no PSK for network "Net"/],
      [{ payload: { ssid: 'Net', psk: 'short' } }, /8 to 63 printable ASCII characters/],
      [{ payload: { ssid: 'Net', psk: 'Grüße-äöüß-Netz' } }, /8 to 63 printable ASCII characters \(codes 32 to 126, so no ä, ö, ü, ß .*\), or a key of exactly 64 hexadecimal digits/],
      [{ payload: { ssid: 'Net', psk: 'f'.repeat(63) + 'g' } }, /exactly 64 hexadecimal digits/],
      [{ payload: { ssid: '', psk: PSK } }, /to turn WiFi off send both ssid and psk as empty strings/],
      [{ payload: { ssid: 'x'.repeat(33), psk: PSK } }, /msg\.payload\.ssid must be at most 32 bytes in UTF-8 .*: this one has 33 bytes/],
      [{ payload: 'Net' }, /msg.payload must be an object/],
    ];
    for (const [msg, pattern] of refusals) {
      const psk = msg.payload && msg.payload.psk;
      const caught = await expectRefusal(ctx, msg);
      assert.match(caught.error.message, pattern);
      if (psk) assert.ok(!JSON.stringify(caught).includes(psk), 'the PSK is not echoed');
    }
    assert.equal(deviceGets().length, 0, 'payload errors need no request at all');
  });
});
