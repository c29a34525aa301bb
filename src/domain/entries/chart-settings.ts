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
