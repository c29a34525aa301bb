'use strict';
// The price bench's cost model and its hindsight optimum. Every strategy's schedule (on-time per 5-minute unit, from
// its PATCHes) is costed in one model: each load draws its rated power while on, the rest of the site is what the
// simulator measured with both loads off (grid channel, per 5-minute entry), and each 5-minute unit's net energy is
// settled at its half hour's final Amber prices (import at the general price, export at the feed-in price). The
// hindsight optimum is the cheapest schedule in that model meeting every target under the loads' minimum on and off
// times: exact, a dynamic programme over both loads' states together (they interact only through the site's net energy
// in each unit, so each unit is costed by both loads' decisions).
const { jointHindsightOptimum } = require('../dist/domain/planning/hindsight');

const UNIT_S = 300;

/** The settlement of `joules` net grid energy in a unit at its prices (AUD; import positive, c/kWh prices). */
const settle = (joules, price) => (joules >= 0 ? joules * price.general : joules * -price.feedIn) / 3.6e6 / 100;

/** Per unit from `startS`: the site's net grid energy with both loads off (J) and its half hour's final prices. */
function siteModel(offEntries, prices, startS, units) {
  const base = new Float64Array(units);
  for (const e of offEntries) {
    const u = Math.round((e.timestamp - UNIT_S - startS) / UNIT_S);
    if (u >= 0 && u < units) base[u] = e.eReal[0];
  }
  const unitPrices = Array.from({ length: units }, (_, u) => {
    const end = Math.ceil((startS + (u + 1) * UNIT_S) / 1800) * 1800;
    const p = prices.get(end);
    if (!p) throw new Error(`no final price for the interval ending ${new Date(end * 1000).toISOString()}`);
    return p;
  });
  const convexViolations = unitPrices.filter((p) => p.general < -p.feedIn).length;
  return { startS, units, base, prices: unitPrices, convexViolations };
}

/** On-time share (0..1) per unit of one switch, from the PATCH log's changes. */
function scheduleOf(patchLog, switchId, startS, units) {
  const changes = patchLog.flatMap((r) => (r.body?.switches ?? []).filter((sw) => sw.id === switchId).map((sw) => ({ t: r.simNow, on: sw.state === 'closed' })))
    .sort((a, b) => a.t - b.t);
  const share = new Float64Array(units);
  let on = false;
  let since = startS;
  const add = (from, to) => {
    for (let t = from; t < to;) {
      const u = Math.floor((t - startS) / UNIT_S);
      const next = Math.min(to, startS + (u + 1) * UNIT_S);
      if (u >= 0 && u < units) share[u] += (next - t) / UNIT_S;
      t = next;
    }
  };
  for (const c of changes) {
    const t = Math.max(startS, Math.min(c.t, startS + units * UNIT_S));
    if (on && !c.on) add(since, t);
    if (!on && c.on) since = t;
    on = c.on;
  }
  if (on) add(since, startS + units * UNIT_S);
  return share;
}

/** The loads' cost in the model (AUD): the site with the loads minus without, per unit; and per local day if `dayOf`. */
function modelCost(model, loads, schedules, dayOf) {
  let total = 0;
  const perDay = new Map();
  for (let u = 0; u < model.units; u++) {
    let joules = model.base[u];
    loads.forEach((l, i) => { joules += l.powerW * UNIT_S * schedules[i][u]; });
    const cost = settle(joules, model.prices[u]) - settle(model.base[u], model.prices[u]);
    total += cost;
    if (dayOf) {
      const d = dayOf(model.startS + u * UNIT_S);
      perDay.set(d, (perDay.get(d) ?? 0) + cost);
    }
  }
  return { total, perDay };
}

/**
 * A load's periods and holds in units. `fair`: the game the plan plays: every run at least minBlock (the plan starts
 * no shorter block), and a load that is a store (`store`: the hot-water tank, whose thermostat draws nothing once its
 * heat is in) runs no more than its target: in the model it would draw its rated power whenever on, and an optimum
 * running it on past the target (paid to consume, or to keep the sun from an export that costs) earns from heat no
 * real tank takes.
 */
function unitLoad(model, load, fair, capStore) {
  const periods = load.periods.map((p) => ({ start: (p.start - model.startS) / UNIT_S, end: (p.end - model.startS) / UNIT_S, need: Math.ceil(load.runFor / UNIT_S) }));
  const minOn = fair ? Math.max(load.minOn, load.minBlock ?? 0) : load.minOn;
  return { periods, minOn: Math.ceil(minOn / UNIT_S), minOff: Math.ceil(load.minOff / UNIT_S), atMostNeed: (fair || capStore) && Boolean(load.store) };
}

/**
 * The hindsight optimum of the two loads: exact, a dynamic programme over both loads' states together
 * (src/domain/planning/hindsight.ts), each unit costed by both loads' decisions on the site's net energy; with `fair`,
 * in the plan's own game (see unitLoad); with `capStore`, the store capped at its target alone (the holds as the exact optimum's).
 */
function hindsight(model, loads, { fair = false, capStore = false } = {}) {
  if (loads.length !== 2) throw new Error('the hindsight optimum is computed for two loads');
  const costs = [0, 1, 2, 3].map(() => new Float64Array(model.units));
  for (let u = 0; u < model.units; u++) {
    const site = settle(model.base[u], model.prices[u]);
    for (let x = 0; x < 4; x++) {
      const joules = model.base[u] + ((x & 1) * loads[0].powerW + (x >> 1) * loads[1].powerW) * UNIT_S;
      costs[x][u] = settle(joules, model.prices[u]) - site;
    }
  }
  const best = jointHindsightOptimum({ loads: loads.map((l) => unitLoad(model, l, fair, capStore)), costs });
  return { joint: best.cost, schedules: best.on.map((on) => Float64Array.from(on)), starts: best.starts };
}

/**
 * The optimum in the plan's own game on what a perfect forecast of the sun, the prices and the house's hourly mean can
 * know: planned on the site smoothed over an hour (its passing draws and clouds averaged out), costed on the site as it
 * was. What it loses against the fair optimum is the value of knowing the site to 5 minutes, which no forecast has.
 */
function hindsightOnTheHour(model, loads) {
  const half = Math.round(1800 / UNIT_S);
  const base = new Float64Array(model.units);
  for (let u = 0; u < model.units; u++) {
    let sum = 0;
    let n = 0;
    for (let k = Math.max(0, u - half); k <= Math.min(model.units - 1, u + half); k++, n++) sum += model.base[k];
    base[u] = sum / n;
  }
  const planned = hindsight({ ...model, base }, loads, { fair: true });
  return { joint: modelCost(model, loads, planned.schedules).total };
}

module.exports = { siteModel, scheduleOf, modelCost, hindsight, hindsightOnTheHour, UNIT_S };
