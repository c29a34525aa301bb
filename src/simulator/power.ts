/**
 * Deterministic synthetic power model with closed-form integrals, so that the energy of
 * any period is O(1) to compute and cumulative counters are exact functions of time.
 *
 * A wave is `base + daily·sin(ωd·t + dailyPhase) + hourly·sin(ωh·t + hourlyPhase)` in watts
 * (or vars). A wave may cross zero only when `hourly` is 0: then the positive and negative
 * parts still have an analytic integral.
 */

const DAY = 86400;
const HOUR = 3600;
const OMEGA_DAY = (2 * Math.PI) / DAY;
const OMEGA_HOUR = (2 * Math.PI) / HOUR;
const TWO_PI = 2 * Math.PI;

export interface Wave {
  base: number;
  daily: number;
  dailyPhase: number;
  hourly: number;
  hourlyPhase: number;
}

export interface ChannelPower {
  real: Wave;
  reactive: Wave;
}

// Trigonometry takes the time modulo the period: exact, and much faster than huge arguments.
const dayAngle = (t: number): number => OMEGA_DAY * (t % DAY);
const hourAngle = (t: number): number => OMEGA_HOUR * (t % HOUR);

export function waveAt(w: Wave, t: number): number {
  return w.base + w.daily * Math.sin(dayAngle(t) + w.dailyPhase) + w.hourly * Math.sin(hourAngle(t) + w.hourlyPhase);
}

/** Antiderivative of the whole wave (arbitrary constant). */
function integralAll(w: Wave, t: number): number {
  return (
    w.base * t -
    (w.daily / OMEGA_DAY) * Math.cos(dayAngle(t) + w.dailyPhase) -
    (w.hourly / OMEGA_HOUR) * Math.cos(hourAngle(t) + w.hourlyPhase)
  );
}

interface CrossingConstants {
  A: number;
  B: number;
  phase: number;
  /** The positive arc is (a, π − a) in phase units. */
  a: number;
  arc: number;
  full: number;
  hAtA: number;
}

const crossingCache = new WeakMap<Wave, CrossingConstants>();

function crossingConstants(w: Wave): CrossingConstants {
  let c = crossingCache.get(w);
  if (!c) {
    // In phase units x = ωd·t + φ, with A = base and B = |daily| (sign folded into the phase).
    const A = w.base;
    const B = Math.abs(w.daily);
    const a = Math.asin(-A / B);
    const H = (u: number): number => A * u - B * Math.cos(u);
    c = { A, B, phase: w.daily < 0 ? w.dailyPhase + Math.PI : w.dailyPhase, a, arc: Math.PI - 2 * a, full: H(Math.PI - a) - H(a), hAtA: H(a) };
    crossingCache.set(w, c);
  }
  return c;
}

/** Antiderivative of max(wave, 0) for a zero-crossing wave (hourly = 0, |base| < |daily|). */
function integralPositiveCrossing(w: Wave, t: number): number {
  const c = crossingConstants(w);
  const days = Math.floor(t / DAY);
  const x = OMEGA_DAY * (t - days * DAY) + c.phase;
  const turns = Math.floor((x - c.a) / TWO_PI);
  const r = x - c.a - TWO_PI * turns;
  const partial = r <= c.arc ? c.A * (c.a + r) - c.B * Math.cos(c.a + r) - c.hAtA : c.full;
  return ((days + turns) * c.full + partial) / OMEGA_DAY;
}

function crossesZero(w: Wave): boolean {
  return Math.abs(w.base) < Math.abs(w.daily) + Math.abs(w.hourly);
}

/** Antiderivative of the positive part of the wave at t. */
export function integralPositive(w: Wave, t: number): number {
  if (!crossesZero(w)) return w.base >= 0 ? integralAll(w, t) : 0;
  return integralPositiveCrossing(w, t);
}

/** Antiderivative of the negative part (as a magnitude), given integralPositive at t. */
export function integralNegative(w: Wave, t: number, positive: number): number {
  if (!crossesZero(w)) return w.base >= 0 ? 0 : -integralAll(w, t);
  // ∫max(f,0) − ∫f = ∫max(−f,0) up to a constant; only differences are ever used.
  return positive - integralAll(w, t);
}

/** Validates the model constraint; used when the fleet is defined. */
export function assertWaveSupported(w: Wave): void {
  if (crossesZero(w) && w.hourly !== 0) throw new Error('a zero-crossing wave must not have an hourly term');
}
