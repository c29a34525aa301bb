/**
 * GET /modbus/{id}[/first|/latest] (spec 2.12, 4.10, 4.11). The attached meter reads the
 * device's total energy every 5 minutes; its counters start at zero when it is installed,
 * so after the meter change the new model counts from the change time.
 */
import type { ModbusEntry } from '../api/types.js';
import { hasModbus } from './rules.js';
import { round } from './energyModel.js';
import { dayData, RECORDS_PER_DAY, type DayData } from './site/day.js';
import { ApiError, badRequest } from './errors.js';
import { checkRange, single, timestampParam, type QueryParams } from './query.js';
import { dataEnd } from './reporting.js';
import { noContent, ok, type Reply } from './reply.js';
import type { SimDevice } from './types.js';

const STEP = 300;
/** 0.01 kWh (and 0.01 kvarh) in Joules. */
const HUNDREDTH_KWH = 36000;
const WEEK = 7 * 86400;

const pf = (p: number, q: number): number => (p === 0 && q === 0 ? 0 : round(p / Math.sqrt(p * p + q * q), 3));

/** What the meter on the board counts: the Grid channel's import and export. */
interface Totals {
  imp: number;
  exp: number;
  qImp: number;
  qExp: number;
}

const GRID = 0;
const dayTotals = new WeakMap<SimDevice, Map<number, Totals>>();

function addRecord(into: Totals, d: DayData, r: number): void {
  const e = d.real[GRID][r];
  const q = d.reactive[GRID][r];
  if (e >= 0) into.imp += e;
  else into.exp -= e;
  if (q >= 0) into.qImp += q;
  else into.qExp -= q;
}

function totalsOfDay(dev: SimDevice, day: number): Totals {
  let byDay = dayTotals.get(dev);
  if (!byDay) {
    byDay = new Map();
    dayTotals.set(dev, byDay);
  }
  let t = byDay.get(day);
  if (!t) {
    t = { imp: 0, exp: 0, qImp: 0, qExp: 0 };
    const d = dayData(dev, day);
    for (let r = 0; r < RECORDS_PER_DAY; r++) addRecord(t, d, r);
    byDay.set(day, t);
  }
  return t;
}

/** Grid totals over the records in [from, to) (multiples of 300). */
function totalsBetween(dev: SimDevice, from: number, to: number): Totals {
  const out: Totals = { imp: 0, exp: 0, qImp: 0, qExp: 0 };
  let record = from / STEP;
  const last = to / STEP;
  while (record < last) {
    const day = Math.floor(record / RECORDS_PER_DAY);
    const dayFirst = day * RECORDS_PER_DAY;
    if (record === dayFirst && last >= dayFirst + RECORDS_PER_DAY) {
      const t = totalsOfDay(dev, day);
      out.imp += t.imp;
      out.exp += t.exp;
      out.qImp += t.qImp;
      out.qExp += t.qExp;
      record += RECORDS_PER_DAY;
      continue;
    }
    const d = dayData(dev, day);
    const stop = Math.min(last, dayFirst + RECORDS_PER_DAY);
    for (; record < stop; record++) addRecord(out, d, record - dayFirst);
  }
  return out;
}

function counterFields(dev: SimDevice, ts: number, installedAt: number, quadrants: boolean): Record<string, number> {
  const { imp, exp, qImp, qExp } = totalsBetween(dev, installedAt, ts);
  const u = (joules: number): number => Math.floor(joules / HUNDREDTH_KWH);
  const kvarhImp = u(qImp);
  const kvarhExp = u(qExp);
  const fields: Record<string, number> = {
    kVAh: u(Math.sqrt((imp + exp) ** 2 + (qImp + qExp) ** 2)),
    kWh_Exp: u(exp),
    kWh_Imp: u(imp),
    kWh_Net: u(imp) - u(exp),
    kWh_Tot: u(imp) + u(exp),
  };
  if (quadrants) {
    const q1 = u(qImp * 0.75);
    const q3 = u(qExp * 0.5);
    Object.assign(fields, { kvarh_Q1: q1, kvarh_Q2: kvarhImp - q1, kvarh_Q3: q3, kvarh_Q4: kvarhExp - q3 });
  }
  return Object.assign(fields, { kvarh_Exp: kvarhExp, kvarh_Imp: kvarhImp, kvarh_Net: kvarhImp - kvarhExp, kvarh_Tot: kvarhImp + kvarhExp });
}

