/**
 * The price endpoint's own rate limit, as Amber states it in IETF RateLimit headers on every answer:
 * RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds until the window resets) and
 * RateLimit-Policy (`50;w=300`: 50 requests per 300 s window). A window opens with a key's first request
 * and is counted on the simulator's clock; a refused request is answered 429 and not counted.
 */
export interface AmberLimitSettings {
  limit?: number;
  windowS?: number;
}

export class AmberLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(public limit = 50, public windowS = 300) {}

  clear(): void {
    this.windows.clear();
  }

  take(key: string, now: number): { ok: boolean; headers: Record<string, string> } {
    let w = this.windows.get(key);
    if (!w || now >= w.start + this.windowS) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    const ok = w.count < this.limit;
    if (ok) w.count += 1;
    const reset = Math.max(1, Math.ceil(w.start + this.windowS - now));
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(this.limit),
      'RateLimit-Remaining': String(Math.max(0, this.limit - w.count)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${this.limit};w=${this.windowS}`,
    };
    return { ok, headers };
  }
}
