import type { ForecastOutput } from '../../domain/forecast/session.js';
import type { ForecastSource } from '../../domain/forecast/types.js';

/** `msg.forecastSource`: the forecast sent is the one just fetched, or the last good one kept while the source fails. */
export type ForecastFreshness = 'live' | 'last good';

/** The node's output msg (on top of an input msg's properties, when a msg asked). */
export function forecastMessage(out: ForecastOutput, source: ForecastSource, freshness: ForecastFreshness, base: Record<string, unknown> = {}, problem?: string): Record<string, unknown> {
  const msg: Record<string, unknown> = {
    ...base,
    topic: typeof base.topic === 'string' && base.topic ? base.topic : 'forecast',
    payload: out.powerNow,
    forecast: out.forecast,
    forecastSource: freshness,
    // What energy-load-control reads: its plan says it runs on the last forecast.
    forecastStale: freshness === 'last good',
    source,
    issuedAt: out.issuedAt,
    todayKwh: out.todayKwh,
    tomorrowKwh: out.tomorrowKwh,
    gaps: out.gaps,
  };
  if (out.calibration) {
    msg.calibration = out.calibration;
    msg.forecastUncalibrated = out.uncalibrated;
  }
  if (problem) msg.forecastError = problem;
  return msg;
}
