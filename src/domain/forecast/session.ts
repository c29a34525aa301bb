/**
 * One forecast node's memory and judgement, without Node-RED: the last good forecast, the archive of forecasts
 * waiting for their measurement, the calibration pairs of the last days, when the solar channel is read next, and
 * the forecast it gives out (calibrated when calibration lowers the error). Plain data in and out (`kept()`), so the
 * node can keep it across restarts.
 */
import { archiveForecast, solarByRecord, takePairs, type ArchivedPeriod, type EnergyRecord, type Pair } from './archive.js';
import { applyCalibration, evaluateCalibration, fitCalibration, type CalibrationModel, type CalibrationReport } from './calibration.js';
import { LocalTime } from './local-time.js';
import type { ForecastPeriod, ForecastSource, ReadForecast } from './types.js';

export interface LastGood {
  periods: ForecastPeriod[];
  /** Unix s when it was fetched. */
  issuedAt: number;
  source: ForecastSource;
  gaps: number;
}

export interface Kept {
  version: 1;
  lastGood?: LastGood;
  archive: ArchivedPeriod[];
  pairs: Pair[];
  /** Unix s up to which the solar channel was read. */
  actualsUntil?: number;
}

export const EMPTY_KEPT: Kept = { version: 1, archive: [], pairs: [] };

export function isKept(value: unknown): value is Kept {
  const v = value as Partial<Kept> | null;
  return !!v && v.version === 1 && Array.isArray(v.archive) && Array.isArray(v.pairs);
}

export interface SessionOptions {
  source: ForecastSource;
  timezone: string;
  /** Days of pairs calibration learns from; undefined = no calibration. */
  calibrationDays?: number;
}

/** What the node sends. */
export interface ForecastOutput {
  forecast: ForecastPeriod[];
  /** The source's own numbers (the same as `forecast` when calibration is off or not applied). */
  uncalibrated: ForecastPeriod[];
  /** Forecast power now (W), null when the forecast does not cover now. */
  powerNow: number | null;
  /** kWh forecast for today (whole local day) and tomorrow. */
  todayKwh: number;
  tomorrowKwh: number;
  issuedAt: number;
  gaps: number;
  calibration?: CalibrationReport & { factor?: number };
}

/** A read of 5-minute long energy: at most 7 days, what one request gives. */
const MAX_READ_S = 7 * 86400;
/** Devices report every few minutes: a day is read once it has been over for this long. */
const SETTLE_S = 1800;

export class ForecastSession {
  private readonly local: LocalTime;
  private lastGood?: LastGood;
  private readonly archive = new Map<number, ArchivedPeriod>();
  private pairs: Pair[];
  private actualsUntil?: number;
  private model?: CalibrationModel;
  private report?: CalibrationReport;

  constructor(private readonly options: SessionOptions, kept: Kept = EMPTY_KEPT) {
    this.local = new LocalTime(options.timezone);
    this.lastGood = kept.lastGood?.source === options.source ? kept.lastGood : undefined;
    for (const p of kept.archive) this.archive.set(p.start, p);
    this.pairs = [...kept.pairs];
    this.actualsUntil = kept.actualsUntil;
    this.refit();
  }

  get hasForecast(): boolean {
    return this.lastGood !== undefined;
  }

  get lastIssuedAt(): number | undefined {
    return this.lastGood?.issuedAt;
  }

  /** A forecast just read at `nowS`: it becomes the last good one, and its coming periods wait for their measurement. */
  accept(read: ReadForecast, nowS: number): void {
    const from = this.local.dayStart(nowS);
    const periods = read.periods.filter((p) => p.end > from);
    this.lastGood = { periods, issuedAt: nowS, source: this.options.source, gaps: read.gaps };
    if (this.options.calibrationDays !== undefined) archiveForecast(this.archive, periods, nowS, this.local);
  }

  /** The range of the solar channel to read now (whole past local days, one request), or undefined. */
  actualsDue(nowS: number): { fromTs: number; toTs: number } | undefined {
    if (this.options.calibrationDays === undefined) return undefined;
    const today = this.local.dayStart(nowS);
    if (nowS < today + SETTLE_S) return undefined;
    if (this.actualsUntil !== undefined && this.actualsUntil >= today) return undefined;
    let oldest = Infinity;
    for (const p of this.archive.values()) if (p.end <= today) oldest = Math.min(oldest, p.start);
    if (!Number.isFinite(oldest)) return undefined;
    const fromTs = Math.max(Math.floor(oldest / 300) * 300, today - MAX_READ_S, this.actualsUntil ?? -Infinity);
    return fromTs < today ? { fromTs, toTs: today } : undefined;
  }

  /** The solar channel's 5-minute records of [fromTs, toTs): pairs for the archived periods, the model learnt again. */
  acceptActuals(entries: readonly EnergyRecord[], channel: number, range: { fromTs: number; toTs: number }): void {
    const records = solarByRecord(entries, channel);
    // Periods before the read (older than a week) can never be measured now: they leave without a pair.
    for (const [start, p] of this.archive) if (p.end <= range.fromTs) this.archive.delete(start);
    const fresh = takePairs(this.archive, records, range.toTs, this.local);
    const keepFrom = this.local.day(range.toTs - 1) - (this.options.calibrationDays ?? 0) + 1;
    this.pairs = [...this.pairs.filter((p) => !fresh.some((f) => f.start === p.start)), ...fresh].filter((p) => p.day >= keepFrom).sort((a, b) => a.start - b.start);
    this.actualsUntil = range.toTs;
    this.refit();
  }

  private refit(): void {
    if (this.options.calibrationDays === undefined) return;
    this.model = fitCalibration(this.pairs);
    this.report = evaluateCalibration(this.pairs);
  }

  /** The forecast to send at `nowS`; undefined before any good forecast. */
  output(nowS: number): ForecastOutput | undefined {
    const last = this.lastGood;
    if (!last) return undefined;
    const applied = this.model && this.report?.applied ? this.model : undefined;
    const forecast = applied ? applyCalibration(applied, last.periods, this.local) : last.periods;
    const now = forecast.find((p) => p.start <= nowS && p.end > nowS);
    const today = this.local.dayStart(nowS);
    const tomorrow = this.local.dayStart(today + 86400 + 3600);
    const after = this.local.dayStart(tomorrow + 86400 + 3600);
    const kwh = (from: number, to: number): number => Math.round(forecast.filter((p) => p.start >= from && p.start < to).reduce((s, p) => s + (p.power * (p.end - p.start)) / 3.6e6, 0) * 100) / 100;
    const out: ForecastOutput = {
      forecast, uncalibrated: last.periods, powerNow: now ? now.power : null, todayKwh: kwh(today, tomorrow), tomorrowKwh: kwh(tomorrow, after),
      issuedAt: last.issuedAt, gaps: last.gaps,
    };
    if (this.options.calibrationDays !== undefined) {
      out.calibration = this.report
        ? { ...this.report, factor: applied ? Math.round(applied.overall * 1000) / 1000 : undefined }
        : { days: 0, before: { maeKwh: 0, biasKwh: 0 }, applied: false };
    }
    return out;
  }

  /** Plain data to keep across restarts. */
  kept(): Kept {
    return { version: 1, lastGood: this.lastGood, archive: [...this.archive.values()], pairs: this.pairs, actualsUntil: this.actualsUntil };
  }
}
