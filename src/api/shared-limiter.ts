import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { LocalPaceStore, type PaceDecision, type PaceRequest, type PaceStore, type PaceTicket } from './pace-store.js';
import type { RateLimitState } from './types.js';

export interface SharedLimiterOptions {
  /** redis://[user[:password]@]host[:port][/db] */
  redisUrl: string;
  /** Overrides a password in the address (kept as a Node-RED credential). */
  password?: string;
  /** The key's id in Redis: a digest of base address and key, never the key itself (see sharedLimiterId). */
  id: string;
  /** The key's per-second limit until the shared or learnt one says otherwise (sizes the share while Redis is down). */
  tps: number;
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

const WINDOW_MS = 1000;
/** Margin on the window while Redis is down, and the hold at every change of mode. */
const FALLBACK_MARGIN_MS = 100;
/** Redis must stay reachable this long before the instance rejoins. */
const STABLE_MS = 1000;
const MISSED_HEARTBEATS = 5;
/** A start granted but not on the wire this long after (its process gone) counts as sent then. */
const UNSENT_TTL_MS = 10_000;
/** While an unsent start of another process fills the window, ask again this soon. */
const UNSENT_POLL_MS = 5;
/** Every key of the window expires this long after its last use. */
const KEY_TTL_MS = 60_000;

/**
 * The limiter's window in Redis, on Redis's clock (one clock for every process): `sent` holds the key's starts by
 * when they reached the wire (or, settled unsent, by their grant), `unsent` the granted starts not yet on the wire
 * (they fill the window until they are), `pace` the due time of the last start and the pause after a 429.
 * The same rule as LocalPaceStore: KEYS sent, unsent, pace; ARGV id, tps, windowMs, spacingMs, catchUpMs, waitedMs.
 * Returns {1, 0} for a start granted, {0, ms} to wait (-1: until an unsent start is on the wire).
 */
const TRY_START_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tps, windowMs, spacing = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local catchUp, waited = tonumber(ARGV[5]), tonumber(ARGV[6])
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ${UNSENT_TTL_MS})
for _, id in ipairs(stale) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], now, id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - windowMs), '+inf', 'WITHSCORES')
local liveCount = #live / 2
local unsent = redis.call('ZCARD', KEYS[2])
local dueAt = -1e308
if liveCount + unsent >= tps then
  local index = liveCount + unsent - tps + 1
  if index > liveCount then return {0, -1} end
  dueAt = tonumber(live[index * 2]) + windowMs
