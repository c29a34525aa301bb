/**
 * Per-device energy derived from the synthetic power model. Energies are differences of
 * cumulative counters rounded to whole Joules, so entries over adjacent periods always add
 * up exactly to the entry over their union, whatever the granularity.
 */
import { integralNegative, integralPositive, waveAt, type Wave } from './power.js';
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
    const t = dev.dataStart;
    o = dev.power.map((p) => {
      const realPos = integralPositive(p.real, t);
      const reactivePos = integralPositive(p.reactive, t);
      return { realPos, realNeg: integralNegative(p.real, t, realPos), reactivePos, reactiveNeg: integralNegative(p.reactive, t, reactivePos) };
    });
    origins.set(dev, o);
  }
  return o;
}

export function countersAt(dev: SimDevice, t: number): Counters {
  const at = Math.max(t, dev.dataStart);
  const origin = originOf(dev);
  const n = dev.power.length;
  const out: Counters = { realPos: new Array<number>(n), realNeg: new Array<number>(n), reactivePos: new Array<number>(n), reactiveNeg: new Array<number>(n) };
  for (let i = 0; i < n; i++) {
    const real: Wave = dev.power[i].real;
    const reactive: Wave = dev.power[i].reactive;
    const rp = integralPositive(real, at);
    const qp = integralPositive(reactive, at);
    out.realPos[i] = Math.round(rp - origin[i].realPos);
    out.realNeg[i] = Math.round(integralNegative(real, at, rp) - origin[i].realNeg);
    out.reactivePos[i] = Math.round(qp - origin[i].reactivePos);
    out.reactiveNeg[i] = Math.round(integralNegative(reactive, at, qp) - origin[i].reactiveNeg);
  }
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
  return 230 + 2.5 * Math.sin((2 * Math.PI * (t % DAY)) / DAY + seed) + 0.7 * Math.sin((2 * Math.PI * (t % 1370)) / 1370);
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
  return round(50 + 0.04 * Math.sin((2 * Math.PI * (t % 917)) / 917) + 0.02 * Math.sin((2 * Math.PI * (t % 131)) / 131), 3);
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

/** Instantaneous per-channel volts and amps at t. */
export interface Instant {
  v: number[];
  i: number[];
}

export function instantAt(dev: SimDevice, t: number): Instant {
  const volts = voltsAt(dev, t);
  const v = round(volts, 2);
  const n = dev.power.length;
  const out: Instant = { v: new Array<number>(n), i: new Array<number>(n) };
  for (let k = 0; k < n; k++) {
    out.v[k] = v;
    out.i[k] = round(Math.abs(waveAt(dev.power[k].real, t)) / volts, 3);
  }
  return out;
}

/**
 * Min and max over a period from samples at its ends (shared with the neighbouring periods,
 * so each boundary is sampled once) plus interior samples on longer periods.
 */
export function rangeOver(dev: SimDevice, a: number, b: number, atA: Instant, atB: Instant): { v: { min: number[]; max: number[] }; i: { min: number[]; max: number[] } } {
  const n = atA.v.length;
  const out = {
    v: { min: new Array<number>(n), max: new Array<number>(n) },
    i: { min: new Array<number>(n), max: new Array<number>(n) },
  };
  for (let k = 0; k < n; k++) {
    out.v.min[k] = Math.min(atA.v[k], atB.v[k]);
    out.v.max[k] = Math.max(atA.v[k], atB.v[k]);
    out.i.min[k] = Math.min(atA.i[k], atB.i[k]);
    out.i.max[k] = Math.max(atA.i[k], atB.i[k]);
  }
  const step = Math.max(1800, (b - a) / 24);
  for (let t = a + step; t < b; t += step) {
    const s = instantAt(dev, t);
    for (let k = 0; k < n; k++) {
      out.v.min[k] = Math.min(out.v.min[k], s.v[k]);
      out.v.max[k] = Math.max(out.v.max[k], s.v[k]);
      out.i.min[k] = Math.min(out.i.min[k], s.i[k]);
      out.i.max[k] = Math.max(out.i.max[k], s.i[k]);
    }
  }
  return out;
}

export { round };
