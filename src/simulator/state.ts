/** Everything the simulator holds, and the control operations on it. */
import { SimClock } from './clock.js';
import { ForecastLimits, type ForecastLimitSettings } from './forecast/limits.js';
import type { ForecastFaults } from './forecast/providers.js';
import { createForecastSites, describeSites, type ForecastSite } from './forecast/sites.js';
import { FaultInjector } from './faults.js';
import { createExtraSites } from './extraSites.js';
import { createFleet, keyGrants, type FleetOptions, type KeyGrant } from './fleet.js';
import { RateLimiter } from './rateLimit.js';
import { AmberLimiter, type AmberLimitSettings } from './prices/amberLimit.js';
import { createAmberSites, type AmberSite } from './prices/sites.js';
import { readStateFile, restore, snapshot, writeStateFile, type SavedState } from './persistence.js';
import { reportNow, settle } from './reporting.js';
import type {
  ClockSettings, ExternalDraw, FaultSettings, HeaderStyle, LimitSettings, LoggedRequest, LongWindow, OutageWindow, SimDevice, SimulatorControl,
} from './types.js';

export interface StateOptions {
  now?: number;
  latencyMs?: number;
  /** Each response's latency varies uniformly by up to this much either side of latencyMs; default 0. */
  latencyJitterMs?: number;
  /** Each API request is counted 0..this many ms after it reached the simulator (network delay); default 0. */
  arrivalJitterMs?: number;
  /** Extra seeded sites added to the keys that see the whole fleet; default 0. */
  extraDevices?: number;
  /**
   * A front process (a gateway, as the service has) stamps each request's arrival in an X-Sim-Arrived-At
   * header (ms since the epoch), and the simulator counts from that stamp, so its own busy event loop
   * cannot delay it. For benches on one machine; default false.
   */
  arrivalStampHeader?: boolean;
  /**
   * Requests per second of every key. Default: sized by the devices the key may use, as the live service does
   * (5 for a key of the fixed fleet; about one per three devices with `extraDevices`; see rateLimit.ts fleetLimits).
   */
  tps?: number;
  /** Requests per day of every key. Default: sized by the key's devices (10000 for a key of the fixed fleet). */
  tpd?: number;
  /** Rate-limit header form: 'live' (default, the service's), 'spec' or 'both'. */
  headerStyle?: HeaderStyle;
  /** Which long-energy entries a range selects (see LongWindow); default 'timestamp', the live service's. */
  longWindow?: LongWindow;
  /** Seed of the sites' weather and habits; default 1. */
  seed?: number;
  /** Share of short energy entries lost, as UDP delivery loses them; default 0.03. */
  shortLoss?: number;
  /** JSON file keeping PATCHed values and switch history across restarts; none = start fresh. */
  stateFile?: string;
}

export class SimulatorState implements SimulatorControl {
  readonly clock: SimClock;
  readonly faults: FaultInjector;
  readonly limiter: RateLimiter;
  /** Whether the per-request span limits of spec 4.6, 4.8 and 4.10 apply (see LimitSettings). */
  spanLimits = true;
  longWindow: LongWindow;
  devices = new Map<string, SimDevice>();
  /** What each recognised key may do (the extra sites included). */
  readonly grants: ReadonlyMap<string, KeyGrant>;
  private requests: LoggedRequest[] = [];
  /** Sim time the simulator started: switch states are known from here on. */
  readonly since: number;
  readonly seed: number;
  /** Whether arrivals are stamped by a front process (StateOptions.arrivalStampHeader). */
  readonly stampsFromFront: boolean;
  /** The Amber-compatible price endpoint's sites and its own rate limit. */
  readonly amberSites: ReadonlyMap<string, AmberSite>;
  readonly amberLimiter = new AmberLimiter();
  /** The forecast providers' sites, limits and test faults (docs/forecast.md). */
  forecastSites: ForecastSite[] = [];
  readonly forecastLimits = new ForecastLimits();
  forecastFaults: ForecastFaults = {};

  private lastSaved = '';
  /** Device doubles wired to channels of the sites (kept across a reset, which rebuilds the devices). */
  private readonly externals: ExternalDraw[] = [];

  constructor(private readonly options: StateOptions) {
    this.clock = new SimClock(options.now);
    const saved: SavedState | undefined = options.stateFile ? readStateFile(options.stateFile) : undefined;
    this.since = saved?.since ?? Math.floor(this.clock.now());
    this.seed = options.seed ?? 1;
    this.stampsFromFront = options.arrivalStampHeader === true;
    this.faults = new FaultInjector(this.seed);
    this.longWindow = options.longWindow ?? 'timestamp';
    this.loadFleet();
    this.grants = keyGrants(this.extraSites().map((d) => d.id));
    this.limiter = new RateLimiter({ tps: options.tps, tpd: options.tpd }, options.headerStyle ?? 'live', (key) => this.grants.get(key)?.devices.length ?? 0);
    if (saved) restore(this.devices, saved);
    this.amberSites = createAmberSites(this.devices.values(), this.seed);
    this.persist();
  }

  private loadFleet(): void {
    const fleet = createFleet(this.fleetOptions()).concat(this.extraSites());
    this.devices = new Map(fleet.map((d) => [d.id, d]));
    this.forecastSites = createForecastSites(this.devices.values());
    for (const e of this.externals ?? []) this.wire(e);
  }

