/** The decision engine's vocabulary. Pure data: no Node-RED, no client. */

export type Mode = 'threshold' | 'surplus' | 'peak';
export type LoadState = 'on' | 'off';
export type FailSafe = 'hold' | 'open' | 'closed';

/** A node's properties, parsed and checked (seconds and watts as numbers). */
export interface LoadSettings {
  mode: Mode;
  /** 0-based indexes of the channels that make the measured signal. */
  channels: number[];
  /** 0-based index of the channel that measures the load itself. */
  loadChannel?: number;
  /** Rated power (W); 0 = unknown until learnt from loadChannel. */
  loadPower: number;
  onAbove: number;
  offBelow: number;
  margin: number;
  limit: number;
  windowS: number;
  minOnS: number;
  minOffS: number;
  /** 0 = no maximum. */
  maxOffS: number;
  priority: number;
  staleAfterS: number;
  failSafe: FailSafe;
  dryRun: boolean;
  /** How long a switch change may stay pending before it counts as timed out. */
  timeoutS: number;
}

/** A change sent to the device and not yet confirmed. */
export interface PendingChange {
  target: LoadState;
  /** Node-clock ms of the PATCH. */
  at: number;
  reason: Reason;
  signal: number | null;
}

export interface Override {
  state: LoadState;
  /** Node-clock ms; absent = until `auto`. */
  until?: number;
}

/** What a load remembers between evaluations; persisted in the node's context. */
export interface LoadMemory {
  state?: LoadState;
  /** Node-clock ms of the last change (the PATCH, or when a change made elsewhere was noticed). */
  since?: number;
  /** Node-clock ms when the load was first seen (maxOff counts from here until a change is known). */
  firstSeen?: number;
  pending?: PendingChange;
  override?: Override;
  /** W, measured on loadChannel while the load drew power. */
  learntPower?: number;
}

/** The switch as the device reported it at this evaluation (absent when not read this time). */
export interface SwitchReading {
  state: LoadState;
  /** A change waiting on the device (ours or someone else's). */
  pending?: LoadState;
}

/** One short-energy entry as the API returns it (Joules per channel over `duration` s, ending at `timestamp`). */
export interface ShortEntry {
  timestamp: number;
  duration?: number;
  eReal?: Array<number | null> | unknown;
}

export type Reason =
  | 'onAbove' | 'offBelow' // threshold
  | 'surplus' | 'noSurplus' // surplus
  | 'belowLimit' | 'overLimit' // peak
  | 'maxOff' | 'override' | 'failSafe'
  | 'minOn' | 'minOff' | 'pending' | 'stale' | 'noData' | 'unknownState' | 'steady';

/** What happened to a previously sent change at this evaluation. */
export type Outcome =
  | { kind: 'confirmed'; target: LoadState; afterS: number; change: PendingChange }
  | { kind: 'timedOut'; target: LoadState; afterS: number; change: PendingChange }
  | { kind: 'adopted'; state: LoadState };

/** One load's evaluation: what it saw, what it decided, and its memory afterwards. */
export interface Evaluation {
  at: number;
  /** The signal the decision compared (W): measured power, available surplus or site import. */
  signal: number | null;
  /** Switch on at/above (threshold, surplus) or at/below (peak) this signal. */
  onAt: number | null;
  /** Switch off below (threshold, surplus) or above (peak) this signal. */
  offAt: number | null;
  /** The load's own draw averaged over the window (W), when measured or estimated. */
  loadDraw: number | null;
  state: LoadState | null;
  pending: boolean;
  stale: boolean;
  reason: Reason;
  /** s until the hold (minOn/minOff) ends; 0 when free. */
  holdLeftS: number;
  /** A change to send now. */
  switchTo?: LoadState;
  outcomes: Outcome[];
  memory: LoadMemory;
}
