/** Seeded, deterministic fault injection for API requests. */
import type { FaultSettings } from './types.js';

/** mulberry32: tiny, fast, good enough for reproducible test faults. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Fault =
  | { kind: 'none' }
  | { kind: 'storm429' }
  | { kind: 'reset' }
  | { kind: 'error'; status: 500 | 502 | 503 }
  | { kind: 'malformed' };

const DEFAULT_SEED = 1;
/** Keeps the timing draws apart from the fault draws, so setting a jitter changes no fault sequence. */
const TIMING_SALT = 0x5eed7;

export class FaultInjector {
  private errorRate = 0;
  private resetRate = 0;
  private malformedRate = 0;
  private storm = 0;
  latencyMs: number | undefined;
  latencyJitterMs: number | undefined;
  arrivalJitterMs: number | undefined;
  private random = mulberry32(DEFAULT_SEED);
  private timingRandom: () => number;

  /** `timingSeed` (the simulator's seed) drives the latency and arrival jitter. */
  constructor(private readonly timingSeed = DEFAULT_SEED) {
    this.timingRandom = mulberry32(timingSeed ^ TIMING_SALT);
  }

  configure(s: FaultSettings): void {
    if (s.errorRate !== undefined) this.errorRate = clamp01(s.errorRate);
    if (s.resetRate !== undefined) this.resetRate = clamp01(s.resetRate);
    if (s.malformedRate !== undefined) this.malformedRate = clamp01(s.malformedRate);
    if (s.storm429 !== undefined) this.storm = Math.max(0, Math.floor(s.storm429));
    if (s.latencyMs !== undefined) this.latencyMs = Math.max(0, s.latencyMs);
    if (s.latencyJitterMs !== undefined) this.latencyJitterMs = Math.max(0, s.latencyJitterMs);
    if (s.arrivalJitterMs !== undefined) this.arrivalJitterMs = Math.max(0, s.arrivalJitterMs);
    if (s.seed !== undefined) this.random = mulberry32(s.seed);
  }

  reset(): void {
    this.errorRate = 0;
    this.resetRate = 0;
    this.malformedRate = 0;
    this.storm = 0;
    this.latencyMs = undefined;
    this.latencyJitterMs = undefined;
    this.arrivalJitterMs = undefined;
    this.random = mulberry32(DEFAULT_SEED);
    this.timingRandom = mulberry32(this.timingSeed ^ TIMING_SALT);
  }

  /** A response's latency: `latencyMs` moved uniformly by up to `jitterMs` either way, never below 0. */
  responseDelay(latencyMs: number, jitterMs: number): number {
    if (jitterMs <= 0) return latencyMs;
    return Math.max(0, latencyMs + (2 * this.timingRandom() - 1) * jitterMs);
  }

  /** A request's one-way network delay before the service sees it: uniform in 0..jitterMs. */
  arrivalDelay(jitterMs: number): number {
    return jitterMs > 0 ? this.timingRandom() * jitterMs : 0;
  }

  /** Decides the fate of the next API request; draws from the PRNG only when a rate is set. */
  next(): Fault {
    if (this.storm > 0) {
      this.storm -= 1;
      return { kind: 'storm429' };
    }
    if (this.errorRate + this.resetRate + this.malformedRate === 0) return { kind: 'none' };
    const r = this.random();
    if (r < this.resetRate) return { kind: 'reset' };
    if (r < this.resetRate + this.errorRate) {
      const statuses = [500, 502, 503] as const;
      return { kind: 'error', status: statuses[Math.floor(this.random() * statuses.length)] };
    }
    if (r < this.resetRate + this.errorRate + this.malformedRate) return { kind: 'malformed' };
    return { kind: 'none' };
  }
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
