/**
 * Solar forecasts of a simulated site, made from the simulator's own weather (the same days, sun and clouds the
 * device's solar channel records) with the errors a real forecast has: the hours ahead are known well (a nowcast
 * sees the passing clouds), a day ahead only the day's kind of sky, with an error that grows with the lead time; on
 * cloudy days a day-ahead forecast is too sunny more often than not. P10 and P90 state the forecast's own spread and
 * bracket the truth about 80 % of the time. Deterministic: the same device, seed, issue time and period give the same
 * numbers, and a forecast issued in the same three hours is the same forecast.
 * The power is for the array's declared size (`declaredKwp` when the owner declared more than the array gives).
 */
import { noise } from '../site/random.js';
import { DAY, RECORD, context, momentAt, type SiteContext } from '../site/day.js';
import { solarClearSky, type ChannelRole } from '../site/roles.js';
import type { Location } from '../site/sun.js';
import { cloudFactor, type Sky } from '../site/weather.js';
import type { SimDevice } from '../types.js';

export interface ForecastPeriod {
  /** Unix seconds. */
  start: number;
  end: number;
  /** Mean power over the period (W). */
  power: number;
  p10: number;
  p90: number;
}

export interface ForecastOptions {
  /** Length of each period (s), a multiple of 300. Default 1800. */
  stepS?: number;
  /** First period's start; default the period holding `issuedAt`. */
  from?: number;
  /** Array size the power is for; default the declared size. */
  kwp?: number;
}

type SolarRole = ChannelRole & { kind: 'solar' };

/** A new forecast every three hours (the providers' models run a few times a day; their answers move within that). */
const ISSUE_BLOCK_S = 3 * 3600;
const SALT = 0xf0ca57;
/** Error (share of clear sky) of a forecast by the sky that came: a day's clouds are harder to place than sun. */
const SPREAD: Record<Sky, number> = { clear: 0.05, 'broken cloud': 0.13, cloudy: 0.1 };
/** How much an hour's sky strays from the day's own mean. */
const HOUR_SPREAD: Record<Sky, number> = { clear: 0.02, 'broken cloud': 0.13, cloudy: 0.05 };
/** z of the 10th and 90th percentiles of a normal distribution. */
const Z90 = 1.2816;

export function solarRoleOf(dev: SimDevice): SolarRole | undefined {
  return dev.roles.find((r): r is SolarRole => r.kind === 'solar');
}

/** kWp the owner declared to forecast providers (what the array gives unless declared otherwise). */
export function declaredKwp(dev: SimDevice): number {
  const role = solarRoleOf(dev);
  return role ? role.declaredKwp ?? role.kwp : 0;
}

/** Latitude and longitude the device's sun is computed for. */
export function siteLocation(dev: SimDevice): Location {
  return context(dev, Math.floor(dev.since / DAY)).loc;
}

