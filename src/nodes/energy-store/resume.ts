import { MsgError, SHORT_RETENTION_S } from '../../api/index.js';
import type { Watermark } from './backends/types.js';

/**
 * How far back a resume reaches: the short-energy retention (31 days). Within it a follow read of
 * the gap costs at most 62 requests for short energy (12-hour spans) and 5 for 5-minute long
 * energy (7-day spans); an older gap of long energy is filled by a one-off range read.
 */
export const BACKFILL_MAX_S = SHORT_RETENTION_S;

export interface ResumeMsg {
  topic?: unknown;
  deviceId?: unknown;
  kind?: unknown;
  granularity?: unknown;
  fromTs?: unknown;
  backfill?: unknown;
}

/**
 * Turns a `resume` msg into the first trigger of an energy-query in follow mode: `msg.fromTs` one
 * second after the newest entry the store holds of that stream, so the query reads the gap since.
 * `msg.deviceId`, `msg.kind` and `msg.granularity` pick the stream when the store holds several;
 * a store that holds none of them passes the msg on unchanged (the query starts from its own fromTs).
 */
export function resumeFrom(msg: ResumeMsg, marks: readonly Watermark[], nowS: number): void {
  // The query's output keeps the msg's topic: "resume" coming back to the store would be taken for another resume.
  delete msg.topic;
  const matching = marks.filter((m) =>
    (msg.deviceId === undefined || msg.deviceId === m.device)
    && (msg.kind === undefined || msg.kind === m.kind)
    && (msg.granularity === undefined || m.kind === 'short' || msg.granularity === m.granularity));
  if (matching.length === 0) return;
  if (matching.length > 1) {
    const list = matching.map((m) => `${m.device} ${m.kind}${m.granularity ? ` ${m.granularity}` : ''}`).join('; ');
    throw new MsgError(`the store holds ${matching.length} streams (${list}): say which to resume with msg.deviceId, msg.kind and msg.granularity`);
  }
  const [mark] = matching;
  const earliest = nowS - BACKFILL_MAX_S + 3600;
  msg.deviceId = mark.device;
  msg.kind = mark.kind;
  if (mark.kind === 'long') msg.granularity = mark.granularity;
  else delete msg.granularity;
  msg.fromTs = Math.max(mark.newest + 1, earliest);
  if (mark.newest + 1 < earliest) msg.backfill = { newest: mark.newest, clippedTo: earliest, reason: 'the gap is older than the 31-day short-energy retention: read the rest with a one-off range read' };
}
