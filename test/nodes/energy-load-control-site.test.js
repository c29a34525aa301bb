'use strict';
// energy-load-control on the simulator's solar home (D630000000002: Grid = hot water + pool pump + EV +
// house − solar; the switched loads draw only while closed), in Node-RED on the simulator's clock,
// stepped 30 or 60 s per evaluation (see energy-load-control-fixtures.js). A spring Monday in Sydney.
const assert = require('node:assert/strict');
const { EnergyApiClient } = require('../../dist/api');
const { DEV, useLoadControlSuite } = require('./energy-load-control-fixtures');

const DAY0 = Date.parse('2026-10-05T00:00:00+11:00') / 1000;
const at = (hours) => DAY0 + hours * 3600;
const S = (n) => `${DEV}_S${n}`;
const HOT_WATER = { switchId: S(1), loadChannel: '3', loadPower: 3600 };
const POOL = { switchId: S(2), loadChannel: '4', loadPower: 1100 };
const EV = { switchId: S(3), loadChannel: '5', loadPower: 7200 };

describe('energy-load-control on the solar home (Node-RED, stepped simulator clock)', function () {
  this.timeout(120000);
  const f = useLoadControlSuite(DAY0);
  const lc = (id, props) => ({
    id, type: 'energy-load-control', api: 'api', deviceId: DEV, mode: 'surplus', interval: 0, window: 300, margin: 200,
    minOn: 0, minOff: 0, staleAfter: 900, ...props,
  });
  /** The node's decisions that sent a PATCH. */
  const sent = (ctx, id) => ctx.decisions[id].filter((m) => m.outcome === 'sent');

  it('surplus counting the load\'s own draw does not ping-pong; the naive export comparison flaps on the same site and hours', async function () {
    f.sim.control.setClock({ now: at(10) });
    const ctx = await f.setup(undefined, lc('hw', HOT_WATER));
    await f.run(ctx, at(11.5), 60);
    const counted = f.patches().length;
    assert.equal(counted, 1, `the hot water switched on once and stayed on (${counted} PATCHes)`);
    assert.equal(sent(ctx, 'hw')[0].payload, 'on');
    assert.ok(ctx.evaluations.hw.some((m) => m.loadDraw > 3000), 'it really drew its 3.6 kW');

    // The same site and hours again, switched by the naive rule: the averaged export against the same thresholds.
    f.sim.control.reset();
    f.sim.control.setLimits({ tps: 100 });
    f.sim.control.setClock({ now: at(10) });
    const client = new EnergyApiClient({ baseUrl: f.sim.baseUrl, apiKey: f.sim.keys.full, tps: 100, now: () => f.sim.control.now() * 1000 });
    try {
      let state = 'open';
      for (let t = at(10); t <= at(11.5); t += 60) {
        f.sim.control.setClock({ now: t });
        const device = await client.getDevice(DEV);
        const sw = device.switches[0];
        state = sw.state;
        if (sw.pending?.state) continue;
        const entries = await client.getShortEnergy(DEV, { fromTs: t - 299, toTs: t + 1 });
        const exported = -entries.reduce((a, e) => a + e.eReal[0], 0) / entries.reduce((a, e) => a + e.duration, 0);
        const want = state === 'open' && exported >= 3600 + 200 ? 'closed' : state === 'closed' && exported < 3600 - 200 ? 'open' : undefined;
        if (want) await client.updateDevice(DEV, { switches: [{ id: S(1), state: want }] });
      }
    } finally {
      await client.close();
    }
    const naive = f.patches().length;
    assert.ok(naive >= 6, `the naive rule switched ${naive} times in the same 90 minutes`);
  });

  it('minOn and minOff are honoured to the second in the simulator\'s PATCH log, and maxOff forces the load on', async function () {
    // The afternoon: the surplus fades with passing clouds, so the pool pump wants to change before its holds end.
    f.sim.control.setClock({ now: at(14) });
    const ctx = await f.setup(undefined, lc('pool', { ...POOL, minOn: 1800, minOff: 900, window: 120, margin: 0 }), lc('hw', { ...HOT_WATER, priority: 2, maxOff: 3600 * 2, minOn: 600, minOff: 300 }));
    await f.run(ctx, at(18), 60);
    const log = f.patchLog();
    assert.equal(log.length, sent(ctx, 'pool').length + sent(ctx, 'hw').length, 'every PATCH is a decision of the two nodes');
    const pool = log.filter((p) => p.switchId === S(2));
    assert.ok(pool.length >= 3, `the pool pump switched ${pool.length} times`);
    assert.deepEqual(pool.map((p) => p.simNow * 1000), sent(ctx, 'pool').map((m) => m.timestamp), 'the PATCHes went at the decisions\' seconds');
    let exact = 0;
    for (let i = 1; i < pool.length; i += 1) {
      const held = pool[i].simNow - pool[i - 1].simNow;
      const min = pool[i - 1].state === 'closed' ? 1800 : 900;
      assert.ok(held >= min, `pool pump ${pool[i - 1].state} held ${held} s < ${min} s`);
      if (held === min) exact += 1;
    }
    assert.ok(exact >= 1, 'at least once the change came the second the hold ended');
    // Hot water: off since the first evaluation at 14:00; maxOff 2 h forces it on at 16:00 exactly unless surplus came first.
    const hw = log.filter((p) => p.switchId === S(1));
    assert.equal(hw[0].state, 'closed');
    if (sent(ctx, 'hw')[0].reason === 'maxOff') assert.equal(hw[0].simNow, at(16));
    else assert.ok(hw[0].simNow <= at(16), `on by surplus before maxOff: ${sent(ctx, 'hw')[0].reason}`);
    for (let i = 1; i < hw.length; i += 1) assert.ok(hw[i].simNow - hw[i - 1].simNow >= (hw[i - 1].state === 'closed' ? 600 : 300));
  });

  it('three loads share one read per evaluation; surplus goes by priority and a full tank holds none', async function () {
    // The tank carries its state from day to day: the hot water has been off since the simulator started
    // (midnight), so at 09:00 it still misses last evening's draw as well as this morning's, and 3.6 kW
    // from about 11:00 fills it at about 13:30. The run goes on past that to see a full tank.
    const end = at(15);
    f.sim.control.setClock({ now: at(9) });
    const ctx = await f.setup(undefined,
      lc('hw', { ...HOT_WATER, priority: 1, minOn: 600, minOff: 600 }),
      lc('pool', { ...POOL, priority: 2, minOn: 900, minOff: 900 }),
      lc('ev', { ...EV, priority: 3, minOn: 900, minOff: 900 }));
    await f.run(ctx, end, 60);
    const evaluations = ctx.evaluations.hw.length;
    assert.equal(f.energyReads().length, evaluations, 'one short-energy read per evaluation for three loads');
    const statusReads = (end - at(9)) / 300 + 1 + 2 * f.patches().length;
    assert.ok(f.deviceReads().length <= statusReads, `${f.deviceReads().length} status reads: every 5 min and while pending`);
    // 09:00: 2 kW of surplus, too little for the hot water (3.6 kW + margin), so the pool pump takes it; once the
    // export plus the pool pump's draw reaches 3.8 kW, priority 1 takes it and the pool pump is shed in the same evaluation.
    const hwOn = sent(ctx, 'hw').find((m) => m.payload === 'on');
    assert.ok(hwOn, 'the hot water got the surplus');
    assert.equal(hwOn.reason, 'surplus');
    const poolOff = sent(ctx, 'pool').find((m) => m.payload === 'off');
    assert.equal(poolOff.timestamp, hwOn.timestamp, 'the pool pump gave way at the same evaluation');
    assert.ok(sent(ctx, 'pool')[0].timestamp < hwOn.timestamp && sent(ctx, 'pool')[0].payload === 'on');
    // Whenever the pool pump was switched on, the hot water was either on already or could not use the surplus.
    for (const d of sent(ctx, 'pool').filter((m) => m.payload === 'on')) {
      const hwThen = ctx.evaluations.hw.find((m) => m.timestamp === d.timestamp);
      assert.ok(hwThen.state === 'on' || hwThen.signal < hwThen.onAt, `pool pump on at ${d.timestamp} while the hot water wanted the surplus`);
    }
    const satisfied = ctx.evaluations.hw.filter((m, i) => m.state === 'on' && m.loadDraw < 50 && ctx.evaluations.pool[i].state === 'on');
    assert.ok(satisfied.length > 0, 'the pool pump ran on surplus while the hot water was on with a full tank');
    assert.equal(sent(ctx, 'ev').length, 0, 'the 7.2 kW charger never had the surplus');
  });
});
