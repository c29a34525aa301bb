import type { PlanNow } from '../planning/target.js';
import type { LoadMemory, LoadSettings, LoadState, Reason } from './types.js';

/** What one load sees at an evaluation, after the group has shared the site out. */
export interface LoadView {
  state: LoadState | undefined;
  pending: boolean;
  stale: boolean;
  /** Mode signal (W): measured power (threshold), surplus available to this load (surplus), site import with this load as it is (peak). */
  signal: number | null;
  /** The power the load draws when on (W): learnt or rated. */
  expectedPower: number;
  /** What the load draws now, averaged over the window (W). */
  draw: number;
  /** What the run target's plan asks now (loads with a target, cheapBelow or in price mode). */
  plan?: PlanNow;
}

export interface Decision {
  switchTo?: LoadState;
  reason: Reason;
  holdLeftS: number;
  onAt: number | null;
  offAt: number | null;
  /** The plan started this run: it is a block that runs at least minBlock. */
  fromPlan?: boolean;
}

/** Seconds left in the current state's minimum hold (minOn when on, minOff when off). */
export function holdLeft(settings: LoadSettings, memory: LoadMemory, state: LoadState | undefined, now: number): number {
  if (state === undefined || memory.since === undefined) return 0;
  const minS = state === 'on' ? settings.minOnS : settings.minOffS;
  return Math.max(0, Math.ceil(minS - (now - memory.since) / 1000));
}

/** The thresholds of the mode, as the signal is compared against them. */
export function thresholds(settings: LoadSettings, view: LoadView): { onAt: number; offAt: number } {
  switch (settings.mode) {
    case 'threshold':
      return { onAt: settings.onAbove, offAt: settings.offBelow };
    case 'surplus':
      // Once on, the load must keep what it draws; it may import up to `margin` before it gives up.
      return { onAt: view.expectedPower + settings.margin, offAt: (view.state === 'on' ? view.draw : view.expectedPower) - settings.margin };
    case 'peak':
      return { onAt: settings.limit - settings.margin - view.expectedPower, offAt: settings.limit };
    case 'price':
      return { onAt: 0, offAt: 0 };
  }
}

/** The state the mode's rule asks for, or undefined to keep the current one. */
function modeRule(settings: LoadSettings, view: LoadView, signal: number, onAt: number, offAt: number): { want?: LoadState; reason: Reason } {
  const on = view.state === 'on';
  switch (settings.mode) {
    case 'threshold':
      if (signal >= onAt) return { want: 'on', reason: 'onAbove' };
      if (signal < offAt) return { want: 'off', reason: 'offBelow' };
      return { reason: 'steady' };
    case 'surplus':
      if (!on && signal >= onAt) return { want: 'on', reason: 'surplus' };
      if (on && signal < offAt) return { want: 'off', reason: 'noSurplus' };
      return { reason: on ? 'surplus' : 'noSurplus' };
    case 'peak':
      if (on && signal > offAt) return { want: 'off', reason: 'overLimit' };
      if (!on && signal <= onAt) return { want: 'on', reason: 'belowLimit' };
      return { reason: on ? 'belowLimit' : 'overLimit' };
    case 'price':
      return { reason: 'steady' };
  }
}

/**
 * What the plan alone asks: on for its reason; off because the target is met, no price is known yet, the price is
 * too high, or cheaper slots come.
 */
function planRule(plan: PlanNow): { want: LoadState; reason: Reason } {
  if (plan.on) return { want: 'on', reason: plan.reason ?? 'cheapest' };
  return { want: 'off', reason: plan.met ? 'steady' : plan.noPrices ? 'noPrices' : plan.tooExpensive ? 'tooExpensive' : 'cheapest' };
}

/**
 * Surplus mode with a target but no price for now: the surplus rule and the plan each may keep the load on.
 * It goes on when either asks, and off only when the surplus is gone and the plan has nothing here.
 */
function surplusAndPlan(view: LoadView, rule: { want?: LoadState; reason: Reason }, plan: PlanNow): { want?: LoadState; reason: Reason; fromPlan?: boolean } {
  const on = view.state === 'on';
  const surplusOn = rule.want === 'on' || (on && rule.want === undefined && rule.reason === 'surplus');
  if (surplusOn) return { want: on ? undefined : 'on', reason: 'surplus' };
  if (plan.on) return { want: on ? undefined : 'on', reason: plan.reason ?? 'cheapest', fromPlan: !on };
  if (on) return { want: 'off', reason: plan.tooExpensive ? 'tooExpensive' : 'noSurplus' };
  return { reason: plan.tooExpensive ? 'tooExpensive' : 'noSurplus' };
}

/**
 * One load's decision, in this order: a pending change blocks everything; an override wins; stale
 * data applies the fail-safe; `maxOff` forces the load on; then the mode's rule. Every change other
 * than an override waits out minOn/minOff.
 */
export function decide(settings: LoadSettings, memory: LoadMemory, view: LoadView, now: number): Decision {
  const { onAt, offAt } = thresholds(settings, view);
  const hold = holdLeft(settings, memory, view.state, now);
  const base = { holdLeftS: hold, onAt, offAt };
  if (view.pending) return { ...base, reason: 'pending' };
  if (view.state === undefined) return { ...base, reason: 'unknownState' };
  const change = (want: LoadState | undefined, reason: Reason, ignoreHold = false): Decision => {
    if (want === undefined || want === view.state) return { ...base, reason };
    if (hold > 0 && !ignoreHold) return { ...base, reason: view.state === 'on' ? 'minOn' : 'minOff' };
    return { ...base, reason, switchTo: want };
  };
  if (memory.override) return change(memory.override.state, 'override', true);
  if (view.stale) {
    if (settings.failSafe === 'hold') return { ...base, reason: 'stale' };
    return change(settings.failSafe === 'closed' ? 'on' : 'off', 'failSafe');
  }
  if (view.state === 'off' && settings.maxOffS > 0) {
    const offSince = memory.since ?? memory.firstSeen ?? now;
    if (now - offSince >= settings.maxOffS * 1000) return change('on', 'maxOff');
  }
  if (settings.mode === 'price') {
    if (!view.plan) return { ...base, reason: 'noData' };
    const wanted = planRule(view.plan);
    return { ...change(wanted.want, wanted.reason), fromPlan: wanted.want === 'on' };
  }
  if (view.signal === null) {
    // Without a reading the surplus rule cannot speak; the plan (prices, run time) still can.
    if (!view.plan?.on) return { ...base, reason: 'noData' };
    const wanted = planRule(view.plan);
    return { ...change(wanted.want, wanted.reason), fromPlan: true };
  }
  const rule = modeRule(settings, view, view.signal, onAt, offAt);
  if (settings.mode === 'surplus' && view.plan?.priced) {
    // With prices the plan weighs the sun itself (surplus costs the lost feed-in, measured now, forecast later):
    // the sun is used in the slots where it is worth most, not just the first ones it shines in.
    const wanted = planRule(view.plan);
    return { ...change(wanted.want, wanted.reason), fromPlan: wanted.want === 'on' };
  }
  if (settings.mode === 'surplus' && view.plan) {
    const both = surplusAndPlan(view, rule, view.plan);
    return { ...change(both.want, both.reason), fromPlan: both.fromPlan };
  }
  return change(rule.want, rule.reason);
}
