import type { Device, EnergyApiClient, RangeCallOptions } from '../../api/index.js';
import { HaError, type HaConnection } from '../../ha/websocket.js';
import { energyLayout, type TotalsState } from './energy-totals.js';
import {
  checkResume, floorHour, importRows, missingHours, sameZero, SHORT_TERM_S, startPoint, statisticView, walkBack, windowBelow, windowsBetween, zeroOf,
  type HistoryResume, type StatisticView,
} from './ha-history.js';

/** An energy total of a device and the unique id of its sensor (as discovery gave it to HA). */
export interface HistorySensor {
  total: string;
  uniqueId: string;
}

export interface HistoryDevice {
  device: Device;
  sensors: HistorySensor[];
  /** The live totals as counted now (undefined before the first read). */
  totals(): TotalsState | undefined;
}

export interface HistoryHost {
  client: EnergyApiClient;
  call: RangeCallOptions;
  nowMs(): number;
  ha: HaConnection;
  /** The resume point of a device, as last saved (undefined: none). */
  loadResume(deviceId: string): Promise<unknown>;
  saveResume(deviceId: string, resume: HistoryResume | undefined): Promise<void>;
  /** Progress: the device being imported, and its requests done of those planned. */
  progress(p: { device: number; devices: number; done: number; planned: number }): void;
}

export interface HistoryOutcome {
  /** Hours written, per statistic id. */
  imported: Record<string, number>;
  /** Statistics not imported yet, and why (HA has no row for them yet, the sensor is disabled…). */
  waiting: Record<string, string>;
  requests: number;
  /** The oldest of the statistics' newest rows: a later run looks from there (hours after it were HA's to compile). */
  newestSeen?: number;
}

interface Target {
  statisticId: string;
  total: string;
  view: StatisticView;
  zero: number;
  missing: number[];
}

const HA_UNIT = 'kWh';
/** HA's statistics are read this many seconds at a time (hourly: 720 rows per sensor; 5-minute: the 10 days HA keeps, at once). */
const READ_PIECE_S = 30 * 86400;

/** Which metadata HA's import takes: `mean_type` and `unit_class` from 2026.11 (older releases refuse them). */
export function importMetadata(version: string, statisticId: string): Record<string, unknown> {
  const [year, month] = version.split('.').map(Number);
  const modern = year > 2026 || (year === 2026 && month >= 11);
  const common = { has_sum: true, name: null, source: 'recorder', statistic_id: statisticId, unit_of_measurement: HA_UNIT };
  return modern ? { ...common, mean_type: 0, unit_class: 'energy' } : { ...common, has_mean: false };
}

const iso = (s: number): string => new Date(s * 1000).toISOString();

/**
 * Imports the hours from `fromS` on that HA has no row for, for each device's energy sensors. Everything HA could
 * refuse is asked first (the recorder, each statistic's unit): a refusal fails the run before anything is written.
 * Then per device, newest window first: one long-energy request, one import per statistic, the resume point saved.
 * A run cut short (HA gone, Node-RED stopped) leaves only whole hours behind; the next run writes what is still missing.
 */