/** A standard normal number from two seeded uniforms (Box-Muller). */
function gauss(seed: number, a: number, b: number, c: number): number {
  const u1 = Math.max(1e-9, noise(seed, a, b, c));
  const u2 = noise(seed, a ^ 0x5bd1e995, b, c);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

interface Records {
  /** Clear-sky power of 1 kWp and the share of it that reached the panels, per 5-minute record. */
  clear: number;
  cloud: number;
  sky: Sky;
  localDay: number;
}

/** Contexts by UTC day (zone offset and weather cache), so a long horizon needs few. */
class SiteView {
  private readonly contexts = new Map<number, SiteContext>();
  private readonly dayMeans = new Map<number, number>();
  constructor(readonly dev: SimDevice) {}

  record(t: number): Records {
    const day = Math.floor(t / DAY);
    let ctx = this.contexts.get(day);
    if (!ctx) this.contexts.set(day, (ctx = context(this.dev, day)));
    const m = momentAt(ctx, t);
    const clear = solarClearSky(1, m.sun);
    return { clear, cloud: clear > 0 ? cloudFactor(this.dev.seed, this.dev.site, m.weather, m.record) : 0, sky: m.weather.sky, localDay: m.localDay };
  }

  /** The local day's share of clear-sky energy that reached the panels. */
  dayMean(localDay: number, sample: number): number {
    const known = this.dayMeans.get(localDay);
    if (known !== undefined) return known;
    let sun = 0;
    let got = 0;
    const from = Math.floor(sample / DAY) * DAY - DAY;
    for (let t = from + RECORD / 2; t < from + 3 * DAY; t += RECORD) {
      const r = this.record(t);
      if (r.localDay !== localDay || r.clear <= 0) continue;
      sun += r.clear;
      got += r.clear * r.cloud;
    }
    const mean = sun > 0 ? got / sun : 0;
    this.dayMeans.set(localDay, mean);
    return mean;
  }
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/**
 * The forecast issued at `issuedAt` (unix s) for `horizonHours` from the first period, in periods of `stepS`.
 * Periods before `issuedAt` are forecast as a nowcast (lead 0). Night periods are 0 with P10 = P90 = 0.
 */
export function forecastFor(dev: SimDevice, issuedAt: number, horizonHours: number, options: ForecastOptions = {}): ForecastPeriod[] {
  const role = solarRoleOf(dev);
  const stepS = options.stepS ?? 1800;
  if (!Number.isInteger(stepS / RECORD) || stepS <= 0) throw new Error(`stepS must be a multiple of ${RECORD} s`);
  const from = options.from ?? Math.floor(issuedAt / stepS) * stepS;
  const kwp = options.kwp ?? declaredKwp(dev);
  const view = new SiteView(dev);
  const issue = Math.floor(issuedAt / ISSUE_BLOCK_S);
  const out: ForecastPeriod[] = [];
  for (let start = from; start < from + horizonHours * 3600; start += stepS) {
    const end = start + stepS;
    if (!role) {
      out.push({ start, end, power: 0, p10: 0, p90: 0 });
      continue;
    }
    let clear = 0;
    let got = 0;
    let sky: Sky = 'clear';
    let localDay = 0;
    for (let t = start + RECORD / 2; t < end; t += RECORD) {
      const r = view.record(t);
      clear += r.clear;
      got += r.clear * r.cloud;
      sky = r.sky;
      localDay = r.localDay;
    }
    if (clear <= 0) {
      out.push({ start, end, power: 0, p10: 0, p90: 0 });
      continue;
    }
    const records = stepS / RECORD;
    const clearPower = kwp * (clear / records);
    const lead = Math.max(0, (start - issuedAt) / 3600);
    // What the forecaster can know: the period's own sky a few hours out, only the day's mean sky further out.
    const sees = Math.exp(-lead / 3);
    const truth = got / clear;
    const dayMean = view.dayMean(localDay, start);
    const base = sees * truth + (1 - sees) * dayMean;
    const growth = 0.3 + 0.7 * Math.min(1, lead / 36);
    const z = 0.75 * gauss(dev.seed, dev.site ^ SALT, localDay, 0) + 0.66 * gauss(dev.seed, dev.site ^ SALT, localDay, issue + 1);
    const sigma = SPREAD[sky] * growth + 0.01;
    // Cloudy days forecast a day ahead: too sunny more often than not; clear days: a little too cautious.
    const dayU = noise(dev.seed, dev.site ^ SALT ^ 0x77, localDay);
    const ahead = Math.min(1, lead / 24);
    const bias = sky === 'cloudy' ? 0.3 * ahead * dayU : sky === 'clear' ? -0.06 * ahead * dayU : 0;
    const share = clamp(base + bias + sigma * z, 0.04, 1);
    // The spread the forecaster states: its error and the hour's own wandering it cannot see, widened on the side
    // its known lean (too sunny on cloudy days, too cautious on clear ones) leaves open.
    const stated = 0.9 * Z90 * Math.hypot(sigma, (1 - sees) * HOUR_SPREAD[sky]);
    const p10 = clamp(share - stated - 0.9 * Math.max(0, bias), 0, 1);
    const p90 = clamp(share + stated + 0.9 * Math.max(0, -bias), 0, 1);
    out.push({ start, end, power: round(clearPower * share), p10: round(clearPower * p10), p90: round(clearPower * p90) });
  }
  return out;
}

/** What the array really gave over [start, end) as mean power (W): the device's solar channel, before any switch. */
export function actualSolar(dev: SimDevice, start: number, end: number): number {
  const role = solarRoleOf(dev);
  if (!role || end <= start) return 0;
  const view = new SiteView(dev);
  let got = 0;
  let n = 0;
  for (let t = Math.floor(start / RECORD) * RECORD + RECORD / 2; t < end; t += RECORD, n++) {
    const r = view.record(t);
    got += r.clear * r.cloud;
  }
  return n > 0 ? round((role.kwp * got) / n) : 0;
}

const round = (w: number): number => Math.round(w * 10) / 10;
