/**
 * GET /modbus/{id}[/first|/latest] (spec 2.12, 4.10, 4.11). The attached meter reads the
 * device's total energy every 5 minutes; its counters start at zero when it is installed,
 * so after the meter change the new model counts from the change time.
 */
import type { ModbusEntry } from '../api/types.js';
import { hasModbus } from './rules.js';
import { countersAt, perChannelPowerAt, round, totalPowerAt, vRmsAt, type Counters } from './energyModel.js';
import { ApiError, badRequest } from './errors.js';
import { checkRange, single, timestampParam, type QueryParams } from './query.js';
import { dataEnd } from './reporting.js';
import { noContent, ok, type Reply } from './reply.js';
import type { SimDevice } from './types.js';

const STEP = 300;
/** 0.01 kWh (and 0.01 kvarh) in Joules. */
const HUNDREDTH_KWH = 36000;
const WEEK = 7 * 86400;

const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const sinceInstall = (now: Counters, start: Counters, key: keyof Counters): number => total(now[key]) - total(start[key]);
const pf = (p: number, q: number): number => (p === 0 && q === 0 ? 0 : round(p / Math.sqrt(p * p + q * q), 3));

function counterFields(dev: SimDevice, ts: number, installedAt: number, quadrants: boolean): Record<string, number> {
  const start = countersAt(dev, installedAt);
  const now = countersAt(dev, ts);
  const imp = sinceInstall(now, start, 'realPos');
  const exp = sinceInstall(now, start, 'realNeg');
  const qImp = sinceInstall(now, start, 'reactivePos');
  const qExp = sinceInstall(now, start, 'reactiveNeg');
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

function entryAt(dev: SimDevice, ts: number): ModbusEntry {
  const meter = dev.modbus;
  if (!meter) throw new Error(`${dev.id} has no modbus meter`);
  const volts = vRmsAt(dev, ts)[0];
  if (ts < meter.changeAt) {
    const p = totalPowerAt(dev, ts);
    return {
      _I: round(Math.abs(p.real) / volts, 3), _V: round(volts, 1), _PF: pf(p.real, p.reactive),
      ...counterFields(dev, ts, dev.dataStart, false), model: meter.before, timestamp: ts,
    };
  }
  // Three phases: channels 1-2, 3-4 and 5-6.
  const perChannel = perChannelPowerAt(dev, ts);
  const phase = (k: number): number => (perChannel[2 * k] ?? 0) + (perChannel[2 * k + 1] ?? 0);
  const q = totalPowerAt(dev, ts).reactive / 3;
  const entry: Record<string, number> = {};
  ['a', 'b', 'c'].forEach((name, k) => { entry[`_I${name}`] = round(Math.abs(phase(k)) / volts, 3); });
  ['a', 'b', 'c'].forEach((name, k) => { entry[`_PF${name}`] = pf(phase(k), q); });
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
