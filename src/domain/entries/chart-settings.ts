import { EnergyApiError, type EnergyConversion } from '../../api/index.js';
import { CHART_UNITS, DEFAULT_MAX_POINTS, defaultUnit, type ChartOptions, type ChartReduce, type ChartUnit } from './outputs.js';

/** The chart output's properties as the editor saves them; msg.chartUnit, msg.maxPoints and msg.reduce override. */
export interface ChartDef {
  chartUnit?: string;
  maxPoints?: string | number;
  reduce?: string;
}

const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

export function readChartOptions(def: ChartDef, msg: Record<string, unknown>, convert: EnergyConversion | undefined): ChartOptions {
  const unitIn = given(msg.chartUnit) ? { v: msg.chartUnit, s: 'msg.chartUnit' } : { v: def.chartUnit, s: "the node's chartUnit" };
  if (given(unitIn.v) && !(CHART_UNITS as readonly unknown[]).includes(unitIn.v)) {
    throw EnergyApiError.invalid(`${unitIn.s} must be one of ${CHART_UNITS.join(', ')}; got "${String(unitIn.v).slice(0, 20)}"`);
  }
  const maxIn = given(msg.maxPoints) ? { v: msg.maxPoints, s: 'msg.maxPoints' } : { v: def.maxPoints, s: "the node's maxPoints" };
  const maxPoints = given(maxIn.v) ? Number(maxIn.v) : DEFAULT_MAX_POINTS;
  if (!Number.isInteger(maxPoints) || maxPoints < 0 || (maxPoints > 0 && maxPoints < 2)) {
    throw EnergyApiError.invalid(`${maxIn.s} must be a whole number of points, 2 or more (0 = every point); got "${String(maxIn.v).slice(0, 20)}"`);
  }
  const reduceIn = given(msg.reduce) ? { v: msg.reduce, s: 'msg.reduce' } : { v: def.reduce, s: "the node's reduce" };
  if (given(reduceIn.v) && reduceIn.v !== 'average' && reduceIn.v !== 'peaks') {
    throw EnergyApiError.invalid(`${reduceIn.s} must be average or peaks; got "${String(reduceIn.v).slice(0, 20)}"`);
  }
  return {
    unit: given(unitIn.v) ? (unitIn.v as ChartUnit) : defaultUnit(convert),
    maxPoints,
    reduce: (given(reduceIn.v) ? reduceIn.v : 'average') as ChartReduce,
  };
}

/**
 * The y-axis title of a Dashboard 2 ui-chart: the unit, above the axis and ending at it. ui-chart's own
 * place (rotated, beside the axis in the middle) overlaps the tick labels.
 */
export function yAxisTitle(unit: ChartUnit): Record<string, unknown> {
  return { name: unit, nameLocation: 'end', nameGap: 12, nameTextStyle: { align: 'right' } };
}

/** Where a chart narrower than this shows its whole legend on several lines (a phone). */
const NARROW_CHART_PX = 420;

/**
 * The frame of a Dashboard 2 ui-chart (ECharts 6): axis labels and names kept inside the chart, so an x-axis
 * name sits below the tick labels instead of on them; the legend one line that pages on a wide chart, and on a
 * narrow one every series on a few lines with the plot moved down below them (a paged legend there shows 1/6).
 */
export function chartFrame(): Record<string, unknown> {
  return {
    grid: { containLabel: false, outerBoundsMode: 'same', outerBoundsContain: 'all', top: 70, bottom: 12 },
    legend: { type: 'scroll', top: 22 },
    // Each media option whole, and one for a wide chart: ECharts keeps a narrow option's parts after a resize otherwise.
    media: [
      { query: { maxWidth: NARROW_CHART_PX }, option: { legend: { type: 'plain', top: 22 }, grid: { top: 110 } } },
      { option: { legend: { type: 'scroll', top: 22 }, grid: { top: 70 } } },
    ],
  };
}

/** An x-axis name under the tick labels (a note on what the bars cover), on lines of its own. */
export function xAxisNote(text: string): Record<string, unknown> {
  // Below the tick labels (their margin 8 px and a 12 px line), growing downwards.
  return { name: text, nameLocation: 'middle', nameGap: 26, nameTextStyle: { lineHeight: 14, verticalAlign: 'top' } };
}
