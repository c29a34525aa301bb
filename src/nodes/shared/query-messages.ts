import type { NodeMessage } from 'node-red';
import type { EnergyEntry } from '../../api/index.js';
import type { ChartSeries } from '../../domain/entries/outputs.js';
import { chartFrame, yAxisTitle } from '../../domain/entries/chart-settings.js';

/** The input msg without its payload: what every msg of a split or pages output carries along. */
export type BaseMessage = NodeMessage & Record<string, unknown>;
/** RED.util.cloneMessage. */
type Clone = <T extends NodeMessage>(msg: T) => T;

export interface PageAt {
  /** The sequence's id, shared by every page of one read. */
  id: string;
  index: number;
  count: number;
}

/** One page of a read; msg.parts lets a join node in automatic mode rebuild the array. */
export function pageMessage(clone: Clone, base: BaseMessage, deviceId: string, page: EnergyEntry[], at: PageAt): NodeMessage {
  const out = clone(base);
  out.payload = page;
  out.topic = deviceId;
  // len > 1 makes the join concatenate the pages, as it does a split node's array chunks; an outer sequence stays nested.
  out.parts = { id: at.id, type: 'array', index: at.index, count: at.count, len: Math.max(2, page.length), ...(base.parts ? { parts: base.parts } : {}) };
  return out;
}

/**
 * One msg per entry. Node-RED deep-clones every msg of a send() but the first, so only the first is
 * cloned here: a deep clone of the input per entry doubled the work of a year's 105,120 msgs.
 */
export function splitMessages(clone: Clone, base: BaseMessage, deviceId: string, entries: readonly EnergyEntry[]): NodeMessage[] {
  return entries.map((entry, i) => {
    const out = i === 0 ? clone(base) : { ...base };
    out.payload = entry;
    out.timestamp = entry.timestamp * 1000;
    out.topic = deviceId;
    return out;
  });
}

/**
 * A msg as the chart output sends it: the points, replace or append, and Dashboard 2 ui-chart's options
 * (`extra` adds to them, such as an x-axis name).
 */
export function chartMessage(msg: Record<string, unknown>, chart: ChartSeries, follow: boolean, extra: Record<string, unknown> = {}): void {
  msg.payload = chart.points;
  msg.action = follow ? 'append' : 'replace';
  // Dashboard 2 ui-chart: the unit above the y axis, one colour per category in the series' order, axis labels kept inside.
  msg.ui_update = { chartOptions: { color: chart.colours, yAxis: yAxisTitle(chart.unit), ...chartFrame(), ...extra } };
  msg.unit = chart.unit;
}
