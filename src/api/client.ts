import { EventEmitter } from 'node:events';
import { EnergyApiError, describeKey, describeValue } from './errors.js';
import { SharedLimiter, sharedLimiterId, type SharedFigures, type SharedStatus } from './shared-limiter.js';
import { RateLimiter, aborted, sleep } from './limiter.js';
import { LongWindowReading, asCoveredPeriods, type LongWindow } from './long-window.js';
import { COLLECT_READ_AHEAD, RangePages } from './pages.js';
import { checkGranularity, checkTimestamps, checkTimezone, energyOptionParams, type QueryParams } from './params.js';
import { checkPlanCost, longRequestRange, planLongRanges, planModbusRanges, planShortRanges, DEFAULT_MAX_REQUESTS } from './ranges.js';
import { Transport, type RetryInfo } from './transport.js';
import { assertDeviceUpdate } from './validation.js';
import type {
  ChannelCategory, Device, DeviceUpdate, EnergyEntry, EnergyKind, EnergyOptions, EnergyRangeQuery, ModbusEntry,
  ModelInfo, PatchResult, RangeQuery, RateLimitState, RequestPriority,
} from './types.js';

export interface ClientOptions {
  /** The API's base address, version included (for example https://api.example.com/v3). */
  baseUrl: string;
  apiKey: string;
  /** The key's per-second limit until the service says otherwise. Default 5. */
  tps?: number;
  /** The key's per-day limit until the service says otherwise. Default 10000. */
  tpd?: number;
  timeoutMs?: number;
  maxRetries?: number;
  backoffBaseMs?: number;
  /** Clock in ms (default Date.now): decides retention, "now" and the daily reset. */
  now?: () => number;
  /** Keeps the key's rate window in Redis, for every instance using the key (see shared-limiter.ts). */
  sharedLimiter?: { redisUrl: string; password?: string };
  /**
   * How the service selects and labels long energy (see long-window.ts). Default: learnt from its
   * responses, the live service's reading ('timestamp') until a response shows otherwise.
   */
  longWindow?: LongWindow;
}

export interface CallOptions {
  signal?: AbortSignal;
  priority?: RequestPriority;
  /**
   * Told before each retry of a request of this call (outage, 5xx, 429) and when that request ends,
   * and while one of its requests waits because the key is paused after a 429.
   */
  onRetry?: (retry: RetryInfo) => void;
}

export interface RangeCallOptions extends CallOptions {
  /**
   * The most requests this one call may make (default 100). A range that needs more is refused
   * with REQUEST_BUDGET before anything is planned or sent.
   */
  maxRequests?: number;
}

export interface PageReadOptions extends RangeCallOptions {
  /** Pages requested or waiting ahead of the consumer (default 2): bounds memory whatever the consumer's pace. */
  readAhead?: number;
}

/** What a range read reads: short energy, long energy or modbus readings. */
export type RangeKind = 'short' | 'long' | 'modbus';

export type Edge = 'first' | 'latest';

export interface UpdateOutcome {
  /** 200, or 202 when a change waits for the device (both are success). */
  status: number;
  device: Device;
}

export interface WaitOptions {
  timeoutMs: number;
  /** At least 5000: the spec allows one pending poll per device per 5 s. */
  intervalMs?: number;
  signal?: AbortSignal;
  onRetry?: CallOptions['onRetry'];
}

export interface WaitOutcome {
  device: Device;
  /** True when `isDone` held before the timeout. */
  done: boolean;
  elapsedMs: number;
  polls: number;
}

export interface KeyStatus {
  accepted: boolean;
  /** The key's last 5 characters, the only part ever shown. */
  key: string;
  error?: EnergyApiError;
}

/** Minimum spacing of pending polls per device (spec 3.1, 4.2, 8). */
export const PENDING_POLL_MIN_MS = 5000;
const DEVICE_ID = /^[BDEF][A-Za-z0-9]{12}$/;
const CACHE_TTL_MS = 10 * 60_000;

/**
 * Typed client of the energy API v3. One instance per key: it owns the key's rate limiter.
 * Events: `rateLimit` (RateLimitState) whenever the budget changes, `keyStatus` (KeyStatus).
 * A call learns of its own retries and waits through `onRetry` in its options.
 */