/** Grid power (W, var) over the record ending at ts. */
function gridPowerAt(dev: SimDevice, ts: number): { real: number; reactive: number } {
  const record = ts / STEP - 1;
  const d = dayData(dev, Math.floor(record / RECORDS_PER_DAY));
  const r = record - d.day * RECORDS_PER_DAY;
  return { real: d.real[GRID][r] / STEP, reactive: d.reactive[GRID][r] / STEP };
}

/** Mains voltage at the meter. */
function voltsAt(dev: SimDevice, t: number): number {
  return 230 + 2.5 * Math.sin((2 * Math.PI * (t % 86400)) / 86400 + dev.id.charCodeAt(12)) + 0.7 * Math.sin((2 * Math.PI * (t % 1370)) / 1370);
}

const PHASE_SHARES = [0.36, 0.33, 0.31];

function entryAt(dev: SimDevice, ts: number): ModbusEntry {
  const meter = dev.modbus;
  if (!meter) throw new Error(`${dev.id} has no modbus meter`);
  const volts = voltsAt(dev, ts);
  const p = gridPowerAt(dev, ts);
  if (ts < meter.changeAt) {
    return {
      _I: round(Math.abs(p.real) / volts, 3), _V: round(volts, 1), _PF: pf(p.real, p.reactive),
      ...counterFields(dev, ts, dev.dataStart, false), model: meter.before, timestamp: ts,
    };
  }
  const entry: Record<string, number> = {};
  ['a', 'b', 'c'].forEach((name, k) => { entry[`_I${name}`] = round((Math.abs(p.real) * PHASE_SHARES[k]) / volts, 3); });
  ['a', 'b', 'c'].forEach((name) => { entry[`_PF${name}`] = pf(p.real, p.reactive); });
  ['a', 'b', 'c'].forEach((name, k) => { entry[`_U${name}n`] = round(volts + (k - 1) * 0.6, 1); });
  return { ...entry, ...counterFields(dev, ts, meter.changeAt, true), model: meter.after, timestamp: ts };
}

function requireModbus(dev: SimDevice): void {
  if (!hasModbus(dev.model)) {
    throw new ApiError(422, 'UNPROCESSABLE ENTITY', `Modbus query unsupported for device id ${dev.id}`);
  }
}

const firstTimestamp = (dev: SimDevice): number => Math.ceil(dev.dataStart / STEP) * STEP;
const hasData = (dev: SimDevice, end: number): boolean => dev.modbus !== undefined && !dev.uninitialised && end >= firstTimestamp(dev);

export function modbusList(dev: SimDevice, now: number, params: QueryParams, spanLimits = true): Reply {
  requireModbus(dev);
  const fromTs = timestampParam(params, 'fromTs') ?? firstTimestamp(dev);
  const toTs = timestampParam(params, 'toTs') ?? fromTs + WEEK;
  checkRange(fromTs, toTs);
  if (spanLimits && toTs - fromTs > WEEK) throw new ApiError(422, 'UNPROCESSABLE_ENTITY', 'The requested time period is greater than 7 days');
  const end = dataEnd(dev, now);
  if (!hasData(dev, end)) return noContent();
  const out: ModbusEntry[] = [];
  for (let ts = Math.ceil(Math.max(fromTs, firstTimestamp(dev)) / STEP) * STEP; ts < toTs && ts <= end; ts += STEP) {
    out.push(entryAt(dev, ts));
  }
  return ok(out);
}

export function modbusEdge(dev: SimDevice, now: number, params: QueryParams, edge: 'first' | 'latest'): Reply {
  requireModbus(dev);
  const fields = single(params, 'fields[energy]');
  if (fields !== undefined && fields !== 'timestamp') throw badRequest('The fields[energy] value must be timestamp');
  const end = dataEnd(dev, now);
  if (!hasData(dev, end)) return noContent();
  const ts = edge === 'first' ? firstTimestamp(dev) : Math.floor(end / STEP) * STEP;
  return ok(fields === 'timestamp' ? { timestamp: ts } : entryAt(dev, ts));
}
