/**
 * The hindsight optimum of one load: the cheapest on/off schedule over a run of equal units (5 minutes) that meets
 * every period's target, given every unit's true cost, with the load's minimum on and off times. Exact: a dynamic
 * programme over (units run toward the period's target, on/off, units since the last switch). Pure.
 */
export interface HindsightRequest {
  /** What running in each unit costs (any sign: paid to consume is negative). */
  costs: ArrayLike<number>;
  /** Consecutive target periods as unit ranges [start, end), each needing `need` units on. Units outside run free. */
  periods: ReadonlyArray<{ start: number; end: number; need: number }>;
  /** Shortest run and shortest gap, in units (1 = none). */
  minOn: number;
  minOff: number;
}

export interface HindsightPlan {
  on: Uint8Array;
  cost: number;
  /** Switch-ons in the schedule. */
  starts: number;
}

/** The cheapest schedule meeting every period's target; throws when no schedule can. */
export function hindsightOptimum(req: HindsightRequest): HindsightPlan {
  const n = req.costs.length;
  const minOn = Math.max(1, req.minOn);
  const minOff = Math.max(1, req.minOff);
  const ages = Math.max(minOn, minOff);
  const maxNeed = req.periods.reduce((m, p) => Math.max(m, p.need), 0);
  const kSize = maxNeed + 1;
  const size = kSize * 2 * ages;
  const index = (k: number, s: number, a: number): number => (k * 2 + s) * ages + (a - 1);
  const periodOf = new Int32Array(n).fill(-1);
  req.periods.forEach((p, i) => {
    if (p.need > p.end - p.start) throw new Error(`period ${i} needs ${p.need} units of ${p.end - p.start}`);
    for (let u = p.start; u < p.end; u++) periodOf[u] = i;
  });
  let value = new Float64Array(size).fill(Infinity);
  let next = new Float64Array(size);
  const from = new Int32Array(n * size);
  // Before the first unit the load is off and has rested long enough.
  value[index(0, 0, ages)] = 0;
  for (let u = 0; u < n; u++) {
    const p = periodOf[u];
    const startsPeriod = p >= 0 && req.periods[p].start === u;
    const need = p >= 0 ? req.periods[p].need : 0;
    const endingNeed = u > 0 && periodOf[u - 1] >= 0 && periodOf[u - 1] !== p ? req.periods[periodOf[u - 1]].need : -1;
    next.fill(Infinity);
    const c = req.costs[u];
    for (let state = 0; state < size; state++) {
      const v = value[state];
      if (v === Infinity) continue;
      let k = Math.floor(state / (2 * ages));
      const s = Math.floor(state / ages) % 2;
      const a = (state % ages) + 1;
      // The period before ends here: its target must be met.
      if (endingNeed >= 0 && k < endingNeed) continue;
      if (startsPeriod || (endingNeed >= 0 && p < 0)) k = 0;
      const free = a >= (s === 1 ? minOn : minOff);
      // Off.
      if (s === 0 || free) {
        const t = index(k, 0, s === 0 ? Math.min(ages, a + 1) : 1);
        if (v < next[t]) { next[t] = v; from[u * size + t] = state; }
      }
      // On.
      if (s === 1 || free) {
        const t = index(Math.min(need, k + 1), 1, s === 1 ? Math.min(ages, a + 1) : 1);
        const w = v + c;
        if (w < next[t]) { next[t] = w; from[u * size + t] = state; }
      }
    }
    [value, next] = [next, value];
  }
  const lastNeed = n > 0 && periodOf[n - 1] >= 0 ? req.periods[periodOf[n - 1]].need : 0;
  let best = -1;
  for (let state = 0; state < size; state++) {
    if (value[state] === Infinity || Math.floor(state / (2 * ages)) < lastNeed) continue;
    if (best < 0 || value[state] < value[best]) best = state;
  }
  if (best < 0) throw new Error('no schedule meets every target under the minimum on and off times');
  const on = new Uint8Array(n);
  let starts = 0;
  for (let u = n - 1, state = best; u >= 0; u--) {
    on[u] = Math.floor(state / ages) % 2;
    state = from[u * size + state];
  }
  for (let u = 0; u < n; u++) if (on[u] && (u === 0 || !on[u - 1])) starts++;
  return { on, cost: value[best], starts };
}
