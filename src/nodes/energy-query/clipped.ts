import { SHORT_RETENTION_S } from '../../api/index.js';

/** Set on msg.clipped when a short-energy range reached back past the 31-day retention and was read from its start. */
export interface Clipped {
  /** The range that was asked for (unix s). */
  requested: { fromTs: number; toTs: number };
  /** The range that was read and returned (unix s): from the oldest retained moment. */
  returned: { fromTs: number; toTs: number };
  /** Why: short energy is kept for this many days. */
  retentionDays: number;
}

/** The clip of [fromTs, toTs) by the short-energy retention at `nowS`; undefined when nothing was cut. */
export function shortRetentionClip(fromTs: number, toTs: number, nowS: number): Clipped | undefined {
  const retainedFrom = nowS - SHORT_RETENTION_S;
  if (fromTs >= retainedFrom || toTs <= retainedFrom) return undefined;
  return {
    requested: { fromTs, toTs },
    returned: { fromTs: retainedFrom, toTs },
    retentionDays: Math.round(SHORT_RETENTION_S / 86400),
  };
}
