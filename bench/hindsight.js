'use strict';
// The price bench's cost model and its hindsight optimum. Every strategy's schedule (on-time per 5-minute unit, from
// its PATCHes) is costed in one model: each load draws its rated power while on, the rest of the site is what the
// simulator measured with both loads off (grid channel, per 5-minute entry), and each 5-minute unit's net energy is
// settled at its half hour's final Amber prices (import at the general price, export at the feed-in price). The
// hindsight optimum is the cheapest schedule in that model meeting every target under the loads' minimum on and off
// times: each load's exact optimum (dynamic programme, src/domain/planning/hindsight.ts) on its marginal cost per unit.
// The two loads share the site's net energy: their joint optimum lies between the sum of each load's optimum
// against the site alone (a lower bound while every half hour's import price is at or above its feed-in price: the
// settlement is then convex in the energy, so a second load's margin never costs less than against the site alone)
// and the best joint schedule found by optimising each load in turn given the other's (a schedule that exists).
const { hindsightOptimum } = require('../dist/domain/planning/hindsight');

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

/** One load's exact optimum given the others' schedules (their energy is part of the site it runs beside). */
function optimumOf(model, load, others) {
  const costs = new Float64Array(model.units);
  for (let u = 0; u < model.units; u++) {
    let beside = model.base[u];
    for (const o of others) beside += o.powerW * UNIT_S * o.schedule[u];
    costs[u] = settle(beside + load.powerW * UNIT_S, model.prices[u]) - settle(beside, model.prices[u]);
  }
  const periods = load.periods.map((p) => ({ start: (p.start - model.startS) / UNIT_S, end: (p.end - model.startS) / UNIT_S, need: Math.ceil(load.runFor / UNIT_S) }));
  return hindsightOptimum({ costs, periods, minOn: Math.ceil(load.minOn / UNIT_S), minOff: Math.ceil(load.minOff / UNIT_S) });
}

/** Each load in turn given the others' schedules, from `schedules`, until no load's optimum changes (at most `rounds`). */
function descend(model, loads, schedules, starts, order, rounds) {
  for (let round = 0; round < rounds; round++) {
    let changed = false;
    for (const i of order) {
      const others = loads.map((o, j) => ({ powerW: o.powerW, schedule: schedules[j] })).filter((_, j) => j !== i);
      const best = optimumOf(model, loads[i], others);
      if (best.on.some((o, u) => o !== schedules[i][u])) changed = true;
      schedules[i] = Float64Array.from(best.on);
      starts[i] = best.starts;
    }
    if (!changed) break;
  }
  return { schedules, starts, joint: modelCost(model, loads, schedules).total };
}

/**
 * The hindsight optimum of the loads: a lower bound (each alone against the site) and the best joint schedule found
 * (each load in turn given the others', in either order, from each load's optimum alone).
 */
function hindsight(model, loads, rounds = 6) {
  const alone = loads.map((l) => optimumOf(model, l, []));
  const bound = alone.reduce((sum, p) => sum + p.cost, 0);
  const orders = [loads.map((_, i) => i), loads.map((_, i) => loads.length - 1 - i)];
  const tries = orders.map((order) => descend(model, loads, alone.map((p) => Float64Array.from(p.on)), alone.map((p) => p.starts), order, rounds));
  const best = tries.reduce((b, t) => (t.joint < b.joint ? t : b));
  return { bound, ...best };
}

module.exports = { siteModel, scheduleOf, modelCost, hindsight, UNIT_S };
