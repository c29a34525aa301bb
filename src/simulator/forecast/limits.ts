/**
 * The forecast providers' request limits, counted on the simulator's clock:
 * - Forecast.Solar's public plan: 12 requests in any 60 minutes per client (a rolling window), told in
 *   X-Ratelimit-Period, X-Ratelimit-Limit and X-Ratelimit-Remaining, with X-Ratelimit-Retry-At on a 429;
 * - Solcast's hobbyist plan: 10 requests a UTC day per API key (reset at 00:00 UTC);
 * - Open-Meteo's free API: 600 requests a minute and 10,000 a day per client.
 * A refused request is answered 429 and not counted.
 */
export interface ForecastLimitSettings {
  forecastSolarPerHour?: number;
  solcastPerDay?: number;
  openMeteoPerMinute?: number;
  openMeteoPerDay?: number;
}

const DEFAULTS: Required<ForecastLimitSettings> = { forecastSolarPerHour: 12, solcastPerDay: 10, openMeteoPerMinute: 600, openMeteoPerDay: 10000 };
const DAY = 86400;

export class ForecastLimits {
  settings: Required<ForecastLimitSettings> = { ...DEFAULTS };
  private readonly hourly = new Map<string, number[]>();
  /** Counts per key in its current window (a UTC day or a minute number). */
  private readonly daily = new Map<string, Counted>();
  private readonly minutes = new Map<string, Counted>();

  configure(settings: ForecastLimitSettings): void {
    for (const [name, value] of Object.entries(settings) as Array<[keyof ForecastLimitSettings, number | undefined]>) {
      if (value !== undefined) this.settings[name] = value;
    }
    this.clear();
  }

  reset(): void {
    this.settings = { ...DEFAULTS };
    this.clear();
  }

  clear(): void {
    this.hourly.clear();
    this.daily.clear();
    this.minutes.clear();
  }

  /** Forecast.Solar: a rolling hour of request times per client. */
  forecastSolar(client: string, now: number): { ok: boolean; headers: Record<string, string>; remaining: number; retryAt?: number } {
    const limit = this.settings.forecastSolarPerHour;
    const times = (this.hourly.get(client) ?? []).filter((t) => t > now - 3600);
    const ok = times.length < limit;
    if (ok) times.push(now);
    this.hourly.set(client, times);
    const remaining = Math.max(0, limit - times.length);
    const headers: Record<string, string> = { 'X-Ratelimit-Period': '3600', 'X-Ratelimit-Limit': String(limit), 'X-Ratelimit-Remaining': String(remaining) };
    if (ok) return { ok, headers, remaining };
    const retryAt = Math.ceil((times[0] ?? now) + 3600);
    headers['X-Ratelimit-Retry-At'] = new Date(retryAt * 1000).toISOString().replace('.000Z', '+00:00');
    return { ok, headers, remaining, retryAt };
  }

  /** Solcast: requests per UTC day per key. */
  solcast(key: string, now: number): boolean {
    return this.perWindow(this.daily, key, Math.floor(now / DAY), this.settings.solcastPerDay);
  }

  /** Open-Meteo: per minute and per day per client; which one refused, or undefined. */
  openMeteo(client: string, now: number): 'minute' | 'day' | undefined {
    const minute = Math.floor(now / 60);
    const day = Math.floor(now / DAY);
    if (countIn(this.minutes, client, minute) >= this.settings.openMeteoPerMinute) return 'minute';
    if (countIn(this.daily, `om:${client}`, day) >= this.settings.openMeteoPerDay) return 'day';
    this.perWindow(this.minutes, client, minute, Infinity);
    this.perWindow(this.daily, `om:${client}`, day, Infinity);
    return undefined;
  }

  private perWindow(map: Map<string, Counted>, key: string, window: number, limit: number): boolean {
    const count = countIn(map, key, window);
    if (count >= limit) return false;
    map.set(key, { window, count: count + 1 });
    return true;
  }
}

interface Counted {
  window: number;
  count: number;
}

function countIn(map: Map<string, Counted>, key: string, window: number): number {
  const entry = map.get(key);
  return entry && entry.window === window ? entry.count : 0;
}
