/**
 * Per-device energy derived from the synthetic power model. Energies are differences of
 * cumulative counters rounded to whole Joules, so entries over adjacent periods always add
 * up exactly to the entry over their union, whatever the granularity.
 */
import { integralParts, waveAt } from './power.js';
import type { SimDevice } from './types.js';

const DAY = 86400;

/** Whole-Joule counters per channel since the device's dataStart. */
export interface Counters {
  realPos: number[];
  realNeg: number[];
  reactivePos: number[];
  reactiveNeg: number[];
}

interface Origin {
  realPos: number; realNeg: number; reactivePos: number; reactiveNeg: number;
}

const origins = new WeakMap<SimDevice, Origin[]>();

function originOf(dev: SimDevice): Origin[] {
  let o = origins.get(dev);
  if (!o) {
    o = dev.power.map((p) => {
      const r = integralParts(p.real, dev.dataStart);
      const q = integralParts(p.reactive, dev.dataStart);
      return { realPos: r.pos, realNeg: r.neg, reactivePos: q.pos, reactiveNeg: q.neg };
    });
    origins.set(dev, o);
  }
  return o;
}

export function countersAt(dev: SimDevice, t: number): Counters {
  const at = Math.max(t, dev.dataStart);
  const origin = originOf(dev);
  const out: Counters = { realPos: [], realNeg: [], reactivePos: [], reactiveNeg: [] };
  dev.power.forEach((p, i) => {
    const r = integralParts(p.real, at);
    const q = integralParts(p.reactive, at);
    out.realPos.push(Math.round(r.pos - origin[i].realPos));
    out.realNeg.push(Math.round(r.neg - origin[i].realNeg));
    out.reactivePos.push(Math.round(q.pos - origin[i].reactivePos));
    out.reactiveNeg.push(Math.round(q.neg - origin[i].reactiveNeg));
  });
  return out;
}

export const diff = (a: number[], b: number[]): number[] => a.map((x, i) => b[i] - x);

const round = (x: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};

/** Mains voltage of the device at t (same on every channel). */
function voltsAt(dev: SimDevice, t: number): number {
  const seed = dev.id.charCodeAt(12);
  return 230 + 2.5 * Math.sin((2 * Math.PI * t) / DAY + seed) + 0.7 * Math.sin((2 * Math.PI * t) / 1370);
}

export function vRmsAt(dev: SimDevice, t: number): number[] {
  const v = round(voltsAt(dev, t), 2);
  return dev.power.map(() => v);
}

export function iRmsAt(dev: SimDevice, t: number): number[] {
  const v = voltsAt(dev, t);
  return dev.power.map((p) => round(Math.abs(waveAt(p.real, t)) / v, 3));
}

export function frequencyAt(dev: SimDevice, t: number): number {
  return round(50 + 0.04 * Math.sin((2 * Math.PI * t) / 917) + 0.02 * Math.sin((2 * Math.PI * t) / 131), 3);
}

/** Signed net power (W) of all channels at t, and reactive (var). */
export function totalPowerAt(dev: SimDevice, t: number): { real: number; reactive: number } {
  let real = 0;
  let reactive = 0;
  for (const p of dev.power) {
    real += waveAt(p.real, t);
    reactive += waveAt(p.reactive, t);
  }
  return { real, reactive };
}

export function perChannelPowerAt(dev: SimDevice, t: number): number[] {
  return dev.power.map((p) => waveAt(p.real, t));
}

/** Min and max of samples at the start, middle and end of a period. */
export function rangeOver(sample: (t: number) => number[], a: number, b: number): { min: number[]; max: number[] } {
  const s = [sample(a), sample((a + b) / 2), sample(b)];
  return {
    min: s[0].map((_, i) => Math.min(s[0][i], s[1][i], s[2][i])),
    max: s[0].map((_, i) => Math.max(s[0][i], s[1][i], s[2][i])),
  };
}

export { round };
