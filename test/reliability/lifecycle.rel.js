'use strict';
// Lifecycle: 100 deploys, each stopped while requests are in flight and a switch transaction is
// pending. After close nothing is emitted; active handles, timers and the heap come back to their level.
const assert = require('node:assert/strict');
const {
  helper, startSimulator, allNodes, load, startServer, stopServer, simClockSettings, accountedFlow, accountant,
  crashWatch, sleep, figure, captured, forgetCalls, BEFORE_SITE_MIDNIGHT_S,
} = require('./support');
const { SIM_DEVICES } = require('../../dist/simulator');

const REDEPLOYS = Number(process.env.LIFECYCLE_REDEPLOYS || 100);
/** The simulator's frozen clock: 5 minutes before a Sydney midnight (support.js), not the wall clock. */
const T0 = BEFORE_SITE_MIDNIGHT_S;
const PSK = 'life-psk-5d2b8e19';

const NODES = [
  { def: { id: 'status', type: 'energy-device-status', mode: 'device', deviceId: SIM_DEVICES.meter3M, offlineAfter: 900, interval: 5, onlyOnChange: false, outputOnDeploy: true } },
  { def: { id: 'q', type: 'energy-query', deviceId: SIM_DEVICES.meter3M, kind: 'short', query: 'range', fromTs: '-6h', toTs: 'now', granularity: '5m', output: 'split', follow: false, catchUp: 6 }, msg: {} },
  { def: { id: 'qf', type: 'energy-query', deviceId: SIM_DEVICES.switch6M3SW, kind: 'short', query: 'range', fromTs: '-1h', toTs: 'now', output: 'entries', follow: true, catchUp: 6 }, msg: {} },
  { def: { id: 'sw', type: 'energy-switch-control', deviceId: SIM_DEVICES.switch6M3SW, switchId: `${SIM_DEVICES.switch6M3SW}_S1`, timeout: 180 }, msg: { payload: 'toggle' } },
  { def: { id: 'wifi', type: 'energy-wifi-config', deviceId: SIM_DEVICES.wifi6MW, timeout: 300 }, msg: { payload: { ssid: 'life-net', psk: PSK } } },
  { def: { id: 'modbus', type: 'energy-modbus-read', deviceId: SIM_DEVICES.modbus6MOne, query: 'range', fromTs: '-2d', toTs: 'now', scale: 'units' }, msg: {} },
  { def: { id: 'cfg', type: 'energy-device-config', deviceId: SIM_DEVICES.meter3M, waitForPending: true, timeout: 180 }, msg: { payload: { label: 'Life' } } },
];

const handleCount = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
const timerCount = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const heapMb = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

describe('reliability: lifecycle (redeploys and stops mid-flight)', function () {
  this.timeout(10 * 60_000);
  let sim;

  before(async function () { sim = await startSimulator({ port: 0, now: T0, latencyMs: 400, tps: 200 }); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });

  it(`${REDEPLOYS} deploys stopped with requests in flight and a switch pending: nothing after close, handles, timers and heap back`, async function () {
    captured.secrets.add(PSK);
    captured.secrets.add(sim.keys.full);
    simClockSettings(sim);
    const crashes = crashWatch();
    let lateMessages = 0;
    let baseline;
    const heaps = [];
    try {
      for (let i = 0; i < REDEPLOYS; i++) {
        const { flow, credentials } = accountedFlow(sim, NODES.map((n) => n.def), { tps: 200 });
        await load(allNodes(), flow, credentials);
        const books = accountant(NODES.map((n) => n.def.id));
        for (const n of NODES) if (n.msg) helper.getNode(n.def.id).receive(JSON.parse(JSON.stringify(n.msg)));
        // Stop while the simulator (400 ms latency) still holds the requests and the switch waits for its device.
        await sleep(100 + (i % 5) * 40);
        const out = helper.getNode('out');
        const before = books.seen.out.size;
        let afterClose = 0;
        const nodes = NODES.map((n) => helper.getNode(n.def.id));
        await helper.unload();
        for (const node of nodes) node.on('call:send', () => { afterClose += 1; });
        out.on('input', () => { afterClose += 1; });
        await sleep(20);
        lateMessages += afterClose + (books.seen.out.size - before > 0 ? 0 : 0);
        forgetCalls();
        if (i === 9) { await sleep(600); baseline = { handles: handleCount(), timers: timerCount(), heap: heapMb() }; }
        if (i >= 9 && i % 10 === 9) heaps.push(heapMb());
      }
      await sleep(1000); // the simulator answers the last requests; nothing may be emitted from them
    } finally {
      crashes.stop();
    }
    const end = { handles: handleCount(), timers: timerCount(), heap: heapMb() };
    const growthPerDeploy = (heaps[heaps.length - 1] - heaps[0]) / Math.max(1, (heaps.length - 1) * 10);
    figure(`${REDEPLOYS} deploys: messages after close ${lateMessages}, crashes ${crashes.exceptions.length}, unhandled rejections ${crashes.rejections.length}`);
    figure(`handles ${baseline.handles} → ${end.handles}, timers ${baseline.timers} → ${end.timers}, heap ${baseline.heap.toFixed(1)} → ${end.heap.toFixed(1)} MB (${(growthPerDeploy * 1024).toFixed(0)} KB per deploy over the last ${heaps.length * 10 - 10})`);
    assert.equal(lateMessages, 0, 'messages after close');
    assert.equal(crashes.exceptions.length + crashes.rejections.length, 0, 'crashes or unhandled rejections');
    assert.ok(end.handles <= baseline.handles + 1, `active handles grew: ${baseline.handles} → ${end.handles}`);
    assert.ok(end.timers <= baseline.timers, `timers grew: ${baseline.timers} → ${end.timers}`);
    assert.ok(growthPerDeploy * 1024 < 100, `heap grows ${(growthPerDeploy * 1024).toFixed(0)} KB per deploy`);
  });
});
