/** The same control operations as `Simulator.control`, over HTTP under /__sim (no auth). */
import type { Reply } from './reply.js';
import type { SimulatorState } from './state.js';
import type { ClockSettings, FaultSettings, HeaderStyle, LimitSettings, LongWindow } from './types.js';

type Json = Record<string, unknown>;

function jsonObject(raw: string): Json {
  if (raw.trim() === '') return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the body must be a JSON object');
  return parsed as Json;
}

function num(body: Json, name: string): number | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${name} must be a number`);
  return v;
}

function clockSettings(body: Json): ClockSettings {
  const real = body.real;
  if (real !== undefined && typeof real !== 'boolean') throw new Error('real must be a boolean');
  return { now: num(body, 'now'), advance: num(body, 'advance'), real };
}

function faultSettings(body: Json): FaultSettings {
  const names = ['errorRate', 'resetRate', 'malformedRate', 'latencyMs', 'latencyJitterMs', 'arrivalJitterMs', 'storm429', 'seed'] as const;
  const out: FaultSettings = {};
  for (const n of names) out[n] = num(body, n);
  return out;
}

function limitSettings(body: Json): LimitSettings {
  const style = body.headerStyle;
  if (style !== undefined && style !== 'live' && style !== 'spec' && style !== 'both') throw new Error('headerStyle must be live, spec or both');
  const window = body.longWindow;
  if (window !== undefined && window !== 'timestamp' && window !== 'coverage') throw new Error('longWindow must be timestamp or coverage');
  const spanLimits = typeof body.spanLimits === 'boolean' ? body.spanLimits : undefined;
  return { tps: num(body, 'tps'), tpd: num(body, 'tpd'), headerStyle: style as HeaderStyle | undefined, longWindow: window as LongWindow | undefined, spanLimits };
}

const done = { status: 200, body: { ok: true } };

export function handleControl(state: SimulatorState, method: string, path: string, rawBody: string): Reply {
  try {
    const route = `${method} ${path}`;
    if (route === 'GET /__sim/log') return { status: 200, body: state.log() };
    if (route === 'DELETE /__sim/log') { state.clearLog(); return done; }
    if (route === 'GET /__sim/clock') return { status: 200, body: { now: state.now() } };
    if (route === 'POST /__sim/clock') { state.setClock(clockSettings(jsonObject(rawBody))); return { status: 200, body: { now: state.now() } }; }
    if (route === 'POST /__sim/faults') { state.setFaults(faultSettings(jsonObject(rawBody))); return done; }
    if (route === 'POST /__sim/limits') { state.setLimits(limitSettings(jsonObject(rawBody))); return done; }
    if (route === 'POST /__sim/reset') { state.reset(); return done; }
    if (route === 'POST /__sim/amber-limits') {
      const body = jsonObject(rawBody);
      state.setAmberLimits({ limit: num(body, 'limit'), windowS: num(body, 'windowS') });
      return done;
    }
    if (route === 'GET /__sim/forecast-sites') return { status: 200, body: state.listForecastSites() };
    if (route === 'POST /__sim/forecast-limits') {
      const body = jsonObject(rawBody);
      state.setForecastLimits({
        forecastSolarPerHour: num(body, 'forecastSolarPerHour'), solcastPerDay: num(body, 'solcastPerDay'),
        openMeteoPerMinute: num(body, 'openMeteoPerMinute'), openMeteoPerDay: num(body, 'openMeteoPerDay'),
      });
      return done;
    }
    if (route === 'POST /__sim/forecast-faults') {
      const body = jsonObject(rawBody);
      state.setForecastFaults({ gapFrom: num(body, 'gapFrom'), gapTo: num(body, 'gapTo'), nullFrom: num(body, 'nullFrom'), nullTo: num(body, 'nullTo') });
      return done;
    }
    if (route === 'POST /__sim/outage') {
      const body = jsonObject(rawBody);
      if (typeof body.deviceId !== 'string') throw new Error('deviceId must be a string');
      const from = num(body, 'from');
      const to = num(body, 'to');
      if (from === undefined || to === undefined) throw new Error('from and to are required');
      state.setOutage(body.deviceId, { from, to });
      return done;
    }
    const report = /^\/__sim\/report\/([^/]+)$/.exec(path);
    if (method === 'POST' && report) { state.reportNow(decodeURIComponent(report[1])); return done; }
    return { status: 404, body: { error: `no control route ${route}` } };
  } catch (err) {
    return { status: 400, body: { error: err instanceof Error ? err.message : String(err) } };
  }
}
