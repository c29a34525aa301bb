import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type BottleneckType from 'bottleneck';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { aborted } from './limiter.js';
import type { RateLimitState, RequestPriority } from './types.js';

export interface SharedLimiterOptions {
  /** redis://[user[:password]@]host[:port][/db] */
  redisUrl: string;
  /** Overrides a password in the address (kept as a Node-RED credential). */
  password?: string;
  /** The key's id in Redis: a digest of base address and key, never the key itself (see sharedLimiterId). */
  id: string;
  /** The key's per-second limit until the shared or learnt one says otherwise. */
  tps: number;
  /** Share of the limit the cluster may use (default 0.94): headroom for timers firing late in one process. */
  usable?: number;
  /** Heartbeat period in ms (default 1000); an instance unseen for 5 periods no longer counts. */
  heartbeatMs?: number;
}

export type SharedMode = 'connecting' | 'shared' | 'fallback';

export interface SharedStatus {
  mode: SharedMode;
  /** Instances using this key, as last seen in Redis (1 before any was seen). */
  instances: number;
  /** Requests per second this instance may send on its own while Redis is unreachable. */
  fallbackTps: number;
}

/** The figures every instance of a key shares through Redis. */
export interface SharedFigures {
  tps?: number;
  tpd?: number;
  dailyRemaining?: number;
  /** Unix seconds. */
  dailyResetAt?: number;
}

interface Waiter {
  priority: RequestPriority;
  resolve: () => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort: () => void;
  /** The Bottleneck generation it was handed to; undefined while queued here. */
  dispatchedIn?: number;
}

const PRIORITY: Record<RequestPriority, number> = { interactive: 1, normal: 5, bulk: 8 };
const WINDOW_MS = 1000;
/** Margin on the local fallback window and the pause at every change of mode. */
const FALLBACK_MARGIN_MS = 100;
/** Requests handed to Bottleneck at once: more would be reserved in Redis ahead of other instances' priorities. */
const IN_FLIGHT = 2;
/** Redis must stay reachable this long before the instance rejoins. */
const STABLE_MS = 1000;
const MISSED_HEARTBEATS = 5;

const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return {redis.call('ZCARD', KEYS[1]), redis.call('HGETALL', KEYS[2])}
`;

/** Stores limits; the smaller remaining wins within one day, a later reset starts a new day. */
const PUBLISH_SCRIPT = `
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'tps', ARGV[1]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'tpd', ARGV[2]) end
if ARGV[3] ~= '' then
  local cur = redis.call('HMGET', KEYS[1], 'dailyRemaining', 'dailyResetAt')
  local remaining, resetAt = tonumber(ARGV[3]), tonumber(ARGV[4])
  if not cur[1] or not cur[2] or resetAt > tonumber(cur[2]) + 60 or (math.abs(resetAt - tonumber(cur[2])) <= 60 and remaining < tonumber(cur[1])) then
    redis.call('HSET', KEYS[1], 'dailyRemaining', remaining, 'dailyResetAt', resetAt)
  end