end
local pace = redis.call('HMGET', KEYS[3], 'lastStartAt', 'pausedUntil')
local last, paused = tonumber(pace[1]), tonumber(pace[2])
if last and last + spacing > dueAt then dueAt = last + spacing end
if paused and paused > dueAt then dueAt = paused end
if dueAt > now then return {0, math.ceil(dueAt - now)} end
local onTime = math.max(dueAt, now - waited)
local lastStart = math.min(now, math.max(onTime, now - math.max(spacing / 4, catchUp)))
redis.call('HSET', KEYS[3], 'lastStartAt', tostring(lastStart))
redis.call('ZADD', KEYS[2], now, ARGV[1])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ${KEY_TTL_MS}) end
return {1, 0}
`;

/** A granted start is on the wire (KEYS sent, unsent; ARGV id): counted from now. */
const SENT_SCRIPT = `
local t = redis.call('TIME')
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000, ARGV[1])
end
return 1
`;

/** A granted start ended without reaching the wire (KEYS sent, unsent; ARGV id): counted from its grant. */
const SETTLED_SCRIPT = `
local grantedAt = redis.call('ZSCORE', KEYS[2], ARGV[1])
if grantedAt then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[1], grantedAt, ARGV[1])
end
return 1
`;

/** Every start of the key waits ARGV[1] ms from now (KEYS pace). */
const PAUSE_SCRIPT = `
local t = redis.call('TIME')
local untilMs = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 + tonumber(ARGV[1])
local cur = tonumber(redis.call('HGET', KEYS[1], 'pausedUntil'))
if not cur or untilMs > cur then redis.call('HSET', KEYS[1], 'pausedUntil', tostring(untilMs)) end
redis.call('PEXPIRE', KEYS[1], ${KEY_TTL_MS})
return 1
`;

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

/** The Redis id of a key: a digest of base address and key (the key never reaches Redis). */
export function sharedLimiterId(base: string, apiKey: string): string {
  return `energy-api-${createHash('sha256').update(`${base}\n${apiKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * The key's window in Redis, shared by every Node-RED instance using the key: the limiter runs the same algorithm
 * over it as over its window in the process (LocalPaceStore), so a cluster of processes is paced on the wire as one
 * process is. While Redis is unreachable the instance paces itself in the process at its share (the limit divided by
 * the instances last seen) and rejoins once Redis has been back for a second; every change of mode first lets a
 * window pass. ioredis is loaded only when a store is made. Emits 'status' (SharedStatus) and 'figures'
 * (SharedFigures read from Redis).
 */
export class SharedLimiter extends EventEmitter implements PaceStore {
  private readonly options: Required<Omit<SharedLimiterOptions, 'password'>> & { password?: string };
  private readonly instanceId = randomUUID();
  private readonly local = new LocalPaceStore(() => performance.now());
  private client?: RedisClient;
  private mode: SharedMode = 'connecting';
  private tps: number;
  private instances = 1;
  private instancesSeen = false;
  private heartbeat?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  /** Nothing starts before this (performance.now ms), after every change of mode. */
  private holdUntil = 0;
  private starts = 0;
  private closed = false;

  constructor(options: SharedLimiterOptions) {
    super();
    this.options = { heartbeatMs: 1000, ...options };
    this.tps = options.tps > 0 ? options.tps : 5;
    this.connect();
  }

  status(): SharedStatus {
    return { mode: this.mode, instances: this.instances, fallbackTps: this.fallbackShare() };
  }

  tryStart(request: PaceRequest): PaceDecision | Promise<PaceDecision> {
    if (request.tps !== this.tps) this.setTps(request.tps);
    const client = this.client;
    if (this.mode !== 'shared' || !client) return this.local.tryStart(this.fallbackRequest(request));
    const holdMs = this.holdUntil - performance.now();
    if (holdMs > 0) return { waitMs: holdMs };
    const id = `${this.instanceId}:${(this.starts += 1)}`;
    const keys = [this.key('sent'), this.key('unsent'), this.key('pace')];
    return (client.eval(TRY_START_SCRIPT, 3, ...keys, id, String(request.tps), String(request.windowMs),
      String(request.spacingMs), String(request.catchUpMs), String(request.waitedMs)) as Promise<[number, number]>)
      .then(([granted, waitMs]): PaceDecision => {
        if (granted === 1) return { ticket: this.sharedTicket(client, keys, id) };
        return { waitMs: waitMs < 0 ? UNSENT_POLL_MS : Math.max(1, waitMs) };
      }, (): PaceDecision => {
        // Redis failed the call: this instance goes on its own share at once.
        this.onUnreachable();
        return { waitMs: 0 };
      });
  }

  pauseFor(ms: number): void {
    this.local.pauseFor(ms);
    if (this.mode === 'shared' && this.client) {
      this.client.eval(PAUSE_SCRIPT, 1, this.key('pace'), String(Math.max(0, Math.round(ms)))).catch(() => undefined);
    }
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
    clearInterval(this.heartbeat);
    clearTimeout(this.stableTimer);
    const client = this.client;
    this.client = undefined;
    if (client?.status === 'ready') await client.zrem(this.key('instances'), this.instanceId).catch(() => undefined);
    client?.disconnect(false);
    await this.local.close();
    this.removeAllListeners();
  }

  /** A start granted in Redis: its wire time and its end go back to Redis (lost while Redis is down: they expire). */
  private sharedTicket(client: RedisClient, keys: string[], id: string): PaceTicket {
    const tell = (script: string) => {
      client.eval(script, 2, keys[0], keys[1], id).catch(() => undefined);
    };
    let sent = false;
    return {
      sent: () => {
        sent = true;
        tell(SENT_SCRIPT);
      },
      settled: () => {
        if (!sent) tell(SETTLED_SCRIPT);
      },
    };
  }

  /** While Redis is down: this instance's share of the limit, on a wider window. */
  private fallbackRequest(request: PaceRequest): PaceRequest {
    const share = this.fallbackShare();
    const windowMs = WINDOW_MS + FALLBACK_MARGIN_MS;
    return { ...request, tps: share, windowMs, spacingMs: windowMs / share };
  }

  private connect(): void {
    // Required only here: without a shared limiter ioredis is never loaded.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const IORedis = require('ioredis') as typeof import('ioredis');
    const url = new URL(this.options.redisUrl);
    const clientOptions: RedisOptions = {
      host: url.hostname || '127.0.0.1',
      port: Number(url.port) || 6379,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: this.options.password || (url.password ? decodeURIComponent(url.password) : undefined),
      db: Number(url.pathname.slice(1)) || 0,
      tls: url.protocol === 'rediss:' ? {} : undefined,
      // Fail at once while disconnected: the instance then falls back instead of waiting on Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: () => 500,
    };
    const client = new IORedis.Redis(clientOptions);
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
    // Whatever this instance or the others sent under the old mode must leave the window first.
    const holdMs = WINDOW_MS + FALLBACK_MARGIN_MS;
    this.holdUntil = performance.now() + holdMs;
    this.local.reset(holdMs);
    if (mode === 'shared') this.beat();
    this.emit('status', this.status());
  }

  private setTps(tps: number): void {
    if (!(tps > 0) || tps === this.tps) return;
    this.tps = tps;
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

  private key(name: string): string {
    return `${this.options.id}:energy-api:${name}`;
  }
}