export class EnergyApiClient extends EventEmitter {
  readonly limiter: RateLimiter;
  /** Set when the key's limits are shared through Redis. */
  readonly shared?: SharedLimiter;
  private readonly transport: Transport;
  private readonly now: () => number;
  private readonly keyHint: string;
  private readonly devices = new Map<string, { device: Device; at: number }>();
  private readonly lastDeviceRead = new Map<string, number>();
  private readonly deviceReads = new Map<string, SharedRead>();
  private readonly longReading: LongWindowReading;
  private categories?: Promise<ChannelCategory[]>;
  private models?: Promise<ModelInfo[]>;
  private closed = false;
  private lastKeyAccepted?: boolean;
  private lastKey?: KeyStatus;

  constructor(options: ClientOptions) {
    super();
    if (typeof options !== 'object' || options === null) throw EnergyApiError.invalid('the client needs options with baseUrl and apiKey');
    if (!options.apiKey || typeof options.apiKey !== 'string') throw EnergyApiError.invalid('an API key is required');
    checkBaseUrl(options.baseUrl);
    this.now = options.now ?? Date.now;
    this.keyHint = describeKey(options.apiKey);
    if (options.longWindow !== undefined && options.longWindow !== 'timestamp' && options.longWindow !== 'coverage') {
      throw EnergyApiError.invalid(`longWindow must be "timestamp" or "coverage", not ${describeValue(options.longWindow)}`);
    }
    this.longReading = new LongWindowReading(options.longWindow);
    if (options.sharedLimiter?.redisUrl) this.shared = this.sharedStore(options);
    this.limiter = new RateLimiter({ tps: options.tps, tpd: options.tpd, now: this.now, store: this.shared });
    this.limiter.on('state', (state: RateLimitState) => this.emit('rateLimit', state));
    if (this.shared) this.shareFigures(this.shared);
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      limiter: this.limiter,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoffBaseMs: options.backoffBaseMs,
      now: this.now,
    });
  }

  /** The key named by its last 5 characters. */
  get key(): string {
    return this.keyHint;
  }

  /** What the service last said of the key (undefined until it has answered once). */
  lastKeyStatus(): KeyStatus | undefined {
    return this.lastKey;
  }

  rateLimitState(): RateLimitState {
    return this.limiter.state();
  }

  /**
   * How the service selects and labels long energy, as far as this client knows: its option, else
   * what the last decisive response showed, else the live service's reading ('timestamp').
   */
  longWindow(): LongWindow {
    return this.longReading.current();
  }

  async listDevices(options: CallOptions = {}): Promise<string[]> {
    return (await this.get<string[]>('/devices', {}, options)) ?? [];
  }

  /**
   * GET /devices/{id}. Concurrent reads of one device share one request (each caller keeps its own
   * signal, and each is told of that request's retries from when it joined).
   */
  async getDevice(deviceId: string, options: CallOptions = {}): Promise<Device> {
    const id = checkDeviceId(deviceId);
    const priority = options.priority ?? 'normal';
    const shared = this.deviceReads.get(id);
    if (shared && PRIORITY_RANK[shared.priority] <= PRIORITY_RANK[priority]) return joinRead(shared, options);
    const listeners = new Set<NonNullable<CallOptions['onRetry']>>();
    // The read starts once its first caller has joined: the transport may tell of a wait (the key paused after a
    // 429) the moment the request queues, and that caller must hear it.
    let start!: () => void;
    const joinedFirst = new Promise<void>((resolve) => { start = resolve; });
    const read = joinedFirst.then(() => this.readDevice(id, priority, (retry) => {
      for (const listener of [...listeners]) listener(retry);
    }));
    const entry: SharedRead = { read, priority, listeners };
    this.deviceReads.set(id, entry);
    const forget = () => {
      if (this.deviceReads.get(id) === entry) this.deviceReads.delete(id);
    };
    read.then(forget, forget);
    const joined = joinRead(entry, options);
    start();
    return joined;
  }

  private async readDevice(id: string, priority: RequestPriority, onRetry: NonNullable<CallOptions['onRetry']>): Promise<Device> {
    this.lastDeviceRead.set(id, this.now());
    // Stamped again once answered: the spacing then holds as the service sees it, whatever the latency.
    const device = await this.get<Device>(`/devices/${id}`, {}, { priority, onRetry }).finally(() => this.lastDeviceRead.set(id, this.now()));
    if (!isDeviceObject(device)) throw new EnergyApiError({ status: 200, code: 'BAD_RESPONSE', message: `the service did not return device ${id}` });
    this.devices.set(id, { device, at: this.now() });
    return device;
  }

  /** ms until the device may be polled again: 5 s after the last read of it through this client (spec 3.1, 8); 0 = now. */
  nextPollInMs(deviceId: string): number {
    const last = this.lastDeviceRead.get(deviceId);
    return last === undefined ? 0 : Math.max(0, PENDING_POLL_MIN_MS - (this.now() - last));
  }

  /**
   * The device for a poll of pending values: read now unless some caller of this client read it in
   * the last 5 s; then that read serves (joined while in flight). `at` is when the copy was answered
   * (client clock), so a caller can tell it from the copy it already holds. The copy may be a PATCH's answer.
   */
  async pollDevice(deviceId: string, options: CallOptions = {}): Promise<{ device: Device; at: number }> {
    const id = checkDeviceId(deviceId);
    const known = this.devices.get(id);
    if (known && !this.deviceReads.has(id) && this.nextPollInMs(id) > 0) return { device: known.device, at: known.at };
    const device = await this.getDevice(id, options);
    const read = this.devices.get(id);
    return { device, at: read?.device === device ? read.at : this.now() };
  }

  /** The device as last read (within 10 minutes), else a fresh read. */
  async knownDevice(deviceId: string, options: CallOptions = {}): Promise<Device> {
    const cached = this.devices.get(deviceId);
    if (cached && this.now() - cached.at < CACHE_TTL_MS) return cached.device;
    return this.getDevice(deviceId, options);
  }

  /**
   * PATCH /devices/{id}, validated first against every rule of spec 4.3 (the device is read first
   * when the rules need its model, channels or switches). 200 and 202 are both success.
   */
  async updateDevice(deviceId: string, update: DeviceUpdate, options: CallOptions & { device?: Device } = {}): Promise<UpdateOutcome> {
    const id = checkDeviceId(deviceId);
    // Rules that need no device first: a malformed update costs no request at all.
    assertDeviceUpdate(update, { deviceId: id });
    const needsDevice = Boolean(update.channels || update.switches || update.phases || update.comms);
    const device = options.device ?? (needsDevice ? await this.knownDevice(id, options) : undefined);
    const needsCategories = Boolean(update.channels?.some((c) => c.categoryId !== undefined));
    const categoryIds = needsCategories ? (await this.getChannelCategories(options)).map((c) => c.id) : undefined;
    const body = assertDeviceUpdate(update, { deviceId: id, device, categoryIds });
    // A read that started before this change must not answer for after it.
    this.deviceReads.delete(id);
    const response = await this.send<PatchResult | Device>({ method: 'PATCH', path: `/devices/${id}`, body, ...options });
    const result = updatedDevice(response.data);
    if (!result) throw new EnergyApiError({ status: response.status, code: 'BAD_RESPONSE', message: 'the service did not return the updated device' });
    this.devices.set(id, { device: result, at: this.now() });
    return { status: response.status, device: result };
  }

  getChannelCategories(options: CallOptions = {}): Promise<ChannelCategory[]> {
    this.categories ??= this.cachedList<ChannelCategory>('/devices/channel-categories', options, () => (this.categories = undefined));
    return this.categories;
  }

  getModels(options: CallOptions = {}): Promise<ModelInfo[]> {
    this.models ??= this.cachedList<ModelInfo>('/devices/models', options, () => (this.models = undefined));
    return this.models;
  }

  /** Short energy for any range: split into 12-hour requests, pipelined, merged oldest first. */
  async getShortEnergy(deviceId: string, query: RangeQuery & EnergyOptions, options: RangeCallOptions = {}): Promise<EnergyEntry[]> {
    return this.readPages('short', deviceId, query, { readAhead: COLLECT_READ_AHEAD, ...options }).collect();
  }

  /**
   * Long energy for any range and granularity: split within the span limits with seams on bucket
   * boundaries in the timezone, so the merge equals one unlimited request. Every entry is stamped at
   * the END of the period it covers, whatever the service's reading: 5-minute reads are exactly the
   * records inside [fromTs, toTs); coarser reads are the service's buckets of [fromTs, toTs), which
   * under the live reading cover 5 minutes earlier (see coveredPeriod).
   */
  async getLongEnergy(deviceId: string, query: EnergyRangeQuery, options: RangeCallOptions = {}): Promise<EnergyEntry[]> {
    return this.readPages('long', deviceId, query, { readAhead: COLLECT_READ_AHEAD, ...options }).collect();
  }

  /** Modbus readings for any range: 7-day requests merged. Values as stored on the meter (see scaleModbusEntry). */
  async getModbus(deviceId: string, query: RangeQuery, options: RangeCallOptions = {}): Promise<ModbusEntry[]> {
    return this.readPages('modbus', deviceId, query, { readAhead: COLLECT_READ_AHEAD, ...options }).collect();
  }

  /**
   * A range read as it arrives: one page per request, oldest first, without duplicates across pages,
   * with at most `readAhead` pages requested or waiting ahead of the consumer (so a year streams
   * through in bounded memory). Throws at once, before anything is sent, when the query is refused
   * or would cost more than maxRequests. Leave the loop or call `close()` to stop early.
   */
  readPages(kind: 'short', deviceId: string, query: RangeQuery & EnergyOptions, options?: PageReadOptions): RangePages<EnergyEntry>;
  readPages(kind: 'long', deviceId: string, query: EnergyRangeQuery, options?: PageReadOptions): RangePages<EnergyEntry>;
  readPages(kind: 'modbus', deviceId: string, query: RangeQuery, options?: PageReadOptions): RangePages<ModbusEntry>;
  readPages(kind: RangeKind, deviceId: string, query: EnergyRangeQuery, options: PageReadOptions = {}): RangePages<EnergyEntry> | RangePages<ModbusEntry> {
    const id = checkDeviceId(deviceId);
    const q = checkQueryObject(query);
    checkTimestamps(q.fromTs, q.toTs);
    const nowS = this.nowS();
    if (kind === 'modbus') {
      checkPlanCost({ kind: 'modbus', fromTs: q.fromTs, toTs: q.toTs, nowS }, options.maxRequests);
      return this.pages<ModbusEntry>(`/modbus/${id}`, planModbusRanges(q.fromTs, q.toTs, nowS), {}, options);
    }
    if (kind === 'short') {
      const params = energyOptionParams(q, false);
      checkPlanCost({ kind: 'short', fromTs: q.fromTs, toTs: q.toTs, nowS }, options.maxRequests);
      return this.pages<EnergyEntry>(`/short-energy/${id}`, planShortRanges(q.fromTs, q.toTs, nowS), params, options);
    }
    if (kind !== 'long') throw EnergyApiError.invalid(`kind must be short, long or modbus, not ${describeValue(kind)}`);
    const granularity = checkGranularity(q.granularity ?? '5m');
    const timezone = checkTimezone(granularity, q.timezone);
    const params: QueryParams = { granularity, ...energyOptionParams(q, false) };
    if (timezone) params.timezone = timezone;
    checkPlanCost({ kind: 'long', granularity, fromTs: q.fromTs, toTs: q.toTs, nowS }, options.maxRequests);
    return this.pages<EnergyEntry>(`/long-energy/${id}`, planLongRanges(q.fromTs, q.toTs, granularity, timezone, nowS), params, options, {
      request: (periods) => longRequestRange(periods, granularity),
      page: (entries, periods, request) => asCoveredPeriods(entries, granularity, periods, this.longReading.learn(entries, request)),
    });
  }

  /** /first or /latest of short or long energy; null when there is no data (204). */
  async getEnergyEdge(kind: EnergyKind, deviceId: string, edge: Edge, energyOptions: EnergyOptions = {}, options: CallOptions = {}): Promise<EnergyEntry | null> {
    const id = checkDeviceId(deviceId);
    const params = energyOptionParams(energyOptions, true);
    return this.edge<EnergyEntry>(`/${kind}-energy/${id}/${checkEdge(edge)}`, params, options);
  }

  /** /first or /latest modbus reading; null when there is none (204). */
  async getModbusEdge(deviceId: string, edge: Edge, modbusOptions: { timestampOnly?: boolean } = {}, options: CallOptions = {}): Promise<ModbusEntry | null> {
    const id = checkDeviceId(deviceId);
    const params: QueryParams = modbusOptions.timestampOnly ? { 'fields[energy]': 'timestamp' } : {};
    return this.edge<ModbusEntry>(`/modbus/${id}/${checkEdge(edge)}`, params, options);
  }

  /**
   * Polls the device until `isDone(device)` holds or the timeout passes, never more often than once
   * per 5 s per device (counting every read of that device through this client, whose copies serve it).
   */
  async waitForDevice(deviceId: string, isDone: (device: Device) => boolean, options: WaitOptions): Promise<WaitOutcome> {
    const id = checkDeviceId(deviceId);
    const interval = Math.max(PENDING_POLL_MIN_MS, options.intervalMs ?? PENDING_POLL_MIN_MS);
    const started = this.now();
    let polls = 0;
    for (;;) {
      const sinceLastRead = this.now() - (this.lastDeviceRead.get(id) ?? 0);
      const elapsed = this.now() - started;
      const wait = Math.max(interval - sinceLastRead, 0);
      if (elapsed + wait > options.timeoutMs) {
        const device = await this.knownDevice(id, { signal: options.signal });
        return { device, done: isDone(device), elapsedMs: this.now() - started, polls };
      }
      const copyBefore = this.devices.get(id);
      await sleep(wait, options.signal);
      const call: CallOptions = { signal: options.signal, priority: 'interactive', onRetry: options.onRetry };
      // Another caller read the device during the wait: its read (or the one in flight) serves this poll.
      const readMeanwhile = this.deviceReads.has(id) || this.devices.get(id) !== copyBefore;
      const device = readMeanwhile ? (await this.pollDevice(id, call)).device : await this.getDevice(id, call);
      polls += 1;
      if (isDone(device)) return { device, done: true, elapsedMs: this.now() - started, polls };
    }
  }

  /** Aborts everything in flight and queued; the client cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.transport.close();
    // The limiter closes its store (the shared one too).
    await this.limiter.stop();
    this.removeAllListeners();
  }

  /** The key's window in Redis, for every instance using the key: the limiter paces over it as over its own. */
  private sharedStore(options: ClientOptions): SharedLimiter {
    const url = checkBaseUrl(options.baseUrl);
    return new SharedLimiter({
      redisUrl: options.sharedLimiter?.redisUrl ?? '',
      password: options.sharedLimiter?.password,
      id: sharedLimiterId(`${url.origin}${url.pathname.replace(/\/+$/, '')}`, options.apiKey),
      tps: options.tps && options.tps > 0 ? options.tps : 5,
    });
  }

  /** Learnt limits and the daily count go to Redis, and Redis's figures (every instance's) to the limiter. */
  private shareFigures(shared: SharedLimiter): void {
    this.limiter.on('state', (state: RateLimitState) => shared.publish(state));
    shared.on('figures', (figures: SharedFigures) => this.limiter.adoptShared(figures));
    shared.on('status', (status: SharedStatus) => this.emit('sharedLimiter', status));
  }

  private nowS(): number {
    return Math.floor(this.now() / 1000);
  }

  private cachedList<T>(path: string, options: CallOptions, forget: () => void): Promise<T[]> {
    return this.get<T[]>(path, {}, options).then(
      (list) => list ?? [],
      (err: unknown) => {
        forget();
        throw err;
      },
    );
  }

  private async edge<T>(path: string, params: QueryParams, options: CallOptions): Promise<T | null> {
    const data = await this.get<T | T[]>(path, params, options);
    if (data === undefined) return null;
    if (Array.isArray(data)) return data[0] ?? null;
    return data;
  }

  private pages<T extends { timestamp: number }>(
    path: string, ranges: RangeQuery[], params: QueryParams, options: PageReadOptions, shape?: PageShape<T>,
  ): RangePages<T> {
    const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS;
    if (ranges.length > maxRequests) {
      throw new EnergyApiError({ code: 'REQUEST_BUDGET', message: `this read needs ${ranges.length} requests, more than maxRequests (${maxRequests}) allows: narrow the range or raise maxRequests`, sent: false });
    }
    const priority = options.priority ?? 'bulk';
    const fetch = async (range: RangeQuery, signal: AbortSignal): Promise<T[]> => {
      const request = shape ? shape.request(range) : range;
      const page = await this.get<T[]>(path, { fromTs: request.fromTs, toTs: request.toTs, ...params }, { priority, signal, onRetry: options.onRetry });
      const entries = Array.isArray(page) ? page : [];
      return shape ? shape.page(entries, range, request) : entries;
    };
    return new RangePages<T>(ranges, fetch, { signal: options.signal, readAhead: options.readAhead });
  }

  private async get<T>(path: string, query: QueryParams, options: CallOptions): Promise<T | undefined> {
    return (await this.send<T>({ method: 'GET', path, query, ...options })).data;
  }

  private async send<T>(spec: { method: 'GET' | 'PATCH'; path: string; query?: QueryParams; body?: unknown } & CallOptions) {
    if (this.closed) throw new EnergyApiError({ code: 'ABORTED', message: 'the client is closed', sent: false });
    let retries = 0;
    const onRetry = spec.onRetry && ((retry: RetryInfo) => {
      if (retry.kind === 'retrying') retries = retry.attempt;
      spec.onRetry?.(retry);
    });
    try {
      const response = await this.transport.request<T>({ ...spec, onRetry });
      this.noteKey(true);
      return response;
    } catch (err) {
      if (err instanceof EnergyApiError && (err.status === 401 || err.code === 'NOT_PERMITTED')) this.noteKey(false, err);
      throw err;
    } finally {
      if (retries > 0) spec.onRetry?.({ kind: 'settled', retries });
    }
  }

  private noteKey(accepted: boolean, error?: EnergyApiError): void {
    if (this.lastKeyAccepted === accepted && accepted) return;
    this.lastKeyAccepted = accepted;
    const status: KeyStatus = { accepted, key: this.keyHint, error };
    this.lastKey = status;
    this.emit('keyStatus', status);
  }
}

