/** When the node asks Amber next: pure, on the node's clock (ms). */

/** Amber publishes an interval's price shortly after it starts: asking 30 s in gets the new one. */
export const POLL_OFFSET_MS = 30_000;
/** Never more often than this, whatever happens. */
export const MIN_POLL_GAP_MS = 60_000;
const FIVE_MIN_MS = 300_000;

export interface CurrentSlot {
  /** Unix s. */
  start: number;
  end: number;
  estimate?: boolean;
}

/**
 * ~30 s into the next interval; while the current price is an estimate, once more when it turns final
 * (30 s into its last 5 minutes); after a 429, not before the limit resets. At most once a minute.
 */
export function nextPollAt(nowMs: number, lastPollMs: number | undefined, resolutionMin: 5 | 30, current: CurrentSlot | undefined, blockedUntilMs = 0): number {
  const interval = resolutionMin * 60_000;
  const nextInterval = (Math.floor(nowMs / interval) + 1) * interval + POLL_OFFSET_MS;
  let at = nextInterval;
  if (current?.estimate) {
    const final = Math.max(current.start * 1000, current.end * 1000 - FIVE_MIN_MS) + POLL_OFFSET_MS;
    if (final > nowMs && final < at) at = final;
    else if (final <= nowMs) at = Math.min(at, nowMs + MIN_POLL_GAP_MS);
  }
  const earliest = Math.max(lastPollMs === undefined ? nowMs : lastPollMs + MIN_POLL_GAP_MS, blockedUntilMs + 1000);
  return Math.max(at, earliest, nowMs);
}
