/**
 * The state file: what users changed (labels, categories, timezones, phases, switch states and
 * their history, WiFi credentials, pending changes) survives a restart. Energy depends on the
 * switch history, so it is kept with the simulator's start time.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SimDevice } from './types.js';

const FORMAT = 1;

interface SavedDevice {
  label: string;
  timezone?: string;
  activeVia: SimDevice['activeVia'];
  phasesCount: SimDevice['phasesCount'];
  grouping: string[][];
  channels: Array<Pick<SimDevice['channels'][number], 'id' | 'label' | 'ctRating' | 'categoryId' | 'ctQueue'>>;
  switches: Array<Omit<SimDevice['switches'][number], 'initialState'>>;
  wifi?: Pick<NonNullable<SimDevice['wifi']>, 'ssid' | 'pskUpdatedAt' | 'lastHeardAt' | 'queue'>;
  cellularLastHeardAt: number | null;
  initialQueue: SimDevice['initialQueue'];
}

export interface SavedState {
  format: number;
  /** Sim time the simulator first started with this file. */
  since: number;
  devices: Record<string, SavedDevice>;
}

export function snapshot(devices: Iterable<SimDevice>, since: number): SavedState {
  const out: SavedState = { format: FORMAT, since, devices: {} };
  for (const d of devices) {
    out.devices[d.id] = {
      label: d.label,
      ...(d.timezone !== undefined ? { timezone: d.timezone } : {}),
      activeVia: d.activeVia,
      phasesCount: d.phasesCount,
      grouping: d.grouping,
      channels: d.channels.map(({ id, label, ctRating, categoryId, ctQueue }) => ({ id, label, ctRating, categoryId, ctQueue })),
      switches: d.switches.map(({ initialState: _initial, ...rest }) => rest),
      ...(d.wifi ? { wifi: { ssid: d.wifi.ssid, pskUpdatedAt: d.wifi.pskUpdatedAt, lastHeardAt: d.wifi.lastHeardAt, queue: d.wifi.queue } } : {}),
      cellularLastHeardAt: d.cellular.lastHeardAt,
      initialQueue: d.initialQueue,
    };
  }
  return out;
}

/** Applies a saved state onto a fresh fleet; devices or parts that no longer exist are ignored. */
export function restore(devices: ReadonlyMap<string, SimDevice>, saved: SavedState): void {
  for (const [id, s] of Object.entries(saved.devices)) {
    const d = devices.get(id);
    if (!d) continue;
    d.label = s.label;
    d.timezone = s.timezone;
    d.activeVia = s.activeVia;
    d.phasesCount = s.phasesCount;
    d.grouping = s.grouping;
    for (const c of s.channels) {
      const ch = d.channels.find((x) => x.id === c.id);
      if (ch) Object.assign(ch, { label: c.label, ctRating: c.ctRating, categoryId: c.categoryId, ctQueue: c.ctQueue });
    }
    for (const saved of s.switches) {
      const sw = d.switches.find((x) => x.id === saved.id);
      if (!sw) continue;
      Object.assign(sw, saved);
      for (const e of sw.history) d.switchChanges.push(e.at);
    }
    if (d.wifi && s.wifi) Object.assign(d.wifi, s.wifi);
    d.cellular.lastHeardAt = s.cellularLastHeardAt;
    d.initialQueue = s.initialQueue;
  }
}

/** Reads a state file; undefined when it does not exist. A file that cannot be read as a state is an error. */
export function readStateFile(path: string): SavedState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<SavedState>;
  if (parsed.format !== FORMAT || typeof parsed.since !== 'number' || typeof parsed.devices !== 'object' || parsed.devices === null) {
    throw new Error(`${path} is not a simulator state file (format ${FORMAT})`);
  }
  return parsed as SavedState;
}

/** Writes atomically (a crash never leaves half a file). */
export function writeStateFile(path: string, state: SavedState): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  renameSync(tmp, path);
}
