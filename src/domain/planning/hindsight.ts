/**
 * The hindsight optimum: the cheapest on/off schedule over a run of equal units (5 minutes) that meets every period's
 * target, given every unit's true cost, with the loads' minimum on and off times. Exact: a dynamic programme over each
 * load's state (units run toward the period's target, on/off, units since the last switch), for one load or for two
 * loads together (their states paired, each unit costed by both loads' decisions). Pure.
 */
export interface HindsightLoad {
  /** Consecutive target periods as unit ranges [start, end), each needing `need` units on. Units outside run free. */
  periods: ReadonlyArray<{ start: number; end: number; need: number }>;
  /** Shortest run and shortest gap, in units (1 = none). */
  minOn: number;
  minOff: number;
  /** Runs no more than each period's need (a store that is full draws nothing), and not outside the periods. */
  atMostNeed?: boolean;
}

export interface HindsightRequest extends HindsightLoad {
  /** What running in each unit costs (any sign: paid to consume is negative). */
  costs: ArrayLike<number>;
}

export interface HindsightPlan {
  on: Uint8Array;
  cost: number;
  /** Switch-ons in the schedule. */
  starts: number;
}

/**
 * One load's states and their moves in each unit. A state is (k, j): k units run toward the current period's target,
 * j < minOff off for j + 1 units (the last capped: rested), j ≥ minOff on for j − minOff + 1 units (capped at minOn).
 */
class LoadAutomaton {
  readonly n: number;
  readonly size: number;
  private readonly minOn: number;
  private readonly minOff: number;
  private readonly ages: number;
  private readonly periodOf: Int32Array;
  private readonly periods: HindsightLoad['periods'];
  private readonly atMostNeed: boolean;
  /** Per state, for the unit last prepared: the state after staying off / on (−1: not allowed). */
  readonly offTo: Int32Array;
  readonly onTo: Int32Array;

  constructor(load: HindsightLoad, n: number) {
    this.n = n;
    this.minOn = Math.max(1, load.minOn);
    this.minOff = Math.max(1, load.minOff);
    this.ages = this.minOn + this.minOff;
    this.periods = load.periods;
    this.atMostNeed = load.atMostNeed ?? false;
    const maxNeed = load.periods.reduce((m, p) => Math.max(m, p.need), 0);
    this.size = (maxNeed + 1) * this.ages;
    this.periodOf = new Int32Array(n).fill(-1);
    load.periods.forEach((p, i) => {
      if (p.need > p.end - p.start) throw new Error(`period ${i} needs ${p.need} units of ${p.end - p.start}`);
      for (let u = p.start; u < p.end; u++) this.periodOf[u] = i;
    });
    this.offTo = new Int32Array(this.size);
    this.onTo = new Int32Array(this.size);
  }

  /** Off and rested, nothing run: the state before the first unit. */
  get initial(): number {
    return this.minOff - 1;
  }

  isOn(state: number): boolean {
    return state % this.ages >= this.minOff;
  }

  /** Fills offTo/onTo for unit u. */
  prepare(u: number): void {
    const p = this.periodOf[u];
    const startsPeriod = p >= 0 && this.periods[p].start === u;
    const need = p >= 0 ? this.periods[p].need : 0;
    const endingNeed = u > 0 && this.periodOf[u - 1] >= 0 && this.periodOf[u - 1] !== p ? this.periods[this.periodOf[u - 1]].need : -1;
    const { minOn, minOff, ages } = this;
    for (let state = 0; state < this.size; state++) {
      let k = Math.floor(state / ages);
      const j = state % ages;
      this.offTo[state] = -1;
      this.onTo[state] = -1;
      // The period before ends here: its target must be met.
      if (endingNeed >= 0 && k < endingNeed) continue;
      if (startsPeriod || (endingNeed >= 0 && p < 0)) k = 0;
      const on = j >= minOff;
      const free = on ? j === ages - 1 : j === minOff - 1;
      if (!on || free) this.offTo[state] = k * ages + (on ? 0 : Math.min(minOff - 1, j + 1));
      if ((on || free) && !(this.atMostNeed && k >= need)) this.onTo[state] = Math.min(need, k + 1) * ages + (on ? Math.min(ages - 1, j + 1) : minOff);
    }
  }

  /** The last unit's period target met in this final state. */
  finalOk(state: number): boolean {
    const p = this.n > 0 ? this.periodOf[this.n - 1] : -1;
    return Math.floor(state / this.ages) >= (p >= 0 ? this.periods[p].need : 0);
  }
}

const startsOf = (on: Uint8Array): number => on.reduce((s, o, u) => s + (o && (u === 0 || !on[u - 1]) ? 1 : 0), 0);

