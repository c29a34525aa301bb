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

export class FaultInjector {
  private errorRate = 0;
  private resetRate = 0;
  private malformedRate = 0;
  private storm = 0;
  latencyMs: number | undefined;
  private random = mulberry32(DEFAULT_SEED);

  configure(s: FaultSettings): void {
    if (s.errorRate !== undefined) this.errorRate = clamp01(s.errorRate);
    if (s.resetRate !== undefined) this.resetRate = clamp01(s.resetRate);
    if (s.malformedRate !== undefined) this.malformedRate = clamp01(s.malformedRate);
    if (s.storm429 !== undefined) this.storm = Math.max(0, Math.floor(s.storm429));
    if (s.latencyMs !== undefined) this.latencyMs = Math.max(0, s.latencyMs);
    if (s.seed !== undefined) this.random = mulberry32(s.seed);
  }

  reset(): void {
    this.errorRate = 0;
    this.resetRate = 0;
    this.malformedRate = 0;
    this.storm = 0;
    this.latencyMs = undefined;
    this.random = mulberry32(DEFAULT_SEED);
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
