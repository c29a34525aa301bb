'use strict';
// A modulating load's setpoint as pure code: stepping, the enable and disable delays, gridAllowance, minInterval,
// peak capping, and priorities with on/off loads of the same site (hand-built short-energy entries).
const assert = require('node:assert/strict');
const { modulate, fitSetpoint } = require('../../../dist/domain/site/modulation');
const { evaluateGroup } = require('../../../dist/domain/site/group');

const S = 1000;
const T0 = 1_767_225_600_000;
/** 6–16 A on one phase at 230 V, 1 A steps. */
const AMPS = { unit: 'A', wattsPerUnit: 230, min: 6, max: 16, step: 1, enableDelayS: 60, disableDelayS: 180, gridAllowanceW: 0, minIntervalS: 60 };

/** Runs the modulation every 30 s on `availableW(t)`; returns the setpoints sent as [s from start, value, reason]. */
function follow(settings, availableW, steps, { mode = 'surplus', memory = {}, failSafe = 'hold' } = {}) {
  const sent = [];
  let mem = memory;
  for (let i = 0; i <= steps; i += 1) {
    const t = T0 + i * 30 * S;
    const d = modulate(settings, mem, { mode, failSafe, availableW: availableW(i * 30), stale: false }, t);
    if (d.changed) sent.push([i * 30, d.value, d.reason]);
    mem = d.memory;
  }
  return { sent, memory: mem };
}

