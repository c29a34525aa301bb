import { ConfigError } from '../../api/index.js';
import os from 'node:os';
import path from 'node:path';
import type { NodeDef } from 'node-red';
import { InfluxBackend, type InfluxApi } from './backends/influx.js';
import { PostgresBackend } from './backends/postgres.js';
import { SqliteBackend, sqliteProblem } from './backends/sqlite.js';
import { unavailable } from './backends/errors.js';
import type { StoreBackend } from './backends/types.js';
import { secretDigest } from './shared-backend.js';

/** The node's properties as the editor saves them (issue 19's names, plus influxApi and queueLimit). */
export interface EnergyStoreDef extends NodeDef {
  backend?: string;
  file?: string;
  url?: string;
  /** Which InfluxDB API: v1 (database, user/password), v2 (org, bucket, token), v3 (database, token). */
  influxApi?: string;
  database?: string;
  org?: string;
  bucket?: string;
  connection?: string;
  /** Days to keep (0 = all). */
  retention?: string | number;
  /** Largest disk queue in MB. */
  queueLimit?: string | number;
}

export interface StoreCredentials {
  user?: string;
  password?: string;
  token?: string;
}

export const BACKENDS = ['sqlite', 'influxdb', 'postgres'] as const;
export type BackendName = (typeof BACKENDS)[number];
export const DEFAULT_FILE = 'energy.sqlite';
export const DEFAULT_QUEUE_LIMIT_MB = 100;
/** The queue warns once it holds this share of its limit. */
export const QUEUE_WARN_SHARE = 0.8;

export interface StoreSettings {
  backend: BackendName;
  retentionDays: number;
  queueLimitBytes: number;
  /** Where this node keeps its queue and watermarks. */
  dataDir: string;
  /** Short description for the status and the output (never a secret). */
  target: string;
}

/** Node-RED's user directory (where flows and credentials live). */
export function userDirOf(settings: { userDir?: unknown }): string {
  return typeof settings.userDir === 'string' && settings.userDir ? settings.userDir : path.join(os.homedir(), '.node-red');
}

function wholeNumber(value: unknown, fallback: number, name: string, min: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || Math.floor(n) !== n) throw new ConfigError(`${name} must be a whole number, ${min} or more; got "${String(value).slice(0, 20)}"`);
  return n;
}

/** Reads and checks the properties; throws with a reason the user can act on. */
export function readStoreSettings(def: EnergyStoreDef, userDir: string): StoreSettings {
  const backend = (def.backend || 'sqlite') as BackendName;
  if (!BACKENDS.includes(backend)) throw new ConfigError(`backend must be one of ${BACKENDS.join(', ')}; got "${String(def.backend).slice(0, 20)}"`);
  // Known before anything is queued: on a Node.js without node:sqlite every input is refused at once.
  const missing = backend === 'sqlite' ? sqliteProblem() : undefined;
  if (missing) throw unavailable(missing);
  const retentionDays = wholeNumber(def.retention, 0, 'retention (days)', 0);
  const queueLimitBytes = wholeNumber(def.queueLimit, DEFAULT_QUEUE_LIMIT_MB, 'queueLimit (MB)', 1) * 1_048_576;
  const dataDir = path.join(userDir, 'energy-store', def.id.replace(/[^A-Za-z0-9_.-]/g, '_'));
  return { backend, retentionDays, queueLimitBytes, dataDir, target: targetOf(def, backend) };
}

function targetOf(def: EnergyStoreDef, backend: BackendName): string {
  if (backend === 'sqlite') return def.file || DEFAULT_FILE;
  if (backend === 'postgres') return (def.connection ?? '').replace(/\/\/[^@/]*@/, '//');
  return `${def.url ?? ''} ${def.influxApi === 'v2' ? def.bucket ?? '' : def.database ?? ''}`.trim();
}

export function sqliteFile(def: EnergyStoreDef, userDir: string): string {
  const file = def.file || DEFAULT_FILE;
  return path.isAbsolute(file) ? file : path.join(userDir, file);
}

/** What names one database: nodes with the same id share it (see shared-backend.ts). */
export function backendId(def: EnergyStoreDef, credentials: StoreCredentials, userDir: string): string {
  const backend = (def.backend || 'sqlite') as BackendName;
  if (backend === 'postgres') return JSON.stringify([backend, def.connection ?? '', secretDigest(credentials.password)]);
  if (backend === 'influxdb') {
    return JSON.stringify([backend, def.url ?? '', def.influxApi ?? '', def.database ?? '', def.org ?? '', def.bucket ?? '', credentials.user ?? '', secretDigest(credentials.token, credentials.password)]);
  }
  return JSON.stringify([backend, sqliteFile(def, userDir)]);
}

export function backendOf(def: EnergyStoreDef, credentials: StoreCredentials, userDir: string): StoreBackend {
  const backend = (def.backend || 'sqlite') as BackendName;
  if (backend === 'postgres') return new PostgresBackend({ connection: def.connection ?? '', password: credentials.password || undefined });
  if (backend === 'influxdb') {
    const api = (['v1', 'v2', 'v3'].includes(def.influxApi ?? '') ? def.influxApi : 'v1') as InfluxApi;
    return new InfluxBackend({
      url: def.url ?? '', api, database: def.database, org: def.org, bucket: def.bucket,
      token: credentials.token || undefined, user: credentials.user || undefined, password: credentials.password || undefined,
    });
  }
  return new SqliteBackend(sqliteFile(def, userDir));
}