const PRIORITY_RANK: Record<RequestPriority, number> = { interactive: 0, normal: 1, bulk: 2 };

/** How the planned spans of a read become requests, and their answers entries. */
interface PageShape<T> {
  request(periods: RangeQuery): RangeQuery;
  page(entries: T[], periods: RangeQuery, request: RangeQuery): T[];
}

/** The updated device of a PATCH answer: the bare device (live service) or `{status, result}` (spec). */
function updatedDevice(data: PatchResult | Device | undefined): Device | undefined {
  if (data && typeof data === 'object' && 'result' in data && isDeviceObject(data.result)) return data.result;
  return isDeviceObject(data) ? data : undefined;
}

function isDeviceObject(value: unknown): value is Device {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}

/** Resolves as `promise` does, or rejects with ABORTED when `signal` fires first; leaves no listener behind. */
/** One in-flight device read shared by its concurrent callers. */
interface SharedRead {
  read: Promise<Device>;
  priority: RequestPriority;
  /** The joined callers' onRetry, each held until that caller's wait ends. */
  listeners: Set<NonNullable<CallOptions['onRetry']>>;
}

function joinRead(shared: SharedRead, options: CallOptions): Promise<Device> {
  const { onRetry } = options;
  if (!onRetry) return untilAborted(shared.read, options.signal);
  // One listener per join, so a caller that joins twice is told twice, as for two requests.
  const listener = (retry: RetryInfo) => onRetry(retry);
  shared.listeners.add(listener);
  const leave = () => shared.listeners.delete(listener);
  const joined = untilAborted(shared.read, options.signal);
  joined.then(leave, leave);
  return joined;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function checkQueryObject<T extends object>(query: T): T {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    throw EnergyApiError.invalid(`the query must be an object with fromTs and toTs, not ${describeValue(query)}`);
  }
  return query;
}

export function checkDeviceId(deviceId: unknown): string {
  if (typeof deviceId !== 'string' || !DEVICE_ID.test(deviceId.trim())) {
    throw EnergyApiError.invalid(
      `${describeValue(deviceId)} is not a device id: a device id has 13 letters or digits and starts with B, D, E or F`,
    );
  }
  return deviceId.trim();
}

function checkEdge(edge: unknown): Edge {
  if (edge !== 'first' && edge !== 'latest') throw EnergyApiError.invalid(`edge must be "first" or "latest", not ${describeValue(edge)}`);
  return edge;
}

/** Plain http:// is refused except on loopback, so a key never crosses a network in clear text. */
export function checkBaseUrl(baseUrl: unknown): URL {
  let url: URL;
  try {
    if (typeof baseUrl !== 'string') throw new TypeError('not a string');
    url = new URL(baseUrl);
  } catch {
    throw EnergyApiError.invalid(`${describeValue(baseUrl, 80)} is not a URL (expected for example https://api.example.com/v3)`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url;
  throw EnergyApiError.invalid(`the base URL must use https:// (plain http is allowed only for a simulator on this machine): ${url.origin}`);
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
