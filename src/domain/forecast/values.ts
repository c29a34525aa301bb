/** Reading numbers and times out of a provider's answer: anything that is not a finite number is a gap. */

export const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** W rounded to 0.1. */
export const watts = (w: number): number => Math.round(w * 10) / 10;

/** `PT30M`, `PT1H`, `PT15M` as seconds; undefined when it is none of these shapes. */
export function isoDurationS(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(text);
  if (!m || (!m[1] && !m[2] && !m[3])) return undefined;
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return s > 0 ? s : undefined;
}

/** The step most periods of a series have (its resolution), from consecutive stamps. */
export function commonStep(stamps: readonly number[]): number | undefined {
  const counts = new Map<number, number>();
  for (let i = 1; i < stamps.length; i++) {
    const d = stamps[i] - stamps[i - 1];
    if (d > 0) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  let best: number | undefined;
  for (const [d, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0) || (n === counts.get(best) && d < best)) best = d;
  return best;
}
