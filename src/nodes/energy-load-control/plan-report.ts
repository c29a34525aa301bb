import type { NodeMessage } from 'node-red';
import { DateTime } from 'luxon';
import { fromMicros } from '../../domain/pricing/money.js';
import type { PlanReason } from '../../domain/planning/planner.js';
import type { LoadIds, StatusWords } from './words.js';
import type { Evaluation, TargetState } from '../../domain/site/types.js';

/** One slot of the plan as output 3 sends it: ready for a Dashboard 2 ui-chart (x = start in ms, y = price, series). */
export interface PlanSlot {
  start: number;
  end: number;
  /** Import price per kWh; null where no price is known. */
  price: number | null;
  exportPrice?: number;
  planned: 'on' | 'off';
  reason?: PlanReason;
  estimate?: boolean;
  spike?: boolean;
  x: number;
  y: number | null;
  series: 'planned' | 'price';
}

/** The plan's units merged back into slots: one per price slot and planned state. */
export function planSlots(target: TargetState): PlanSlot[] {
  const slots: PlanSlot[] = [];
  let key = '';
  target.units.forEach((u, i) => {
    const p = target.plan[i];
    const k = `${u.slotKey}|${p.on}|${p.reason ?? ''}`;
    const last = slots[slots.length - 1];
    if (last && k === key && last.end === u.start) {
      last.end = u.end;
      return;
    }
    key = k;
    const price = u.importMicros === null ? null : fromMicros(u.importMicros);
    const slot: PlanSlot = { start: u.start, end: u.end, price, planned: p.on ? 'on' : 'off', x: u.start * 1000, y: price, series: p.on ? 'planned' : 'price' };
    if (u.exportMicros !== 0) slot.exportPrice = fromMicros(u.exportMicros);
    if (p.reason) slot.reason = p.reason;
    if (u.estimate) slot.estimate = true;
    if (u.spike) slot.spike = true;
    slots.push(slot);
  });
  return slots;
}

/** What makes the plan different for a flow: its slots, on/off and reasons, and whether it falls short. */
export function planSignature(target: TargetState): string {
  return JSON.stringify([target.period.end, target.shortS > 0, target.sun ?? '', planSlots(target).map((s) => [s.end, s.price, s.planned, s.reason ?? ''])]);
}

/** Output 3: the plan for the rest of the period, whenever it changes. */
export function planMsg(ids: LoadIds, evaluation: Evaluation, target: TargetState, currency: string | undefined): NodeMessage {
  const msg: Record<string, unknown> = {
    ...ids,
    payload: planSlots(target),
    runFor: target.runForS,
    runTime: target.runS,
    plannedTime: target.plannedS,
    expectedRunTime: target.runS + target.plannedS,
    expectedCost: fromMicros(target.costMicros),
    short: target.shortS,
    by: target.period.end,
    period: { start: target.period.start, end: target.period.end },
    timestamp: evaluation.at,
  };
  if (currency) msg.currency = currency;
  if (target.sun) msg.sun = target.sun;
  const savings = savingsFields(target);
  if (savings) msg.savings = savings;
  return msg as NodeMessage;
}

function duration(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}` : `${m}m`;
}

/** Output 3 is sent only when the plan changes. */
export class PlanOutput {
  private sent?: string;

  /** The plan msg when this evaluation's plan differs from the last one sent. */
  next(ids: LoadIds, evaluation: Evaluation, currency: string | undefined): NodeMessage | undefined {
    const target = evaluation.target;
    const signature = target ? planSignature(target) : undefined;
    const changed = signature !== this.sent;
    this.sent = signature;
    return target && changed ? planMsg(ids, evaluation, target, currency) : undefined;
  }
}

/** Today's saving (naive schedule's cost minus the load's, expected at the day's end) in the currency's words. */
export function savedText(target: TargetState, currency: string | undefined): string | undefined {
  const day = target.savings?.today;
  if (!day || target.noPrices) return undefined;
  return `${fromMicros(Math.round(day.naiveMicros - day.costMicros)).toFixed(2)}${currency ? ` ${currency}` : ''}`;
}

/** The savings on output 3: today (expected at its end) and the last finished days, in the currency. */
export function savingsFields(target: TargetState): Record<string, unknown> | undefined {
  const s = target.savings;
  if (!s) return undefined;
  const day = (d: { start: number; end: number; costMicros: number; naiveMicros: number }) => ({
    start: d.start, end: d.end, cost: fromMicros(Math.round(d.costMicros)), naiveCost: fromMicros(Math.round(d.naiveMicros)), saved: fromMicros(Math.round(d.naiveMicros - d.costMicros)),
  });
  return { today: day(s.today), days: s.days.map(day) };
}

/** What the status adds for a plan: what its sun runs on (surplus mode) and today's saving. */
export function planStatusParts(target: TargetState, currency: string | undefined, words: StatusWords): string[] {
  const parts: string[] = [];
  if (target.sun) parts.push(words(`sun_${target.sun}`));
  const saved = savedText(target, currency);
  if (saved !== undefined) parts.push(words('saved', { amount: saved }));
  return parts;
}

/** The status's target part: run time so far / target, and the next planned start or how short it falls. */
export function targetStatus(target: TargetState, words: (key: 'short' | 'next', values: Record<string, string>) => string): string {
  const parts = [`${duration(target.runS)}/${duration(target.runForS)}`];
  if (target.shortS > 0) parts.push(words('short', { time: duration(target.shortS) }));
  else if (target.nextStart !== undefined) parts.push(words('next', { time: DateTime.fromSeconds(target.nextStart, { zone: target.zone }).toFormat('HH:mm') }));
  return parts.join(' · ');
}
