/**
 * Bounds how much input handling one turn of the event loop does. Node-RED delivers every msg of a send() in the
 * same turn: a function fanning one trigger out to 300 devices starts 300 handlers back to back, and the loop
 * (timers, answers, the limiter) waits for all of them. The inputs of this package's nodes start at once while the
 * turn has done less than BUDGET_MS of them; after that they wait, in order, and start one per turn, so every
 * other callback gets its share in between.
 */
import { performance } from 'node:perf_hooks';

const BUDGET_MS = 8;

const waiting: Array<() => void> = [];
let turnStartedAt = 0;
let inTurn = false;
let stepping = false;

/** Marks the turn this call runs in; a turn lasts until the next check phase (Node-RED's deliveries all run in one). */
function currentTurnStart(): number {
  if (!inTurn) {
    inTurn = true;
    turnStartedAt = performance.now();
    setImmediate(() => { inTurn = false; });
  }
  return turnStartedAt;
}

function step(): void {
  stepping = false;
  const next = waiting.shift();
  if (waiting.length > 0) {
    stepping = true;
    setImmediate(step);
  }
  next?.();
}

/** Runs `start` now, or after the inputs already waiting when this turn has had its share. */
export function startInput(start: () => void): void {
  if (waiting.length === 0 && performance.now() - currentTurnStart() < BUDGET_MS) {
    start();
    return;
  }
  waiting.push(start);
  if (!stepping) {
    stepping = true;
    setImmediate(step);
  }
}

/** Inputs waiting for a turn (tests). */
export function waitingInputs(): number {
  return waiting.length;
}