describe('modulating load: the setpoint (pure)', function () {
  it('fits the watts to whole steps within min..max', function () {
    assert.equal(fitSetpoint(AMPS, 2300), 10);
    assert.equal(fitSetpoint(AMPS, 2299), 9);
    assert.equal(fitSetpoint(AMPS, 100), 6);
    assert.equal(fitSetpoint(AMPS, 99999), 16);
    assert.equal(fitSetpoint({ ...AMPS, unit: 'W', wattsPerUnit: 1, min: 1400, max: 11000, step: 100 }, 3456), 3400);
    assert.equal(fitSetpoint({ ...AMPS, wattsPerUnit: 690, step: 0.5 }, 5000), 7);
  });

  it('starts only after the minimum has been available for enableDelay, and restarts the delay when it drops out', function () {
    // 1500 W covers 6 A (1380 W); a dip at 60 s restarts the delay.
    const { sent } = follow(AMPS, (s) => (s === 60 ? 1000 : 1500), 8);
    assert.deepEqual(sent, [[150, 6, 'surplus']], 'delay from 90 s (after the dip): on at 150 s');
  });

  it('follows the surplus in whole steps, only when it moves a step or more, never sooner than minInterval', function () {
    const surplus = [3000, 3000, 3000, 3100, 3300, 2500, 2500, 2500, 2500, 4000, 4000, 4000];
    const { sent } = follow({ ...AMPS, enableDelayS: 0 }, (s) => surplus[s / 30] ?? 4000, surplus.length - 1);
    // 3000 W → 13 A at 0; 3100 W → 13 A (no move); 3300 W → 14 A but minInterval holds until 60 s from 0, so at 120 s;
    // 2500 W → 10 A at 150 s is 30 s after: held to 180 s; 4000 W → 16 A at 270 s (60 s after 180 s? 90 s: free).
    assert.deepEqual(sent, [[0, 13, 'surplus'], [120, 14, 'surplus'], [180, 10, 'surplus'], [270, 16, 'surplus']]);
    for (let i = 1; i < sent.length; i += 1) assert.ok(sent[i][0] - sent[i - 1][0] >= 60, 'minInterval');
  });

  it('runs at the minimum for disableDelay when the surplus falls short, then stops; gridAllowance keeps it running', function () {
    const memory = { setpoint: { value: 10, at: T0 - 600 * S }, state: 'on' };
    const { sent } = follow(AMPS, () => 1000, 8, { memory });
    assert.deepEqual(sent, [[0, 6, 'disableDelay'], [180, 0, 'noSurplus']]);
    const allowed = follow({ ...AMPS, gridAllowanceW: 500 }, () => 1000, 8, { memory });
    assert.deepEqual(allowed.sent, [[0, 6, 'surplus']], '1000 W + 500 W of import cover 6 A: it keeps running');
    const roundsUp = follow({ ...AMPS, gridAllowanceW: 230 }, () => 2200, 2, { memory: { ...memory, setpoint: { value: 8, at: T0 - 600 * S } } });
    assert.deepEqual(roundsUp.sent, [[0, 10, 'surplus']], '2200 W + 230 W cover 10 A (2300 W): a step up within the allowance');
  });

  it('stops at once, without the disable delay, a load drawing nothing (no car) or one the plan ran on the grid', function () {
    const memory = { setpoint: { value: 10, at: T0 - 600 * S }, state: 'on' };
    const stop = (view, mem = memory) => modulate(AMPS, mem, { mode: 'surplus', failSafe: 'hold', availableW: 1000, stale: false, ...view }, T0);
    const idle = stop({ idle: true });
    assert.deepEqual([idle.value, idle.reason], [0, 'noSurplus'], 'a charger without a car: a car arriving would only start to stop');
    // The plan's run: 16 A bought; then the plan has what it needs and the surplus is short (the night).
    const planned = modulate(AMPS, {}, { mode: 'surplus', failSafe: 'hold', availableW: -300, stale: false, planW: 3680, planReason: 'cheapest' }, T0 - 600 * S);
    assert.deepEqual([planned.value, planned.memory.planRun], [16, true]);
    const done = stop({ availableW: -300 }, planned.memory);
    assert.deepEqual([done.value, done.reason], [0, 'noSurplus'], 'not 10 minutes at the minimum, bought from the grid');
    const sunny = stop({ availableW: 2000 }, planned.memory);
    assert.deepEqual([sunny.value, sunny.memory.planRun], [8, undefined], 'the surplus takes the run over');
    assert.deepEqual(stop({}).value, 6, 'a run of the surplus keeps its disable delay');
  });

  it('peak mode: capped to the room under the limit at once, stopped at once when the minimum does not fit', function () {
    const memory = { setpoint: { value: 16, at: T0 - 600 * S }, state: 'on' };
    const room = [3680, 2000, 1000, 1000, 1000, 5000, 5000, 5000];
    const { sent } = follow({ ...AMPS, enableDelayS: 60 }, (s) => room[s / 30], room.length - 1, { mode: 'peak', memory });
    assert.deepEqual(sent, [[30, 8, 'belowLimit'], [90, 0, 'overLimit'], [210, 16, 'belowLimit']]);
  });

  it('an override sets max or 0 at once; stale data follows the fail-safe', function () {
    const memory = { setpoint: { value: 8, at: T0 } };
    const on = modulate(AMPS, memory, { mode: 'surplus', failSafe: 'hold', availableW: 0, stale: false, override: { state: 'on' } }, T0 + S);
    assert.deepEqual([on.value, on.changed, on.reason], [16, true, 'override']);
    const hold = modulate(AMPS, memory, { mode: 'surplus', failSafe: 'hold', availableW: null, stale: true }, T0 + 600 * S);
    assert.deepEqual([hold.value, hold.changed, hold.reason], [8, false, 'stale']);
    const open = modulate(AMPS, memory, { mode: 'surplus', failSafe: 'open', availableW: null, stale: true }, T0 + 600 * S);
    assert.deepEqual([open.value, open.changed, open.reason], [0, true, 'failSafe']);
  });
});

