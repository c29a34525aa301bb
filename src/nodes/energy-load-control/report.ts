import type { NodeMessage, NodeStatus } from 'node-red';
import { fromMicros } from '../../domain/pricing/money.js';
import { targetStatus } from './plan-report.js';
import type { LoadIds, SignalWord, StatusWords } from './words.js';
import type { Evaluation, LoadMemory, LoadState, Mode, Outcome, Reason } from '../../domain/site/types.js';

export type DecisionOutcome = 'sent' | 'confirmed' | 'timedOut' | 'failed' | 'dryRun' | 'adopted';

/** Output 1: a switch decision and how it ended. */
export function decisionMsg(ids: LoadIds, evaluation: Evaluation, payload: LoadState, outcome: DecisionOutcome, extra: Record<string, unknown> = {}): NodeMessage {
  return {
    ...ids,
    payload,
    outcome,
    reason: evaluation.reason,
    signal: evaluation.signal,
    onAt: evaluation.onAt,
    offAt: evaluation.offAt,
    loadDraw: evaluation.loadDraw,
    timestamp: evaluation.at,
    ...extra,
  } as NodeMessage;
}

/** Output 1 for what happened to an earlier change (confirmed, timed out) or a change made elsewhere. */
export function outcomeMsg(ids: LoadIds, evaluation: Evaluation, outcome: Outcome): NodeMessage {
  if (outcome.kind === 'adopted') return decisionMsg(ids, { ...evaluation, reason: 'steady' }, outcome.state, 'adopted', { reason: 'external' });
  const { change } = outcome;
  return decisionMsg(ids, { ...evaluation, reason: change.reason, signal: change.signal }, outcome.target, outcome.kind, {
    confirmed: outcome.kind === 'confirmed',
    after: outcome.afterS,
  });
}

/** Output 2: every evaluation, chart-ready (payload = the signal, topic = the load). */
export function evaluationMsg(ids: LoadIds, evaluation: Evaluation, memory: LoadMemory): NodeMessage {
  return {
    ...ids,
    payload: evaluation.signal,
    signal: evaluation.signal,
    onAt: evaluation.onAt,
    offAt: evaluation.offAt,
    loadDraw: evaluation.loadDraw,
    state: memory.pending?.target ?? memory.state ?? null,
    pending: Boolean(memory.pending) || evaluation.pending,
    stale: evaluation.stale,
    reason: evaluation.reason,
    holdLeft: evaluation.holdLeftS,
    override: memory.override ? { state: memory.override.state, until: memory.override.until ?? null } : null,
    timestamp: evaluation.at,
    ...(evaluation.target ? targetFields(evaluation) : {}),
  } as NodeMessage;
}

/** With a run target: seconds run so far and the target, the import price now, and the next planned start (unix s). */
function targetFields(evaluation: Evaluation): Record<string, unknown> {
  const target = evaluation.target as NonNullable<Evaluation['target']>;
  return { runTime: target.runS, runFor: target.runForS, price: target.priceMicros === null ? null : fromMicros(target.priceMicros), next: target.nextStart ?? null };
}

function kw(watts: number | null): string {
  if (watts === null) return '–';
  return Math.abs(watts) >= 1000 ? `${(watts / 1000).toFixed(1)} kW` : `${Math.round(watts)} W`;
}

function duration(s: number): string {
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}`;
  return `${s}s`;
}

/**
 * The signal in words that say what it is, never as a bare signed figure: in surplus mode "surplus 1.2 kW" or
 * "deficit 341 W" (the load would import), in peak mode the site's "import" or "export"; in threshold and price
 * mode the measured power as the user's thresholds read it.
 */
function signalText(mode: Mode, signal: number | null, words: StatusWords): string {
  if (signal === null || (mode !== 'surplus' && mode !== 'peak')) return kw(signal);
  const key: SignalWord = mode === 'surplus' ? (signal >= 0 ? 'signalSurplus' : 'signalDeficit') : (signal >= 0 ? 'signalImport' : 'signalExport');
  return words(key, { power: kw(Math.abs(signal)) });
}

/** Status in a few words: signal · state · reason · hold or override time left · run time / target and the next planned start. */
export function statusOf(evaluation: Evaluation, memory: LoadMemory, settings: { mode: Mode; dryRun: boolean }, words: StatusWords): NodeStatus {
  const state = memory.pending ? `→ ${memory.pending.target}` : (memory.state ?? '?');
  // Off for `cheapest`: the plan waits for its cheaper slots (the word alone reads as if it ran on them now).
  const waiting = evaluation.reason === 'cheapest' && !memory.pending && memory.state === 'off';
  const parts = [signalText(settings.mode, evaluation.signal, words), state, words(waiting ? 'waitingForSlots' : evaluation.reason)];
  if (memory.override) {
    const left = memory.override.until === undefined ? '' : duration(Math.max(0, Math.ceil((memory.override.until - evaluation.at) / 1000)));
    parts[2] = `${words('override', { state: memory.override.state })} ${left}`.trim();
  } else if (evaluation.holdLeftS > 0) {
    parts.push(`${words('hold')} ${duration(evaluation.holdLeftS)}`);
  }
  if (settings.dryRun) parts.push(words('dryRun'));
  if (evaluation.target) parts.push(targetStatus(evaluation.target, words));
  // In surplus mode the surplus rule runs the load meanwhile: the missing prices are said beside its reason.
  if (evaluation.target?.noPrices && evaluation.reason !== 'noPrices') parts.push(words('noPrices'));
  const fill = evaluation.stale ? 'red' : memory.pending ? 'blue' : memory.override ? 'yellow' : memory.state === 'on' ? 'green' : 'grey';
  return { fill, shape: memory.state === 'on' ? 'dot' : 'ring', text: parts.join(' · ') };
}