/** The cheapest schedule meeting every period's target; throws when no schedule can. */
export function hindsightOptimum(req: HindsightRequest): HindsightPlan {
  const n = req.costs.length;
  const load = new LoadAutomaton(req, n);
  const size = load.size;
  let value = new Float64Array(size).fill(Infinity);
  let next = new Float64Array(size);
  const from = new Int32Array(n * size);
  value[load.initial] = 0;
  for (let u = 0; u < n; u++) {
    load.prepare(u);
    next.fill(Infinity);
    const c = req.costs[u];
    for (let state = 0; state < size; state++) {
      const v = value[state];
      if (v === Infinity) continue;
      const off = load.offTo[state];
      if (off >= 0 && v < next[off]) { next[off] = v; from[u * size + off] = state; }
      const on = load.onTo[state];
      if (on >= 0 && v + c < next[on]) { next[on] = v + c; from[u * size + on] = state; }
    }
    [value, next] = [next, value];
  }
  let best = -1;
  for (let state = 0; state < size; state++) {
    if (value[state] === Infinity || !load.finalOk(state)) continue;
    if (best < 0 || value[state] < value[best]) best = state;
  }
  if (best < 0) throw new Error('no schedule meets every target under the minimum on and off times');
  const on = new Uint8Array(n);
  for (let u = n - 1, state = best; u >= 0; u--) {
    on[u] = load.isOn(state) ? 1 : 0;
    state = from[u * size + state];
  }
  return { on, cost: value[best], starts: startsOf(on) };
}

export interface JointHindsightRequest {
  loads: readonly [HindsightLoad, HindsightLoad];
  /**
   * What each unit costs by the loads' decisions, indexed on0 + 2 × on1: [neither, the first, the second, both]
   * (the loads interact only here, e.g. through a shared surplus).
   */
  costs: readonly [ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>];
}

export interface JointHindsightPlan {
  on: [Uint8Array, Uint8Array];
  cost: number;
  starts: [number, number];
}

/**
 * The cheapest pair of schedules meeting both loads' targets: exact, over the product of both loads' states. The
 * back pointers of the whole run would not fit in memory for a month, so the values are kept at the start of every
 * block of units and each block is run again, last first, keeping its back pointers to walk it back.
 */
export function jointHindsightOptimum(req: JointHindsightRequest): JointHindsightPlan {
  const n = req.costs[0].length;
  const [a, b] = req.loads.map((l) => new LoadAutomaton(l, n));
  const size = a.size * b.size;
  const block = Math.max(1, Math.ceil(Math.sqrt(2 * n)));
  const checkpoints: Float64Array[] = [];
  let value = new Float64Array(size).fill(Infinity);
  let next = new Float64Array(size);
  value[a.initial * b.size + b.initial] = 0;
  const run = (u0: number, u1: number, from?: Int32Array): void => {
    for (let u = u0; u < u1; u++) {
      a.prepare(u);
      b.prepare(u);
      next.fill(Infinity);
      const c00 = req.costs[0][u];
      const c10 = req.costs[1][u];
      const c01 = req.costs[2][u];
      const c11 = req.costs[3][u];
      const base = (u - u0) * size;
      for (let i = 0; i < a.size; i++) {
        const aOff = a.offTo[i];
        const aOn = a.onTo[i];
        if (aOff < 0 && aOn < 0) continue;
        const row = i * b.size;
        for (let j = 0; j < b.size; j++) {
          const v = value[row + j];
          if (v === Infinity) continue;
          const bOff = b.offTo[j];
          const bOn = b.onTo[j];
          const source = row + j;
          if (aOff >= 0) {
            if (bOff >= 0) {
              const t = aOff * b.size + bOff;
              if (v + c00 < next[t]) { next[t] = v + c00; if (from) from[base + t] = source; }
            }
            if (bOn >= 0) {
              const t = aOff * b.size + bOn;
              if (v + c01 < next[t]) { next[t] = v + c01; if (from) from[base + t] = source; }
            }
          }
          if (aOn >= 0) {
            if (bOff >= 0) {
              const t = aOn * b.size + bOff;
              if (v + c10 < next[t]) { next[t] = v + c10; if (from) from[base + t] = source; }
            }
            if (bOn >= 0) {
              const t = aOn * b.size + bOn;
              if (v + c11 < next[t]) { next[t] = v + c11; if (from) from[base + t] = source; }
            }
          }
        }
      }
      [value, next] = [next, value];
    }
  };
  for (let u0 = 0; u0 < n; u0 += block) {
    checkpoints.push(Float64Array.from(value));
    run(u0, Math.min(n, u0 + block));
  }
  let best = -1;
  for (let state = 0; state < size; state++) {
    if (value[state] === Infinity || !a.finalOk(Math.floor(state / b.size)) || !b.finalOk(state % b.size)) continue;
    if (best < 0 || value[state] < value[best]) best = state;
  }
  if (best < 0) throw new Error('no pair of schedules meets every target under the minimum on and off times');
  const cost = value[best];
  const on: [Uint8Array, Uint8Array] = [new Uint8Array(n), new Uint8Array(n)];
  const from = new Int32Array(Math.min(n, block) * size);
  let state = best;
  for (let c = checkpoints.length - 1; c >= 0; c--) {
    const u0 = c * block;
    const u1 = Math.min(n, u0 + block);
    value.set(checkpoints[c]);
    run(u0, u1, from);
    for (let u = u1 - 1; u >= u0; u--) {
      on[0][u] = a.isOn(Math.floor(state / b.size)) ? 1 : 0;
      on[1][u] = b.isOn(state % b.size) ? 1 : 0;
      state = from[(u - u0) * size + state];
    }
  }
  return { on, cost, starts: [startsOf(on[0]), startsOf(on[1])] };
}