describe('modulating load in a site group (pure)', function () {
  const base = {
    channels: [0], loadPower: 0, onAbove: 0, offBelow: 0, margin: 0, limit: 0, windowS: 60, minOnS: 0, minOffS: 0, maxOffS: 0,
    staleAfterS: 600, failSafe: 'hold', dryRun: false, timeoutS: 180, actuator: 'flow',
  };
  const charger = (extra = {}) => ({ ...base, mode: 'surplus', loadChannel: 1, priority: 1, power: { ...AMPS, enableDelayS: 0, minIntervalS: 0 }, ...extra });
  const heater = (extra = {}) => ({ ...base, mode: 'surplus', loadChannel: 2, loadPower: 2000, priority: 2, ...extra });
  const entry = (t, watts) => ({ timestamp: t / 1000, duration: 30, eReal: watts.map((w) => Math.round(w * 30)) });

  /** Solar `solar` W, house 500 W; the charger draws min(setpoint, carLimit) W, the heater 2000 W when on. */
  function site(steps, { solar, carLimit = () => Infinity, members }) {
    const mem = new Map(members.map((m) => [m.id, m.id === 'heater' ? { state: 'off' } : {}]));
    const entries = [];
    const log = [];
    for (let i = 1; i <= steps; i += 1) {
      const t = T0 + i * 30 * S;
      const ch = mem.get('charger')?.setpoint?.value ?? 0;
      const car = Math.min(ch * 230, carLimit(i * 30));
      const heat = mem.get('heater')?.state === 'on' ? 2000 : 0;
      entries.push(entry(t, [500 + car + heat - solar(i * 30), car, heat]));
      const out = evaluateGroup(members.map((m) => ({ id: m.id, settings: m.settings, memory: mem.get(m.id), reading: m.id === 'heater' ? { state: mem.get('heater').state } : undefined })), { entries: entries.slice(-4), startedAt: T0 }, t);
      for (const m of members) {
        const ev = out.get(m.id);
        let next = ev.memory;
        if (ev.switchTo) next = { ...next, state: ev.switchTo, since: t };
        mem.set(m.id, next);
        log.push({ s: i * 30, id: m.id, setpoint: ev.setpoint?.value, state: next.state, reason: ev.reason });
      }
    }
    return log;
  }

  it('the charger (priority 1) takes the surplus first; the heater (priority 2) only what it leaves', function () {
    const log = site(20, { solar: () => 6000, members: [{ id: 'charger', settings: charger() }, { id: 'heater', settings: heater() }] });
    const last = (id) => log.filter((l) => l.id === id).at(-1);
    assert.equal(last('charger').setpoint, 16, '5500 W of surplus: 16 A (3680 W)');
    assert.equal(last('heater').state, 'off', '1820 W left: not enough for the 2000 W heater (+ no margin)');
    const more = site(20, { solar: () => 7000, members: [{ id: 'charger', settings: charger() }, { id: 'heater', settings: heater() }] });
    assert.equal(more.filter((l) => l.id === 'heater').at(-1).state, 'on', '2820 W left: the heater runs');
    assert.equal(more.filter((l) => l.id === 'charger').at(-1).setpoint, 16, 'and the charger keeps its 16 A');
  });

  it('an energy target with a sun forecast counts the reading for the unit now only, the forecast for the hours ahead', function () {
    // A break in the clouds: 5.5 kW of sun now, house 500 W, the charger off; 20 kWh by 07:00, no prices yet.
    const pricing = { zone: 'UTC', prices: [], tariff: () => [] };
    const settings = charger({ energyTarget: { wh: 20000, byMinute: 7 * 60 } });
    const entries = [1, 2, 3, 4].map((i) => entry(T0 - (4 - i) * 30 * S, [500 - 5500, 0, 0]));
    const energyWith = (sun) => evaluateGroup([{ id: 'charger', settings, memory: {}, pricing, sun }], { entries, startedAt: T0 - 600 * S, history: [] }, T0).get('charger').energy;
    // The forecast gives no sun after now: the plan counts the break for its unit only.
    const t0 = T0 / 1000;
    const dark = energyWith({ slots: [{ start: t0 - 1800, end: t0 + 86400, powerW: 0 }], receivedS: t0 - 60 });
    const unitWh = (plan) => (3680 * (plan.units[0].end - plan.units[0].start)) / 3600;
    assert.ok(Math.abs(dark.surplusWh - unitWh(dark)) < 1, `${dark.surplusWh} Wh of sun counted, the unit now's ${unitWh(dark)}`);
    // Without a forecast the reading fades over the next hour.
    const blind = energyWith(undefined);
    assert.ok(blind.surplusWh > dark.surplusWh + 1000, `${blind.surplusWh} Wh without a forecast`);
  });

  it('a heater of higher priority leaves the charger the rest', function () {
    const log = site(20, { solar: () => 6000, members: [{ id: 'charger', settings: charger({ priority: 2 }) }, { id: 'heater', settings: heater({ priority: 1 }) }] });
    assert.equal(log.filter((l) => l.id === 'heater').at(-1).state, 'on');
    assert.equal(log.filter((l) => l.id === 'charger').at(-1).setpoint, 15, '6000 − 500 − 2000 = 3500 W: 15 A');
  });

  it('a car that takes nothing (full or unplugged) leaves the surplus to the heater after a window', function () {
    const log = site(20, { solar: () => 6000, carLimit: () => 0, members: [{ id: 'charger', settings: charger() }, { id: 'heater', settings: heater() }] });
    assert.equal(log.filter((l) => l.id === 'charger').at(-1).setpoint, 16, 'the charger still offers the surplus');
    assert.equal(log.filter((l) => l.id === 'heater').at(-1).state, 'on', 'but the heater uses it');
  });
});
