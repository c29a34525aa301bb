/** Internal state of the simulated fleet and the public control types. */
import type { ContactorType, DeviceModel, SwitchState } from '../api/types.js';
import type { ChannelRole } from './site/roles.js';

export type HeaderStyle = 'live' | 'spec' | 'both';
/**
 * Which long-energy entries a range selects. 'timestamp' (the live service): the 5-minute records stamped
 * fromTs <= t < toTs, and a coarser entry labelled with the first record it sums. 'coverage' (the spec's
 * text): the records whose periods lie inside the range, and a coarser entry stamped at the end of its period.
 */
export type LongWindow = 'timestamp' | 'coverage';
/** The shape of device objects: the live service's ('live', also with header style 'both') or the spec's text. */
export type BodyStyle = 'live' | 'spec';

export interface LoggedRequest {
  /** Date.now() (real ms) when the request was received. */
  at: number;
  /** The sim clock (unix seconds, fractional while running) when the request was received. */
  simNow: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 when the socket was destroyed without an answer. */
  status: number;
  /** Last 5 characters of the bearer key; '' when none was sent. */
  key5: string;
  /** The request body (parsed JSON, or the raw text) when one was sent, e.g. PATCH bodies. */
  body?: unknown;
}

export interface ClockSettings {
  /** Unix seconds; freezes the clock there (unless `real` is also true). */
  now?: number;
  /** Seconds to move the clock forward (or back, if negative). */
  advance?: number;
  /** Let the clock run with real time from the (new) current sim time. */
  real?: boolean;
}

export interface FaultSettings {
  errorRate?: number;
  resetRate?: number;
  malformedRate?: number;
  latencyMs?: number;
  /** Each response's latency varies uniformly by up to this much either side of latencyMs (server load). */
  latencyJitterMs?: number;
  /** Each request reaches the service (and is counted) 0..this many ms after it was sent (network delay). */
  arrivalJitterMs?: number;
  storm429?: number;
  seed?: number;
}

export interface LimitSettings {
  tps?: number;
  tpd?: number;
  headerStyle?: HeaderStyle;
  longWindow?: LongWindow;
  /** false lifts the per-request span limits: only for tests comparing a split range with one request. */
  spanLimits?: boolean;
}

export interface OutageWindow {
  from: number;
  to: number;
}

export interface SimulatorControl {
  log(): LoggedRequest[];
  clearLog(): void;
  setClock(settings: ClockSettings): void;
  now(): number;
  setFaults(settings: FaultSettings): void;
  setOutage(deviceId: string, window: OutageWindow): void;
  reportNow(deviceId: string): void;
  reset(): void;
  setLimits(settings: LimitSettings): void;
  /** The price endpoint's rate limit: `limit` requests per `windowS` (default 50 per 300 s); clears its windows. */
  setAmberLimits(settings: { limit?: number; windowS?: number }): void;
  /** The forecast providers' limits (default Forecast.Solar 12/h, Solcast 10/UTC day, Open-Meteo 600/min and 10000/day); clears their counts. */
  setForecastLimits(settings: { forecastSolarPerHour?: number; solcastPerDay?: number; openMeteoPerMinute?: number; openMeteoPerDay?: number }): void;
  /** Forecast periods starting in [gapFrom, gapTo) left out, in [nullFrom, nullTo) given as null (unix s). */
  setForecastFaults(faults: { gapFrom?: number; gapTo?: number; nullFrom?: number; nullTo?: number }): void;
  listForecastSites(): Array<{ deviceId: string; label: string; timezone: string; latitude: number; longitude: number; declination: number; azimuth: number; kwp: number; solcastSiteId: string }>;
  /** Wires a device double to a channel of a site (devices/); detach when the double stops. */
  attachExternal(external: ExternalDraw): void;
  detachExternal(external: ExternalDraw): void;
}

/** A change waiting for the device to pick it up at one of its reports. */
export interface Queued<T> {
  value: T;
  /** Sim unix seconds of the PATCH. */
  requestedAt: number;
}

export interface SimChannel {
  id: string;
  label: string;
  ctRating: number;
  categoryId: number;
  ctQueue: Queued<number>[];
}

export interface SimSwitch {
  id: string;
  state: SwitchState;
  label: string;
  contactorType: ContactorType;
  closedStateLabel: string;
  openStateLabel: string;
  stateQueue: Queued<SwitchState>[];
  /** State from the simulator's start until the first change. */
  initialState: SwitchState;
  /** State changes the device picked up, by sim time (energy after `at` follows `state`). */
  history: SwitchEvent[];
}

export interface SwitchEvent {
  at: number;
  state: SwitchState;
}

export interface CellularRadio {
  mode: '3G' | '4G';
  carrier: string;
  apn: string;
  imsi: string;
  simId: string;
  /** Raw LTE values (4G); on 3G only rssi is meaningful. */
  rsrq: number;
  rsrp: number;
  rssi: number;
  cellQuality: number;
  /** When last heard over cellular while WiFi is the active transport (dual models only). */
  lastHeardAt: number | null;
}

export interface WifiCredentials {
  ssid: string;
  pskUpdatedAt: number | null;
}

/** A queued WiFi credential change: new SSID and/or a PSK set at `pskUpdatedAt`. */
export interface WifiChange {
  ssid?: string;
  pskUpdatedAt?: number;
}

export interface WifiRadio extends WifiCredentials {
  ipAddress: string;
  gateway: string;
  subnetMask: string;
  macAddress: string;
  rssi: number;
  lastHeardAt: number | null;
  queue: Queued<WifiChange>[];
}

export interface SimDevice {
  id: string;
  model: DeviceModel;
  label: string;
  timezone?: string;
  firmwareVersion: string;
  uninitialised: boolean;
  interval: number;
  cellular: CellularRadio;
  /** Present on the 6MW series only. */
  wifi?: WifiRadio;
  /** Dual-transport models: which transport the device is currently using. */
  activeVia: 'cellular' | 'wifi';
  channels: SimChannel[];
  phasesCount: 0 | 1 | 2 | 3 | null;
  /** Channel ids per group; empty when count is null. */
  grouping: string[][];
  switches: SimSwitch[];
  /** Unix seconds before which the device has no energy. */
  dataStart: number;
  /** What each channel measures (site model). */
  roles: ChannelRole[];
  /** Seed of the site's weather and habits. */
  seed: number;
  /** Hash that tells this site's draws from the others' (weather, loads, lost entries). */
  site: number;
  /** Share of short energy entries lost on the way (UDP), 0..1. */
  shortLoss: number;
  /** Sim time the simulator started (switch history before it follows the loads' timers). */
  since: number;
  /** `at` of every recorded switch change, in the order recorded: invalidates cached days. */
  switchChanges: number[];
  modbus?: { changeAt: number; before: 'PMC-220'; after: 'PMC-340B' };
  outages: OutageWindow[];
  /** Sim time of the last reportNow(), if any. */
  manualReportAt: number | null;
  /** Writes accepted while uninitialised, replayed when it first connects (never, in the sim). */
  initialQueue: Array<{ requestedAt: number; body: unknown }>;
  /** Loads a device double (devices/) draws through a channel of this site, on top of the site's own. */
  externals?: ExternalDraw[];
}

/** A device double wired to a channel of a site: what it drew in each 30-second slot. */
export interface ExternalDraw {
  deviceId: string;
  /** 0-based channel index. */
  channel: number;
  /** Joules drawn in the slot [slotStart, slotStart + 30). */
  slotJoules(slotStart: number): number;
  /** The simulator was reset: back to the state it started in. */
  reset(): void;
}
