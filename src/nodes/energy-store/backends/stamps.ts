import type { StreamKey } from './types.js';

/**
 * How a read of [fromTs, toTs) selects rows by their stamp, as energy-query selects entries. Rows are
 * stamped at the END of their period: a long-energy row stamped ts covers (ts − duration, ts], so the
 * periods of the range are the rows fromTs < ts <= toTs. Short energy is selected by stamp, as the
 * service selects it: fromTs <= ts < toTs.
 */
export function stampBounds(kind: StreamKey['kind']): { above: '>' | '>='; upTo: '<=' | '<' } {
  return kind === 'short' ? { above: '>=', upTo: '<' } : { above: '>', upTo: '<=' };
}

/** The range whose read selects exactly the rows stamped `ts`. */
export function stampedAt(kind: StreamKey['kind'], ts: number): { fromTs: number; toTs: number } {
  return kind === 'short' ? { fromTs: ts, toTs: ts + 1 } : { fromTs: ts - 1, toTs: ts };
}