end
redis.call('EXPIRE', KEYS[1], 172800)
return 1
`;

/** The Bottleneck id of a key: a digest of base address and key (the key never reaches Redis). */
export function sharedLimiterId(base: string, apiKey: string): string {
  return `energy-api-${createHash('sha256').update(`${base}\n${apiKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * A gate in front of the key's local limiter that shares the key's per-second budget among every
 * Node-RED instance using it, through Bottleneck's Redis clustering. While Redis is unreachable the
 * instance sends at most its share (the limit divided by the instances last seen) and rejoins once
 * Redis is back. Emits 'status' (SharedStatus) and 'figures' (SharedFigures read from Redis).
 */
export class SharedLimiter extends EventEmitter {
  private readonly options: Required<Omit<SharedLimiterOptions, 'password'>> & { password?: string };
  private readonly instanceId = randomUUID();
  private readonly queue: Waiter[] = [];
  private connection?: InstanceType<typeof BottleneckType.IORedisConnection>;
  private client?: RedisClient;
  private bottleneck?: BottleneckType;
  private generation = 0;
  private inFlight = 0;
  private mode: SharedMode = 'connecting';
  private tps: number;
  private instances = 1;
  private instancesSeen = false;
  /** Nothing is sent before this (ms, Date.now), after every change of mode. */
  private holdUntil = 0;
  private fallbackSends: number[] = [];
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(options: SharedLimiterOptions) {
    super();
    this.options = { usable: 0.94, heartbeatMs: 1000, ...options };
    this.tps = options.tps > 0 ? options.tps : 5;
    this.connect();
  }

  status(): SharedStatus {
    return { mode: this.mode, instances: this.instances, fallbackTps: this.fallbackShare() };
  }

  /** Resolves when this instance may start one request; rejects with ABORTED when `signal` fires first. */
  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed || signal?.aborted) return reject(aborted());
      const waiter: Waiter = {
        priority, resolve, reject, signal,
        onAbort: () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(aborted());
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      const at = this.queue.findIndex((w) => PRIORITY[w.priority] > PRIORITY[priority]);
      this.queue.splice(at < 0 ? this.queue.length : at, 0, waiter);
      this.pump();
    });
  }

  /** Shares what this instance learnt (limits, remaining daily budget) with the others. */
  publish(state: Pick<RateLimitState, 'tps' | 'tpd' | 'dailyRemaining' | 'dailyResetAt'>): void {
    if (state.tps !== this.tps) this.setTps(state.tps);
    if (this.mode !== 'shared' || !this.client) return;
    this.client.eval(PUBLISH_SCRIPT, 1, this.key('limits'), String(state.tps), String(state.tpd),
      String(state.dailyRemaining), String(state.dailyResetAt)).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    clearTimeout(this.stableTimer);
    for (const waiter of this.queue.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(aborted());
    }
    const client = this.client;
    if (client?.status === 'ready') await client.zrem(this.key('instances'), this.instanceId).catch(() => undefined);
    this.dropBottleneck();
    await this.connection?.disconnect(false).catch(() => undefined);
    this.removeAllListeners();
  }

  private connect(): void {
    // Required only here: without a shared limiter neither Bottleneck's Redis mode nor ioredis is loaded.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Bottleneck = require('bottleneck') as typeof BottleneckType;
    const url = new URL(this.options.redisUrl);
    const clientOptions: RedisOptions = {
      host: url.hostname || '127.0.0.1',
      port: Number(url.port) || 6379,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: this.options.password || (url.password ? decodeURIComponent(url.password) : undefined),
      db: Number(url.pathname.slice(1)) || 0,
      // Fail at once while disconnected: the instance then falls back instead of waiting on Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: () => 500,
    };
    this.connection = new Bottleneck.IORedisConnection({ clientOptions });
    this.connection.on('error', () => undefined);
    const client = (this.connection as unknown as { client: RedisClient }).client;
    this.client = client;
    client.on('ready', () => this.onReachable());
    client.on('close', () => this.onUnreachable());
    client.on('error', () => undefined);
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref?.();
    // Until Redis answers, the instance runs on its own share.
    this.enter('fallback');
  }

  private onReachable(): void {
    if (this.closed || this.stableTimer) return;
    this.stableTimer = setTimeout(() => {
      this.stableTimer = undefined;
      if (this.client?.status === 'ready') this.enter('shared');
    }, STABLE_MS);
  }

  private onUnreachable(): void {
    clearTimeout(this.stableTimer);
    this.stableTimer = undefined;
    if (!this.closed && this.mode !== 'fallback') this.enter('fallback');
  }

  private enter(mode: SharedMode): void {
    this.mode = mode;
    this.generation += 1;
    this.inFlight = 0;
    this.dropBottleneck();
    // Whatever the other instances sent under the old mode must leave the window first.
    this.holdUntil = Date.now() + WINDOW_MS + FALLBACK_MARGIN_MS;
    this.fallbackSends = [];
    for (const waiter of this.queue) waiter.dispatchedIn = undefined;
    if (mode === 'shared') {
      this.bottleneck = this.newBottleneck();
      this.beat();
    }
    this.emit('status', this.status());
    this.pump();
  }

  private newBottleneck(): BottleneckType {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Bottleneck = require('bottleneck') as typeof BottleneckType;
    const limiter = new Bottleneck({
      id: this.options.id,
      datastore: 'ioredis',
      connection: this.connection,
      clearDatastore: false,
      minTime: this.minTime(),
    });
    limiter.on('error', () => undefined);
    return limiter;
  }

  private dropBottleneck(): void {
    const old = this.bottleneck;
    this.bottleneck = undefined;
    if (old) void old.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  private minTime(): number {
    return Math.ceil(WINDOW_MS / (this.tps * this.options.usable));
  }

  private setTps(tps: number): void {
    if (!(tps > 0) || tps === this.tps) return;
    this.tps = tps;
    this.bottleneck?.updateSettings({ minTime: this.minTime() });
    this.emit('status', this.status());
  }

  private fallbackShare(): number {
    // Never seen: as conservative as can be, one request per window.
    return this.instancesSeen ? Math.max(1, Math.floor(this.tps / Math.max(1, this.instances))) : 1;
  }

  private beat(): void {
    const client = this.client;
    if (this.closed || !client || client.status !== 'ready') return;
    const ttl = this.options.heartbeatMs * MISSED_HEARTBEATS;
    (client.eval(HEARTBEAT_SCRIPT, 2, this.key('instances'), this.key('limits'), this.instanceId, String(ttl)) as Promise<[number, string[]]>)
      .then(([count, flat]) => {
        const changed = count !== this.instances;
        this.instances = Math.max(1, count);
        this.instancesSeen = true;
        const figures: SharedFigures = {};
        for (let i = 0; i + 1 < flat.length; i += 2) figures[flat[i] as keyof SharedFigures] = Number(flat[i + 1]);
        if (figures.tps !== undefined) this.setTps(figures.tps);
        if (Object.keys(figures).length) this.emit('figures', figures);
        if (changed) this.emit('status', this.status());
      })
      .catch(() => undefined);
  }

  private pump(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const wait = this.holdUntil - Date.now();
    if (wait > 0) return this.wake(wait);
    if (this.mode === 'shared') this.pumpShared();
    else this.pumpFallback();
  }

  private pumpShared(): void {
    const limiter = this.bottleneck;
    if (!limiter) return;
    const generation = this.generation;
    for (const waiter of this.queue) {
      if (this.inFlight >= IN_FLIGHT) return;
      if (waiter.dispatchedIn !== undefined) continue;
      waiter.dispatchedIn = generation;
      this.inFlight += 1;
      const granted = (ok: boolean) => {
        if (generation !== this.generation) return;
        this.inFlight -= 1;
        const at = this.queue.indexOf(waiter);
        if (ok && at >= 0) {
          this.queue.splice(at, 1);
          waiter.signal?.removeEventListener('abort', waiter.onAbort);
          waiter.resolve();
        } else if (at >= 0) {
          waiter.dispatchedIn = undefined;
        }
        this.pump();
      };
      limiter.schedule({ priority: PRIORITY[waiter.priority] }, async () => {
        // A grant that arrives after a change of mode is not used: the waiter goes the new way.
        granted(generation === this.generation);
      }).catch(() => {
        if (generation === this.generation) this.onUnreachable();
      });
    }
  }

  private pumpFallback(): void {
    const windowMs = WINDOW_MS + FALLBACK_MARGIN_MS;
    const share = this.fallbackShare();
    for (;;) {
      if (!this.queue.length) return;
      const now = Date.now();
      this.fallbackSends = this.fallbackSends.filter((t) => t > now - windowMs);
      const spacing = windowMs / share;
      const last = this.fallbackSends[this.fallbackSends.length - 1] ?? -Infinity;
      let wait = Math.max(0, last + spacing - now);
      if (this.fallbackSends.length >= share) wait = Math.max(wait, this.fallbackSends[this.fallbackSends.length - share] + windowMs - now);
      if (wait > 0) return this.wake(wait);
      const waiter = this.queue.shift() as Waiter;
      this.fallbackSends.push(now);
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
    }
  }

  private wake(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), Math.ceil(ms) + 1);
  }

  private key(name: string): string {
    return `${this.options.id}:energy-api:${name}`;
  }
}