  /** Wires a device double to a channel of its site: its draw shows in that channel and the grid's. */
  attachExternal(external: ExternalDraw): void {
    const dev = this.deviceOrThrow(external.deviceId);
    if (external.channel < 0 || external.channel >= dev.channels.length) throw new Error(`${external.deviceId} has no channel ${external.channel + 1}`);
    this.externals.push(external);
    this.wire(external);
  }

  detachExternal(external: ExternalDraw): void {
    const i = this.externals.indexOf(external);
    if (i >= 0) this.externals.splice(i, 1);
    const dev = this.devices.get(external.deviceId);
    if (dev?.externals) dev.externals = dev.externals.filter((e) => e !== external);
  }

  private wire(external: ExternalDraw): void {
    const dev = this.devices.get(external.deviceId);
    if (dev) (dev.externals ??= []).push(external);
  }

  private fleetOptions(): FleetOptions {
    return { seed: this.seed, since: this.since, shortLoss: this.options.shortLoss };
  }

  private extraSites(): SimDevice[] {
    return createExtraSites(this.options.extraDevices ?? 0, this.fleetOptions());
  }

  /** Writes the state file (when there is one) if anything in it changed. */
  persist(): void {
    const file = this.options.stateFile;
    if (!file) return;
    const text = JSON.stringify(snapshot(this.devices.values(), this.since));
    if (text === this.lastSaved) return;
    writeStateFile(file, JSON.parse(text) as SavedState);
    this.lastSaved = text;
  }

  /** Latency added to each API response: a fault setting overrides the start option. */
  latencyMs(): number {
    return this.faults.latencyMs ?? this.options.latencyMs ?? 0;
  }

  /** This response's latency: latencyMs with its jitter drawn (seeded). */
  responseDelayMs(): number {
    return this.faults.responseDelay(this.latencyMs(), this.faults.latencyJitterMs ?? this.options.latencyJitterMs ?? 0);
  }

  /** This request's network delay before the service sees and counts it (seeded). */
  arrivalDelayMs(): number {
    return this.faults.arrivalDelay(this.faults.arrivalJitterMs ?? this.options.arrivalJitterMs ?? 0);
  }

  record(entry: LoggedRequest): void {
    this.requests.push(entry);
  }

  log(): LoggedRequest[] {
    return this.requests.map((r) => ({ ...r, query: { ...r.query } }));
  }

  clearLog(): void {
    this.requests = [];
  }

  setClock(settings: ClockSettings): void {
    // Changes due before a jump are applied at their own report times, not at the new time.
    for (const dev of this.devices.values()) settle(dev, this.clock.now());
    this.clock.set(settings);
    this.persist();
  }

  now(): number {
    return this.clock.now();
  }

  setFaults(settings: FaultSettings): void {
    this.faults.configure(settings);
  }

  private deviceOrThrow(deviceId: string): SimDevice {
    const dev = this.devices.get(deviceId);
    if (!dev) throw new Error(`unknown device ${deviceId}`);
    return dev;
  }

  setOutage(deviceId: string, window: OutageWindow): void {
    if (!Number.isFinite(window.from) || !Number.isFinite(window.to) || window.to <= window.from) {
      throw new Error('an outage needs from < to (unix seconds)');
    }
    this.deviceOrThrow(deviceId).outages.push({ from: window.from, to: window.to });
  }

  reportNow(deviceId: string): void {
    reportNow(this.deviceOrThrow(deviceId), this.clock.now());
    this.persist();
  }

  reset(): void {
    for (const e of this.externals) e.reset();
    this.loadFleet();
    this.faults.reset();
    this.clearLog();
    this.limiter.clear();
    this.spanLimits = true;
    this.limiter.resetOverride({ tps: this.options.tps, tpd: this.options.tpd });
    this.limiter.headerStyle = this.options.headerStyle ?? 'live';
    this.amberLimiter.clear();
    this.amberLimiter.limit = 50;
    this.amberLimiter.windowS = 300;
    this.forecastLimits.reset();
    this.forecastFaults = {};
    this.longWindow = this.options.longWindow ?? 'timestamp';
    this.clock.reset();
    this.persist();
  }

  setAmberLimits(settings: AmberLimitSettings): void {
    if (settings.limit !== undefined) this.amberLimiter.limit = settings.limit;
    if (settings.windowS !== undefined) this.amberLimiter.windowS = settings.windowS;
    this.amberLimiter.clear();
  }

  /** The sites the forecast endpoints answer for (coordinates, declared kWp, Solcast ids). */
  listForecastSites(): ReturnType<typeof describeSites> {
    return describeSites(this.forecastSites);
  }

  setForecastLimits(settings: ForecastLimitSettings): void {
    this.forecastLimits.configure(settings);
  }

  setForecastFaults(faults: ForecastFaults): void {
    this.forecastFaults = { ...faults };
  }

  setLimits(settings: LimitSettings): void {
    this.limiter.setOverride({ tps: settings.tps, tpd: settings.tpd });
    if (settings.headerStyle !== undefined) this.limiter.headerStyle = settings.headerStyle;
    if (settings.spanLimits !== undefined) this.spanLimits = settings.spanLimits;
    if (settings.longWindow !== undefined) this.longWindow = settings.longWindow;
  }
}
