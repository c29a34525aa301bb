/**
 * Saved flows keep working across releases: every node saves `configVersion` (the editor's default is
 * the current version), and on start the runtime upgrades older saved properties step by step before the
 * node reads them. A node saved before versions existed (package 0.1) has no `configVersion`: version 0.
 *
 * To rename or split a property: add a step with the next version to the node's migrations.ts, raise
 * the editor default `configVersion` to it, and mirror the step in the node's editor (oneditprepare).
 */

/** The property every node of this package saves its config version in. */
export const CONFIG_VERSION_PROPERTY = 'configVersion';

export type SavedConfig = Record<string, unknown> & { configVersion?: unknown };

export interface Migration {
  /** The version this step produces; steps run in ascending order from the saved version. */
  version: number;
  /** Returns the upgraded properties (never mutates its argument). */
  up(config: SavedConfig): SavedConfig;
}

export interface MigrationResult<T> {
  config: T;
  /** The version the flow was saved with (0 = before versions). */
  from: number;
  /** Set when the flow was saved by a newer release than this one: nothing is changed then. */
  newer?: number;
}

export function savedVersion(config: SavedConfig): number {
  const version = Number(config.configVersion);
  return Number.isInteger(version) && version > 0 ? version : 0;
}

export function currentVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** Applies every step newer than the saved version, in order, and stamps the current version. */
export function migrateConfig<T extends object>(saved: T, migrations: readonly Migration[]): MigrationResult<T> {
  const from = savedVersion(saved as SavedConfig);
  const latest = currentVersion(migrations);
  if (from > latest) return { config: saved, from, newer: from };
  if (from === latest) return { config: saved, from };
  let config: SavedConfig = { ...(saved as SavedConfig) };
  for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
    if (step.version > from) config = { ...step.up(config), configVersion: step.version };
  }
  config.configVersion = latest;
  return { config: config as T, from };
}

/** Step helper: properties a saved config lacks get these values. */
export function fillMissing(defaults: Record<string, unknown>): (config: SavedConfig) => SavedConfig {
  return (config) => {
    const out: SavedConfig = { ...config };
    for (const [name, value] of Object.entries(defaults)) {
      if (out[name] === undefined || out[name] === null) out[name] = value;
    }
    return out;
  };
}

/** Step helper: numeric properties saved as text by older editors become numbers (text that is no number is kept, for the node to refuse). */
export function numbersFromText(names: readonly string[]): (config: SavedConfig) => SavedConfig {
  return (config) => {
    const out: SavedConfig = { ...config };
    for (const name of names) {
      const value = out[name];
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) out[name] = Number(value);
    }
    return out;
  };
}

/** Runs several step helpers as one step. */
export function steps(...fns: Array<(config: SavedConfig) => SavedConfig>): (config: SavedConfig) => SavedConfig {
  return (config) => fns.reduce((c, fn) => fn(c), config);
}

/** What a node needs to say that its flow came from a newer release. */
interface Warns {
  warn(message: string): void;
}

/**
 * Upgrades a node's saved properties; call first in the node's constructor and read only what it returns.
 * A flow saved by a newer release is used as it is, with a warning.
 */
export function upgradeSavedConfig<T extends object>(node: Warns, saved: T, migrations: readonly Migration[]): T {
  const result = migrateConfig(saved, migrations);
  if (result.newer !== undefined) {
    node.warn(`this node was saved by a newer release (config version ${result.newer}, this release knows up to ${currentVersion(migrations)}): update the package`);
  }
  return result.config;
}
