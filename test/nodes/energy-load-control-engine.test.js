'use strict';
// The decision engine as pure code, on hand-built short-energy entries (no Node-RED, no simulator).
const assert = require('node:assert/strict');
const { evaluateGroup } = require('../../dist/domain/site/group');
const { averagePower, channelIndex } = require('../../dist/domain/site/signal');
const { parseCommand } = require('../../dist/nodes/energy-load-control/command');
const { parseDef, resolveSettings } = require('../../dist/nodes/energy-load-control/settings');

const T0 = 1_767_225_600_000; // node-clock ms, 2026-01-01T00:00Z
const S = 1000;

function settings(extra = {}) {
  return {
    mode: 'surplus', channels: [0], loadChannel: undefined, loadPower: 0, onAbove: 0, offBelow: 0, margin: 200, limit: 0,
    windowS: 120, minOnS: 0, minOffS: 0, maxOffS: 0, priority: 1, staleAfterS: 600, failSafe: 'hold', dryRun: false, timeoutS: 180,
    ...extra,
  };
}

/** One 30 s entry ending at t (ms) with the given watts per channel. */
const entry = (t, watts) => ({ timestamp: t / 1000, duration: 30, eReal: watts.map((w) => Math.round(w * 30)) });

/**
 * A tiny site: channel 0 = grid (import positive) = house + loads − solar; channel 1.. = each load.
 * Each step of 30 s: entries are written, the group decides, a change takes effect at the next step.
 */
function runSite({ members, solar, house = () => 500, draws, steps, start = T0, rule = evaluateGroup }) {
  const memories = new Map(members.map((m) => [m.id, { state: 'off' }]));
  const actual = new Map(members.map((m) => [m.id, 'off']));
  const entries = [];
  const switches = [];
  for (let i = 1; i <= steps; i += 1) {
    const t = start + i * 30 * S;
    const loadW = members.map((m, k) => (actual.get(m.id) === 'on' ? draws[k](t) : 0));
    entries.push(entry(t, [house(t) + loadW.reduce((a, b) => a + b, 0) - solar(t), ...loadW]));
    const inputs = members.map((m) => ({ id: m.id, settings: m.settings, memory: memories.get(m.id), reading: { state: actual.get(m.id) } }));
    const out = rule(inputs, { entries, startedAt: start }, t);
    for (const m of members) {
      const ev = out.get(m.id);
      let memory = ev.memory;
      if (ev.switchTo) {
        switches.push({ id: m.id, to: ev.switchTo, at: t, reason: ev.reason });
        actual.set(m.id, ev.switchTo);
        memory = { ...memory, state: ev.switchTo, since: t };
      }
      memories.set(m.id, memory);
    }
  }
  return { switches, memories };
}

