/**
 * Amber's interval objects (ActualInterval, CurrentInterval, ForecastInterval) built from the market's
 * 5-minute prices, as Amber's public API description has them: perKwh and spotPerKwh in c/kWh including
 * GST, startTime one second after the interval's start, endTime on its end, nemTime the end in NEM time
 * (UTC+10), date the NEM date of the interval, a 30-minute price the average of its six 5-minute prices,
 * estimate on the current interval until its last 5-minute price is published.
 */
import { finalSpot, forecastSpot, FIVE_MIN, inSpike, networkPeriod, perKwh, PUBLISH_DELAY_S, solarShare, type Channel, type MarketSite } from './market.js';

const NEM_OFFSET = 10 * 3600;

export type Resolution = 5 | 30;

const round5 = (x: number): number => Math.round(x * 1e5) / 1e5;
const isoUtc = (t: number): string => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
const nemIso = (t: number): string => `${new Date((t + NEM_OFFSET) * 1000).toISOString().slice(0, 19)}+10:00`;
const nemDate = (t: number): string => new Date((t + NEM_OFFSET) * 1000).toISOString().slice(0, 10);

function descriptor(generalPerKwh: number, spike: boolean): string {
  if (spike) return 'spike';
  if (generalPerKwh < 0) return 'extremelyLow';
  if (generalPerKwh < 10) return 'veryLow';
  if (generalPerKwh < 20) return 'low';
  if (generalPerKwh < 35) return 'neutral';
  return 'high';
}

interface Part {
  spot: number;
  final: boolean;
  spike: boolean;
  potential: boolean;
}

/** One 5-minute part as known at `asOf`: published, the current estimate, or a forecast. */
function part(m: MarketSite, t: number, asOf: number): Part {
  const published = t + FIVE_MIN <= asOf || asOf - t >= PUBLISH_DELAY_S;
  if (published) {
    const spike = inSpike(m, t) !== undefined;
    return { spot: finalSpot(m, t), final: true, spike, potential: false };
  }
  const f = forecastSpot(m, t, asOf);
  return { spot: f.spot, final: false, spike: false, potential: f.potentialSpike };
}

/** The interval of `channel` starting at `start` (aligned to its resolution), as known at `asOf`. */
export function amberInterval(m: MarketSite, channel: Channel, start: number, resolution: Resolution, asOf: number): Record<string, unknown> {
  const end = start + resolution * 60;
  const parts: Array<Part & { t: number }> = [];
  for (let t = start; t < end; t += FIVE_MIN) parts.push({ ...part(m, t, asOf), t });
  const mean = (f: (p: Part & { t: number }) => number): number => parts.reduce((sum, p) => sum + f(p), 0) / parts.length;
  const spot = mean((p) => p.spot);
  const price = mean((p) => perKwh(m, channel, p.spot, p.t));
  const general = mean((p) => perKwh(m, 'general', p.spot, p.t));
  const spike = parts.some((p) => p.spike);
  const type = end <= asOf ? 'ActualInterval' : start <= asOf ? 'CurrentInterval' : 'ForecastInterval';
  const interval: Record<string, unknown> = {
    type,
    date: nemDate(start),
    duration: resolution,
    startTime: isoUtc(start + 1),
    endTime: isoUtc(end),
    nemTime: nemIso(end),
    perKwh: round5(price),
    renewables: round5(100 * (0.22 + 0.55 * mean((p) => solarShare(m, p.t)))),
    spotPerKwh: round5(spot),
    channelType: channel,
    spikeStatus: spike ? 'spike' : parts.some((p) => p.potential) ? 'potential' : 'none',
    tariffInformation: { period: networkPeriod(m, start) },
    descriptor: descriptor(general, spike),
  };
  if (type === 'CurrentInterval') interval.estimate = parts.some((p) => !p.final);
  return interval;
}
