'use strict';
// Issue 9, "restart keeps the hold time": a load-control node's state (last change, override and its
// end) comes back from Node-RED's persistent context store (localfilesystem) after a real restart:
// flows stopped, the store closed to disk, the node modules loaded afresh (so the in-process copy the
// node keeps for redeploys is gone), the store reopened from its files, the flows started again.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { helper, apiConfig, load, nodeFile, useSimClock } = require('../support/env');
const { DEV, useLoadControlSuite } = require('./energy-load-control-fixtures');

const T0 = Date.UTC(2026, 0, 15, 2, 0, 0) / 1000;
const S3 = `${DEV}_S3`;
const ALWAYS_ON = { mode: 'threshold', onAbove: -1e6, offBelow: -1e6 - 1 };
const ALWAYS_OFF = { mode: 'threshold', onAbove: 1e6, offBelow: 1e6 };
const MODULE_DIR = `${path.sep}dist${path.sep}nodes${path.sep}energy-load-control${path.sep}`;

/** The load-control module as a fresh process loads it: nothing kept in memory from an earlier start. */
function freshLoadControl() {
  for (const file of Object.keys(require.cache)) if (file.includes(MODULE_DIR)) delete require.cache[file];
  return nodeFile('energy-load-control');
}

describe('energy-load-control restart with a persistent context store (Node-RED, simulator clock)', function () {
  this.timeout(30000);
  const f = useLoadControlSuite(T0);
  const contexts = helper._context;
  let dir;
  let withStore;

  const lc = (props) => ({
    id: 'a', type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S3, interval: 0, window: 120,
    minOn: 0, minOff: 0, staleAfter: 3600, ...props,
  });

  function flowOf(loadNode) {
    f.takeSerial();
    const api = apiConfig(f.sim, f.sim.keys.full, { tps: 100 });
    const flow = [api.node, { ...loadNode, id: `a-${f.serial}`, wires: [['d-a'], ['e-a']] }, { id: 'd-a', type: 'helper' }, { id: 'e-a', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' }];
    return { flow, credentials: api.credentials };
  }

  /**
   * Starts Node-RED as its own start does: stores loaded before any node is created. helper.load()
   * re-initialises the context module without loading the stores, so the flows are started once more
   * after loading them (the first, storeless start sends nothing: the nodes evaluate only on a msg).
   */
  async function start({ flow, credentials }) {
    await load([nodeFile('energy-api'), freshLoadControl()], flow, credentials);
    await contexts.load();
    await helper._redNodes.stopFlows();
    await helper._redNodes.startFlows();
    return f.watch(flow, ['a']);
  }

  /** Stops the process: flows stopped, the store flushed and closed, the runtime unloaded. */
  async function stop() {
    await helper._redNodes.stopFlows();
    await contexts.close();
    contexts.init(helper._settings); // unload's clean must not reach the files a restart reads
    await helper.unload();
  }

  function useStore(enabled) {
    withStore = enabled;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'energy-load-control-ctx-'));
    useSimClock(f.sim, enabled ? { contextStorage: { default: { module: 'localfilesystem', config: { dir, flushInterval: 0 } } } } : {});
  }

  afterEach(async function () {
    await helper.unload();
    await contexts.close();
    useSimClock(f.sim);
    contexts.init(helper._settings);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Switches on at T0 with minOn 600, restarts at T0 + 60 with the rule turned to off; returns the PATCH log. */
  async function holdAcrossRestart() {
    const first = flowOf(lc({ ...ALWAYS_ON, minOn: 600 }));
    let ctx = await start(first);
    if (withStore) assert.equal(contexts.listStores().default, 'default');
    await f.tick(ctx);
    f.step(30);
    await f.tick(ctx);
    assert.equal(ctx.decisions.a[1].outcome, 'confirmed');
    await stop();
    f.step(30);
    const flow = first.flow.map((n) => (n.id === ctx.real.a ? { ...n, ...ALWAYS_OFF } : n));
    ctx = await start({ flow, credentials: first.credentials });
    const reasons = [];
    for (let t = 60; t <= 660; t += 30) {
      await f.tick(ctx);
      reasons.push([t, f.lastEval(ctx, 'a').reason]);
      f.step(30);
    }
    return { patchLog: f.patchLog(), reasons };
  }

  it('keeps minOn across a restart: no PATCH before the hold ends, the off PATCH 600 s after the on, to the second', async function () {
    useStore(true);
    const { patchLog, reasons } = await holdAcrossRestart();
    assert.deepEqual(patchLog, [
      { simNow: T0, switchId: S3, state: 'closed' },
      { simNow: T0 + 600, switchId: S3, state: 'open' },
    ]);
    for (const [t, reason] of reasons) if (t < 600) assert.equal(reason, 'minOn', `held at +${t} s`);
    assert.deepEqual(reasons.find(([t]) => t === 570), [570, 'minOn'], 'held one evaluation before the end');
    const files = fs.readdirSync(dir, { recursive: true }).filter((name) => String(name).endsWith('.json'));
    assert.ok(files.some((name) => fs.readFileSync(path.join(dir, String(name)), 'utf8').includes('energyLoadControl')), 'the state is on disk');
  });

  it('control: without a persistent store the same restart forgets the hold (the module is really fresh)', async function () {
    useStore(false);
    const { patchLog } = await holdAcrossRestart();
    assert.deepEqual(patchLog.slice(0, 2), [
      { simNow: T0, switchId: S3, state: 'closed' },
      { simNow: T0 + 60, switchId: S3, state: 'open' },
    ]);
  });

  it('keeps an override and its end across a restart', async function () {
    useStore(true);
    const first = flowOf(lc(ALWAYS_OFF));
    let ctx = await start(first);
    await f.tick(ctx);
    await f.tick(ctx, { payload: 'on', duration: 120 });
    const until = f.lastEval(ctx, 'a').override.until;
    assert.equal(until, (T0 + 120) * 1000);
    f.step(30);
    await f.tick(ctx);
    await stop();
    f.step(30);
    ctx = await start(first);
    await f.tick(ctx);
    assert.deepEqual(f.lastEval(ctx, 'a').override, { state: 'on', until }, 'the override and its end came back');
    assert.match(f.lastStatus(ctx, 'a').text, /status\.override 1m00/);
    f.step(30);
    await f.tick(ctx);
    f.step(30);
    await f.tick(ctx);
    assert.deepEqual(f.patchLog(), [
      { simNow: T0, switchId: S3, state: 'closed' },
      { simNow: T0 + 120, switchId: S3, state: 'open' },
    ]);
    assert.equal(f.lastEval(ctx, 'a').override, null);
  });
});
