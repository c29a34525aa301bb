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

export function waveAt(w: Wave, t: number): number {
  return w.base + w.daily * Math.sin(OMEGA_DAY * t + w.dailyPhase) + w.hourly * Math.sin(OMEGA_HOUR * t + w.hourlyPhase);
}

/** Antiderivative of the whole wave (arbitrary constant). */
function integralAll(w: Wave, t: number): number {
  return (
    w.base * t -
    (w.daily / OMEGA_DAY) * Math.cos(OMEGA_DAY * t + w.dailyPhase) -
    (w.hourly / OMEGA_HOUR) * Math.cos(OMEGA_HOUR * t + w.hourlyPhase)
  );
}

/** Antiderivative of max(wave, 0) for a zero-crossing wave (hourly = 0, |base| < |daily|). */
function integralPositiveCrossing(w: Wave, t: number): number {
  // In phase units x = ωd·t + φ, with A = base and B = |daily| (sign folded into the phase).
  const A = w.base;
  const B = Math.abs(w.daily);
  const phase = w.daily < 0 ? w.dailyPhase + Math.PI : w.dailyPhase;
  const x = OMEGA_DAY * t + phase;
  const a = Math.asin(-A / B); // positive arc is (a, π − a)
  const H = (u: number): number => A * u - B * Math.cos(u);
  const arc = Math.PI - 2 * a;
  const full = H(Math.PI - a) - H(a);
  const n = Math.floor((x - a) / TWO_PI);
  const r = x - a - TWO_PI * n;
  const partial = r <= arc ? H(a + r) - H(a) : full;
  return (n * full + partial) / OMEGA_DAY;
}

function crossesZero(w: Wave): boolean {
  return Math.abs(w.base) < Math.abs(w.daily) + Math.abs(w.hourly);
}

/** Positive and negative (as magnitude) parts of the antiderivative at t. */
export function integralParts(w: Wave, t: number): { pos: number; neg: number } {
  if (!crossesZero(w)) {
    const all = integralAll(w, t);
    return w.base >= 0 ? { pos: all, neg: 0 } : { pos: 0, neg: -all };
  }
  const pos = integralPositiveCrossing(w, t);
  // ∫max(f,0) − ∫f = ∫max(−f,0) up to a constant; only differences are ever used.
  return { pos, neg: pos - integralAll(w, t) };
}

/** Validates the model constraint; used when the fleet is defined. */
export function assertWaveSupported(w: Wave): void {
  if (crossesZero(w) && w.hourly !== 0) throw new Error('a zero-crossing wave must not have an hourly term');
}