export async function importHistory(host: HistoryHost, devices: readonly HistoryDevice[], fromS: number): Promise<HistoryOutcome> {
  const { ha } = host;
  const nowS = Math.floor(host.nowMs() / 1000);
  fromS = floorHour(fromS);
  const outcome: HistoryOutcome = { imported: {}, waiting: {}, requests: 0 };

  const registry = await ha.call<Array<{ platform: string; unique_id: string; entity_id: string; disabled_by: string | null }>>({ type: 'config/entity_registry/list' });
  const entityOf = new Map(registry.filter((e) => e.platform === 'mqtt').map((e) => [e.unique_id, e]));
  const perDevice = devices.map((device) => {
    const wanted = new Map<string, HistorySensor>();
    for (const sensor of device.sensors) {
      const entry = entityOf.get(sensor.uniqueId);
      if (!entry) outcome.waiting[sensor.uniqueId] = 'not in Home Assistant (yet)';
      else if (entry.disabled_by) outcome.waiting[entry.entity_id] = 'disabled in Home Assistant';
      else wanted.set(entry.entity_id, sensor);
    }
    return { device, wanted };
  });
  const ids = perDevice.flatMap((d) => [...d.wanted.keys()]);
  if (ids.length === 0) return outcome;

  let metadata: Array<{ statistic_id: string; statistics_unit_of_measurement?: string | null; has_sum?: boolean }>;
  try {
    metadata = await ha.call({ type: 'recorder/get_statistics_metadata', statistic_ids: ids });
  } catch (err) {
    if (err instanceof HaError && err.code === 'unknown_command') throw new HaError('no_recorder', 'Home Assistant has no recorder (its long-term statistics): add `recorder:` (or `default_config:`) to its configuration');
    throw err;
  }
  for (const m of metadata) {
    if (!ids.includes(m.statistic_id)) continue;
    if (m.statistics_unit_of_measurement !== HA_UNIT || m.has_sum === false) {
      throw new HaError('unit_mismatch', `Home Assistant keeps ${m.statistic_id} in ${m.statistics_unit_of_measurement ?? 'no unit'}${m.has_sum === false ? ' without a sum' : ''}, not in ${HA_UNIT} with a sum: nothing was imported (fix the statistic in HA's Developer tools → Statistics, then import again)`);
    }
  }

  for (const [index, { device, wanted }] of perDevice.entries()) {
    if (wanted.size === 0) continue;
    const deviceIds = [...wanted.keys()];
    // In pieces of READ_PIECE_S: a year of a device's sensors in one answer is megabytes of JSON parsed in one go.
    const period = async (kind: 'hour' | '5minute', start: number): Promise<Record<string, unknown[]>> => {
      const rows: Record<string, unknown[]> = {};
      for (let from = start; from < nowS + 3600; from += READ_PIECE_S) {
        const piece = await ha.call<Record<string, unknown[]>>({
          type: 'recorder/statistics_during_period', start_time: iso(from), end_time: iso(Math.min(from + READ_PIECE_S, nowS + 3600)), statistic_ids: deviceIds,
          period: kind, types: ['state', 'sum'], units: { energy: HA_UNIT },
        });
        for (const [id, list] of Object.entries(piece ?? {})) (rows[id] ??= []).push(...list);
      }
      return rows;
    };
    const hourly = await period('hour', fromS);
    const shortTerm = await period('5minute', Math.max(fromS, nowS - SHORT_TERM_S));
    const totals = device.totals();
    const targets: Target[] = [];
    for (const [statisticId, sensor] of wanted) {
      const view = statisticView(hourly[statisticId] ?? [], shortTerm[statisticId] ?? []);
      const zero = zeroOf(view);
      if (zero === undefined || !totals) {
        outcome.waiting[statisticId] = 'Home Assistant has no statistics of it yet (it compiles them every 5 minutes)';
        continue;
      }
      if (view.newest) outcome.newestSeen = Math.min(outcome.newestSeen ?? Infinity, view.newest.start);
      const missing = missingHours(view, fromS, totals.through);
      if (missing.length > 0) targets.push({ statisticId, total: sensor.total, view, zero, missing });
    }
    if (targets.length === 0 || !totals) {
      await host.saveResume(device.device.id, undefined);
      continue;
    }
    const oldest = Math.min(...targets.map((t) => t.missing[0]));
    const newest = Math.max(...targets.map((t) => t.missing.at(-1) as number));
    const saved = checkResume(await host.loadResume(device.device.id));
    // A resume point serves only while every hour still missing lies below it and HA's zeros are unchanged (no meter reset since).
    const fits = saved && newest + 3600 <= saved.point.at && targets.every((t) => saved.zeros[t.statisticId] !== undefined && sameZero(saved.zeros[t.statisticId], t.zero));
    let resume: HistoryResume = fits ? saved : {
      through: totals.through, gaps: [...totals.gaps], point: startPoint(totals), zeros: Object.fromEntries(targets.map((t) => [t.statisticId, t.zero])), fromS: oldest,
    };
    const layout = energyLayout(device.device);
    const planned = windowsBetween(resume.point.at, oldest);
    let done = 0;
    host.progress({ device: index + 1, devices: perDevice.length, done, planned });
    while (resume.point.at > oldest) {
      const window = windowBelow(resume.point.at, oldest);
      const records = await host.client.readPages('long', device.device.id, { ...window, granularity: '5m' }, { ...host.call, priority: 'bulk' }).collect();
      outcome.requests += 1;
      const walked = walkBack(resume.point, records, layout, window.fromTs, resume);
      for (const target of targets) {
        const rows = importRows(target.total, target.missing.filter((h) => h >= window.fromTs && h + 3600 <= resume.point.at), walked.boundaries, target.zero);
        if (rows.length === 0) continue;
        await ha.call({ type: 'recorder/import_statistics', metadata: importMetadata(ha.version, target.statisticId), stats: rows.map((r) => ({ start: iso(r.start), state: r.state, sum: r.sum })) });
        outcome.imported[target.statisticId] = (outcome.imported[target.statisticId] ?? 0) + rows.length;
      }
      resume = { ...resume, point: walked.point };
      await host.saveResume(device.device.id, resume);
      host.progress({ device: index + 1, devices: perDevice.length, done: ++done, planned });
    }
    await host.saveResume(device.device.id, undefined);
  }
  return outcome;
}
