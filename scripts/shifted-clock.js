'use strict';
// A clock a test chooses, for a whole process: Date (Date.now(), new Date()) runs `offsetMs` from the wall clock, at its
// pace. scripts/start.js preloads this file into Node-RED when a test gives it a clock (opts.clockOffsetMs), so the
// package's nodes, the example flows' function nodes and Dashboard 2 read the same instant as the simulator; the
// browser tests install shiftDate in the page. Timers are left alone: only what the clock reads moves.

/** Replaces `scope.Date` with one `offsetMs` away. Self-contained: a page's init script runs it as its source. */
function shiftDate(scope, offsetMs) {
  const Real = scope.Date;
  const now = () => Real.now() + offsetMs;
  scope.Date = new Proxy(Real, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget === scope.Date ? target : newTarget),
    // Date() called as a function: the current time as text.
    apply: () => new Real(now()).toString(),
    get: (target, prop) => (prop === 'now' ? now : Reflect.get(target, prop)),
  });
}

/** Where scripts/start.js gives Node-RED its offset. */
const OFFSET_ENV = 'ENERGY_API_CLOCK_OFFSET_MS';

if (process.env[OFFSET_ENV]) {
  const offsetMs = Number(process.env[OFFSET_ENV]);
  if (!Number.isFinite(offsetMs)) throw new Error(`${OFFSET_ENV} is not a number of milliseconds`);
  shiftDate(globalThis, offsetMs);
}

module.exports = { shiftDate, OFFSET_ENV };