describe('energy-load-control engine (pure)', function () {
  it('averages power as the sum of energy over the sum of durations, skipping missing channels', function () {
    const entries = [
      { timestamp: 30, duration: 30, eReal: [30000, 0] },
      { timestamp: 90, duration: 60, eReal: [30000, 600] },
      { timestamp: 120, duration: 30, eReal: [null, 0] },
    ];
    assert.equal(averagePower(entries, [0]), 60000 / 90);
    assert.equal(averagePower(entries, [0, 1]), 60600 / 90);
    assert.equal(averagePower([], [0]), null);
    assert.equal(channelIndex('D630000000002', 'D630000000002_C3'), 2);
    assert.equal(channelIndex('D630000000002', '4'), 3);
    assert.equal(channelIndex('D630000000002', 'D1230000000002_C3'), null);
  });

  it('threshold: on at or above onAbove, off below offBelow, steady in between', function () {
    const s = settings({ mode: 'threshold', onAbove: 1000, offBelow: 800 });
    const at = T0 + 300 * S;
    const decideAt = (w, state) => evaluateGroup([{ id: 'a', settings: s, memory: { state } }], { entries: [entry(at, [w])], startedAt: T0 }, at).get('a');
    assert.equal(decideAt(1000, 'off').switchTo, 'on');
    assert.equal(decideAt(900, 'off').switchTo, undefined);
    assert.equal(decideAt(900, 'on').switchTo, undefined);
    assert.equal(decideAt(799, 'on').switchTo, 'off');
    assert.equal(decideAt(799, 'on').reason, 'offBelow');
  });

  it('surplus counting the load\'s own draw does not ping-pong; the naive export comparison flaps on the same site', function () {
    const solar = () => 3000; // 2500 W export before the 2000 W load runs, 500 W after
    const draws = [() => 2000];
    const counted = runSite({ members: [{ id: 'a', settings: settings({ loadChannel: 1, loadPower: 2000 }) }], solar, draws, steps: 60 });
    assert.deepEqual(counted.switches.map((s) => s.to), ['on']);
    // Naive: the same thresholds (load power ± margin) against the averaged export alone.
    const naiveRule = (inputs, site, t) => new Map(inputs.map(({ id, settings: s, memory }) => {
      const exported = -averagePower(site.entries.filter((e) => e.timestamp > t / 1000 - s.windowS), [0]);
      let switchTo;
      if (memory.state === 'off' && exported >= s.loadPower + s.margin) switchTo = 'on';
      if (memory.state === 'on' && exported < s.loadPower - s.margin) switchTo = 'off';
      return [id, { switchTo, memory, reason: 'naive' }];
    }));
    const naive = runSite({ members: [{ id: 'a', settings: settings({ loadPower: 2000 }) }], solar, draws, steps: 60, rule: naiveRule });
    assert.ok(naive.switches.length >= 6, `naive switched ${naive.switches.length} times`);
  });

  it('minOn and minOff hold each state; maxOff forces the load on', function () {
    const s = settings({ loadChannel: 1, loadPower: 2000, minOnS: 600, minOffS: 900, windowS: 60 });
    // Surplus for 10 min, then none for 20 min, then surplus again.
    const solar = (t) => ((t - T0) / S < 600 || (t - T0) / S >= 1800 ? 3000 : 0);
    const run = runSite({ members: [{ id: 'a', settings: s }], solar, draws: [() => 2000], steps: 100 });
    const times = run.switches.map((x) => ({ to: x.to, s: (x.at - T0) / S }));
    for (let i = 1; i < times.length; i += 1) {
      const held = times[i].s - times[i - 1].s;
      assert.ok(held >= (times[i - 1].to === 'on' ? 600 : 900), `held ${times[i - 1].to} only ${held} s`);
    }
    assert.deepEqual(times.slice(0, 3).map((x) => x.to), ['on', 'off', 'on']);
    assert.equal(times[1].s, 630, 'off as soon as minOn allows (surplus gone at 600 s, on since 30 s)');
    const forced = runSite({ members: [{ id: 'a', settings: settings({ loadPower: 2000, maxOffS: 3600, minOnS: 1800 }) }], solar: () => 0, draws: [() => 2000], steps: 200 });
    assert.equal(forced.switches[0].reason, 'maxOff');
    assert.equal((forced.switches[0].at - T0) / S, 30 + 3600, 'maxOff after the load was first seen off');
  });

  it('nothing is switched while pending; a timeout is reported and the next decision retries; a change made elsewhere is adopted', function () {
    const s = settings({ mode: 'threshold', onAbove: 1000, offBelow: 800, timeoutS: 180 });
    const site = (t) => ({ entries: [entry(t, [1500])], startedAt: T0 });
    const pending = { target: 'on', at: T0, reason: 'onAbove', signal: 1500 };
    let ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'off', pending }, reading: { state: 'off', pending: 'on' } }], site(T0 + 60 * S), T0 + 60 * S).get('a');
    assert.equal(ev.reason, 'pending');
    assert.equal(ev.switchTo, undefined);
    ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'off', pending }, reading: { state: 'off' } }], site(T0 + 180 * S), T0 + 180 * S).get('a');
    assert.deepEqual(ev.outcomes.map((o) => o.kind), ['timedOut']);
    assert.equal(ev.switchTo, 'on', 'retried at the next decision');
    ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'off', pending }, reading: { state: 'on' } }], site(T0 + 30 * S), T0 + 30 * S).get('a');
    assert.deepEqual(ev.outcomes.map((o) => [o.kind, o.afterS]), [['confirmed', 30]]);
    assert.equal(ev.memory.since, T0, 'holds count from the PATCH');
    // Someone closed it elsewhere: adopted, the hold starts now, not fought.
    const low = { entries: [entry(T0, [0])], startedAt: T0 };
    ev = evaluateGroup([{ id: 'a', settings: { ...s, minOnS: 300 }, memory: { state: 'off' }, reading: { state: 'on' } }], low, T0).get('a');
    assert.deepEqual(ev.outcomes, [{ kind: 'adopted', state: 'on' }]);
    assert.equal(ev.switchTo, undefined);
    assert.equal(ev.reason, 'minOn');
  });

  it('what the help says: an adopted change lasts Min on from when it was noticed; a forced run lasts Min on; a load channel alone counts 0 W until the load has run', function () {
    // Switched on elsewhere, noticed at T0 + 60 s, no surplus: kept until minOn (300 s) from then, off at once after.
    const s = settings({ loadPower: 1000, minOnS: 300 });
    const none = (t) => ({ entries: [entry(t, [500])], startedAt: T0 });
    let memory = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'off', since: T0 - 3600 * S }, reading: { state: 'on' } }], none(T0 + 60 * S), T0 + 60 * S).get('a').memory;
    const at = (seconds) => evaluateGroup([{ id: 'a', settings: s, memory }], none(T0 + seconds * S), T0 + seconds * S).get('a');
    assert.equal(at(359).reason, 'minOn');
    assert.equal(at(360).switchTo, 'off');
    assert.equal(at(360).reason, 'noSurplus');
    // maxOff forces a run; with no surplus it lasts exactly minOn (1800 s), then the rule switches it off.
    const forced = runSite({ members: [{ id: 'a', settings: settings({ loadPower: 2000, maxOffS: 3600, minOnS: 1800 }) }], solar: () => 0, draws: [() => 2000], steps: 200 });
    assert.deepEqual(forced.switches.slice(0, 2).map((x) => [x.to, x.reason, (x.at - T0) / S]), [['on', 'maxOff', 3630], ['off', 'noSurplus', 3630 + 1800]]);
    // Load channel set, Load power 0, never run: a surplus of just the margin (200 W) switches on a load that draws 2 kW.
    const unknown = settings({ loadChannel: 1, loadPower: 0, margin: 200 });
    memory = { state: 'off' };
    const exportW = (w) => ({ entries: [entry(T0, [-w, 0])], startedAt: T0 });
    assert.equal(evaluateGroup([{ id: 'a', settings: unknown, memory }], exportW(200), T0).get('a').switchTo, 'on');
    assert.equal(evaluateGroup([{ id: 'a', settings: { ...unknown, loadPower: 2000 }, memory }], exportW(200), T0).get('a').switchTo, undefined, 'with Load power set it waits for 2.2 kW');
  });

  it('surplus goes to the highest priority first; a satisfied thermostat holds nothing', function () {
    const hot = { id: 'hot', settings: settings({ loadChannel: 1, loadPower: 3600, priority: 1 }) };
    const pool = { id: 'pool', settings: settings({ loadChannel: 2, loadPower: 1100, priority: 2 }) };
    const at = T0 + 600 * S;
    // 4000 W export with both off: only the first priority fits.
    let out = evaluateGroup([
      { id: 'pool', settings: pool.settings, memory: { state: 'off' } },
      { id: 'hot', settings: hot.settings, memory: { state: 'off' } },
    ], { entries: [entry(at, [-4000, 0, 0])], startedAt: T0 }, at);
    assert.equal(out.get('hot').switchTo, 'on');
    assert.equal(out.get('pool').switchTo, undefined);
    // Hot water on for a whole window but drawing nothing (tank full): the pool pump gets the surplus.
    out = evaluateGroup([
      { id: 'hot', settings: hot.settings, memory: { state: 'on', since: T0 } },
      { id: 'pool', settings: pool.settings, memory: { state: 'off' } },
    ], { entries: [entry(at, [-4000, 0, 0])], startedAt: T0 }, at);
    assert.equal(out.get('hot').switchTo, undefined);
    assert.equal(out.get('pool').switchTo, 'on');
    // Hot water drawing 3600 W and 400 W exported: nothing left for the pool pump.
    out = evaluateGroup([
      { id: 'hot', settings: hot.settings, memory: { state: 'on', since: T0 } },
      { id: 'pool', settings: pool.settings, memory: { state: 'off' } },
    ], { entries: [entry(at, [-400, 3600, 0])], startedAt: T0 }, at);
    assert.equal(out.get('pool').switchTo, undefined);
    assert.equal(out.get('pool').signal, 400);
  });

  it('a dry run takes nothing from the other loads, and loads measured on one channel count once', function () {
    const at = T0 + 600 * S;
    const real = { id: 'pool', settings: settings({ loadChannel: 2, loadPower: 1100, priority: 2 }), memory: { state: 'off' } };
    const paper = { id: 'hot', settings: settings({ loadChannel: 1, loadPower: 3600, priority: 1, dryRun: true }), memory: { state: 'on', since: T0 } };
    const out = evaluateGroup([paper, real], { entries: [entry(at, [-2000, 0, 0])], startedAt: T0 }, at);
    assert.equal(out.get('pool').signal, 2000, 'the dry-run hot water, on only on paper, holds none of it');
    assert.equal(out.get('pool').switchTo, 'on');
    const twin = { ...real, id: 'pool2', settings: { ...real.settings, priority: 3 } };
    const both = evaluateGroup([{ ...real, memory: { state: 'on', since: T0 } }, { ...twin, memory: { state: 'on', since: T0 } }], { entries: [entry(at, [-500, 0, 1100])], startedAt: T0 }, at);
    assert.equal(both.get('pool').signal, 1600, 'export 500 + the pool pump\'s 1100 W, counted once');
  });

  it('peak: the lowest priority is shed first, and loads come back highest first', function () {
    const a = { id: 'a', settings: settings({ mode: 'peak', limit: 5000, margin: 200, loadChannel: 1, loadPower: 1500, priority: 1 }) };
    const b = { id: 'b', settings: settings({ mode: 'peak', limit: 5000, margin: 200, loadChannel: 2, loadPower: 1500, priority: 2 }) };
    const at = T0 + 600 * S;
    let out = evaluateGroup([
      { ...a, memory: { state: 'on', since: T0 } }, { ...b, memory: { state: 'on', since: T0 } },
    ], { entries: [entry(at, [6000, 1500, 1500])], startedAt: T0 }, at);
    assert.equal(out.get('a').switchTo, undefined);
    assert.equal(out.get('b').switchTo, 'off');
    assert.equal(out.get('b').reason, 'overLimit');
    out = evaluateGroup([
      { ...a, memory: { state: 'off', since: T0 } }, { ...b, memory: { state: 'off', since: T0 } },
    ], { entries: [entry(at, [2000, 0, 0])], startedAt: T0 }, at);
    assert.equal(out.get('a').switchTo, 'on');
    assert.equal(out.get('b').switchTo, undefined, '2000 + 1500 + 1500 > 5000 - 200');
  });

  it('an override wins over the rule and the holds, and ends at its time; stale data applies the fail-safe', function () {
    const s = settings({ mode: 'threshold', onAbove: 1000, offBelow: 800, minOffS: 3600, failSafe: 'open', staleAfterS: 120 });
    const at = T0 + 60 * S;
    let ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'off', since: T0, override: { state: 'on', until: at + 60 * S } } }], { entries: [entry(at, [0])], startedAt: T0 }, at).get('a');
    assert.equal(ev.switchTo, 'on');
    assert.equal(ev.reason, 'override');
    ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'on', since: at, override: { state: 'on', until: at + 60 * S } } }], { entries: [entry(at, [0])], startedAt: T0 }, at + 60 * S).get('a');
    assert.equal(ev.memory.override, undefined, 'ended');
    assert.equal(ev.switchTo, 'off');
    ev = evaluateGroup([{ id: 'a', settings: s, memory: { state: 'on', since: T0 } }], { entries: [entry(T0, [5000])], startedAt: T0 }, T0 + 121 * S).get('a');
    assert.equal(ev.stale, true);
    assert.equal(ev.switchTo, 'off');
    assert.equal(ev.reason, 'failSafe');
    const hold = evaluateGroup([{ id: 'a', settings: { ...s, failSafe: 'hold' }, memory: { state: 'on', since: T0 } }], { entries: [], startedAt: T0 }, T0 + 121 * S).get('a');
    assert.equal(hold.reason, 'stale');
    assert.equal(hold.switchTo, undefined);
  });

  it('checks the properties: defaults, the Grid connect channel by category, clear refusals', function () {
    const dev = 'D630000000002';
    const device = { id: dev, channels: [{ categoryId: 5 }, { categoryId: 1 }, { categoryId: 6 }], switches: [] };
    const parsed = parseDef({ deviceId: dev, switchId: '2', mode: 'surplus', loadChannel: `${dev}_C3` });
    assert.equal(parsed.switchId, `${dev}_S2`);
    assert.equal(parsed.switchDeviceId, dev);
    assert.equal(parsed.intervalS, 30);
    const resolved = resolveSettings(parsed, device);
    assert.deepEqual([resolved.channels, resolved.loadChannel, resolved.windowS, resolved.failSafe], [[1], 2, 300, 'hold']);
    assert.deepEqual(resolveSettings(parseDef({ deviceId: dev, switchId: '1', channels: '1, 3' }), device).channels, [0, 2]);
    assert.throws(() => resolveSettings(parseDef({ deviceId: dev, switchId: '1', channels: '7' }), device), /does not exist/);
    assert.throws(() => resolveSettings(parsed, { ...device, channels: [{ categoryId: 5 }] }), /Grid connect/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', mode: 'peak' }), /limit/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', mode: 'threshold', onAbove: 100, offBelow: 200 }), /hysteresis/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', mode: 'threshold', onAbove: 100, offBelow: 200 }), (err) => err.code === 'BAD_CONFIG' && err.side === 'config');
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', interval: 2 }), /at least 5 s/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', mode: 'boost' }), /threshold, surplus, peak or price/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '', mode: 'surplus' }), /no switch/);
    assert.throws(() => parseDef({ switchId: '1' }), /no device id/);
    assert.throws(() => parseDef({ deviceId: dev, switchId: '1', minOn: -5 }), /minOn/);
  });

  it('checks the run target: none unless asked for; runFor by a local time in surplus or price mode; clear refusals', function () {
    const dev = 'D630000000002';
    const def = (extra) => parseDef({ deviceId: dev, switchId: '1', mode: 'surplus', ...extra });
    assert.equal(def({}).settings.target, undefined, 'a node without a target decides as before');
    assert.deepEqual(def({ runFor: '10800', by: '17:00', maxPrice: '0.5', cheapBelow: 0 }).settings.target,
      { runForS: 10800, byMinute: 1020, minBlockS: 1800, maxPriceMicros: 500000, cheapBelowMicros: 0, naive: 'timer' });
    assert.deepEqual(def({ mode: 'price', runFor: 3600, minBlock: 600, tariff: 'tariff-1', naive: 'start' }).settings.target,
      { runForS: 3600, byMinute: 1440, minBlockS: 600, maxPriceMicros: undefined, cheapBelowMicros: undefined, naive: 'start' });
    assert.throws(() => def({ runFor: 3600, naive: 'never' }), /naive "never" is not a schedule: timer .* or start/);
    assert.equal(def({ mode: 'price', runFor: 3600, tariff: ' t1 ' }).tariffId, 't1');
    assert.throws(() => def({ mode: 'threshold', onAbove: 1, offBelow: 0, runFor: 3600 }), /planned in surplus or price mode, not in threshold mode/);
    assert.throws(() => def({ mode: 'price' }), /price mode needs runFor .* or cheapBelow/);
    assert.throws(() => def({ runFor: 3600, maxPrice: 0.3, cheapBelow: 0.4 }), /cheapBelow \(0\.4\) is above maxPrice \(0\.3\)/);
    assert.throws(() => def({ runFor: 3600, by: '25:00' }), /by "25:00" is not a local time/);
    assert.throws(() => def({ runFor: 90000 }), /more than a day/);
    assert.throws(() => def({ runFor: 3600, maxPrice: 'dear' }), /maxPrice: "dear" is not a price/);
  });

  it('reads commands: on/off with or without a duration, auto, evaluate; refuses anything else', function () {
    assert.deepEqual(parseCommand('on', undefined, T0), { kind: 'override', override: { state: 'on' } });
    assert.deepEqual(parseCommand('OFF', 90, T0), { kind: 'override', override: { state: 'off', until: T0 + 90 * S } });
    assert.deepEqual(parseCommand('auto', undefined, T0), { kind: 'auto' });
    assert.deepEqual(parseCommand('evaluate', undefined, T0), { kind: 'evaluate' });
    assert.throws(() => parseCommand('maybe', undefined, T0), /not a command/);
    assert.throws(() => parseCommand('on', -5, T0), /msg.duration/);
  });
});
