/** The node:http server: faults, logging, auth, rate limits, then the API or the /__sim control routes. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleApi } from './api.js';
import { handleControl } from './controlRoutes.js';
import { ApiError, MultiError, notFound } from './errors.js';
import { parseQuery } from './query.js';
import type { Reply } from './reply.js';
import type { SimulatorState } from './state.js';
import type { LoggedRequest } from './types.js';
import { AMBER_BASE_PATH, handleAmber } from './prices/amberApi.js';
import { SIM_AMBER_KEY } from './prices/sites.js';
import { FORECAST_SOLAR_BASE_PATH, OPEN_METEO_BASE_PATH, SOLCAST_BASE_PATH, forecastSolar, openMeteo, solcast, type ForecastContext, type ProviderReply } from './forecast/providers.js';

export const BASE_PATH = '/v3';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}, text = serialise(reply)): void {
  if (text === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  res.writeHead(reply.status, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(text);
}

function serialise(reply: Reply): string | undefined {
  return reply.status === 204 || reply.body === undefined ? undefined : JSON.stringify(reply.body);
}

function errorReply(err: unknown): Reply {
  if (err instanceof ApiError || err instanceof MultiError) return { status: err.status, body: err.body() };
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: { code: 'INTERNAL_SERVER_ERROR', httpCode: 500, message: `Internal server error: ${message}` } };
}

const ERROR_CODES: Record<number, string> = { 500: 'INTERNAL_SERVER_ERROR', 502: 'BAD_GATEWAY', 503: 'SERVICE_UNAVAILABLE' };

/** The bearer token, '' when the header has none, undefined when there is no header. */
function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return match ? match[1] : '';
}

function parseLoggedBody(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function createSimServer(state: SimulatorState): Server {
  return createServer((req, res) => {
    void serve(state, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, errorReply(err));
      else res.destroy();
    });
  });
}

const pause = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** Set by a front process that stamps arrivals (see StateOptions.arrivalStampHeader). */
const ARRIVED_AT_HEADER = 'x-sim-arrived-at';

function arrivalStamp(state: SimulatorState, req: IncomingMessage): number {
  const stamp = state.stampsFromFront ? Number(req.headers[ARRIVED_AT_HEADER]) : NaN;
  return Number.isFinite(stamp) && stamp > 0 ? stamp : Date.now();
}

async function serve(state: SimulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrivedAt = arrivalStamp(state, req);
  const rawBody = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://simulator.local');
  const method = req.method ?? 'GET';
  if (url.pathname === '/__sim' || url.pathname.startsWith('/__sim/')) {
    send(res, handleControl(state, method, url.pathname, rawBody));
    return;
  }
  // The network's one-way delay: the service sees (logs and counts) the request this much later. Counted
  // at the drawn moment, not when the timer runs, so the simulator's own busy event loop adds no jitter.
  const receivedAt = arrivedAt + Math.round(state.arrivalDelayMs());
  await pause(receivedAt - Date.now());

  const params = parseQuery(url.search);
  const query: Record<string, string> = {};
  for (const [name, values] of params) query[name] = values[values.length - 1];
  const key = bearerKey(req.headers.authorization);
  const entry: LoggedRequest = {
    at: receivedAt, simNow: state.clock.now(), method, path: url.pathname, query, status: 0, key5: (key ?? '').slice(-5),
  };
  if (rawBody !== '') entry.body = parseLoggedBody(rawBody);
  state.record(entry);

  const respond = async (reply: Reply, headers: Record<string, string> = {}): Promise<void> => {
    // Serialised on arrival, as part of the latency: a large body written later would stall the
    // simulator's event loop just when other requests arrive, and delay when they are counted.
    const text = serialise(reply);
    await pause(state.responseDelayMs());
    entry.status = reply.status;
    state.persist();
    send(res, reply, headers, text);
  };

  if (url.pathname.startsWith(`${AMBER_BASE_PATH}/`)) {
    // The price endpoint: its own key and its own limit (no faults of the energy API).
    if (key !== SIM_AMBER_KEY) return respond({ status: 401, body: { message: 'API key is missing or invalid' } });
    const limit = state.amberLimiter.take(key, state.clock.now());
    if (!limit.ok) return respond({ status: 429, body: { message: 'Too many requests' } }, limit.headers);
    return respond(handleAmber(state.amberSites, method, url.pathname.slice(AMBER_BASE_PATH.length), params, state.clock.now()), limit.headers);
  }
  const forecast = forecastRoute(state, req, method, url.pathname, params, key);
  if (forecast) return respond(forecast.reply, forecast.headers);
  if (!url.pathname.startsWith(`${BASE_PATH}/`)) return respond(errorReply(notFound()));

  const fault = state.faults.next();
  if (fault.kind === 'storm429') {
    await pause(state.responseDelayMs());
    entry.status = 429;
    res.writeHead(429);
    res.end();
    return;
  }
  if (fault.kind === 'reset') {
    req.socket.destroy();
    return;
  }
  if (fault.kind === 'error') {
    return respond({ status: fault.status, body: { code: ERROR_CODES[fault.status], httpCode: fault.status, message: 'Simulated server failure' } });
  }
  if (fault.kind === 'malformed') {
    await pause(state.responseDelayMs());
    entry.status = 200;
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end('<html><body>Gateway says hello</body></html>');
    return;
  }

  if (key === undefined || key === '') {
    return respond({ status: 401, body: { code: 'UNAUTHORIZED', httpCode: 401, message: 'Please provide a valid Authorization header value: Bearer <API key>' } });
  }
  const grant = state.grants.get(key);
  if (!grant) {
    return respond({ status: 403, body: { code: 'NOT_PERMITTED', httpCode: 403, message: `The provided token (ending ${key.slice(-5)}) does not permit access to this endpoint` } });
  }

  const simNow = state.clock.now();
  const limit = state.limiter.take(key, receivedAt, simNow);
  if (limit.exceeded) {
    return respond(
      { status: 429, body: { code: `TOO_MANY_REQUESTS_${limit.exceeded}`, httpCode: 429, message: limit.message ?? 'Too many requests' } },
      limit.headers,
    );
  }

  let reply: Reply;
  try {
    reply = handleApi(
      {
        devices: state.devices, now: simNow, spanLimits: state.spanLimits, longWindow: state.longWindow,
        bodyStyle: state.limiter.headerStyle === 'spec' ? 'spec' : 'live',
      },
      { method, path: url.pathname.slice(BASE_PATH.length), params, contentType: req.headers['content-type'], rawBody, grant },
    );
  } catch (err) {
    reply = errorReply(err);
  }
  return respond(reply, limit.headers);
}

/** The forecast providers' endpoints (their own keys and limits, no faults of the energy API), else undefined. */
function forecastRoute(state: SimulatorState, req: IncomingMessage, method: string, path: string, params: ReturnType<typeof parseQuery>, key: string | undefined): ProviderReply | undefined {
  const ctx = (): ForecastContext => ({
    sites: state.forecastSites, limits: state.forecastLimits, faults: state.forecastFaults, now: state.clock.now(), client: req.socket.remoteAddress ?? '',
  });
  const under = (base: string): string | undefined => (path.startsWith(`${base}/`) ? path.slice(base.length) : undefined);
  const fs = under(FORECAST_SOLAR_BASE_PATH);
  if (fs !== undefined) return forecastSolar(ctx(), method, fs, params);
  const sc = under(SOLCAST_BASE_PATH);
  if (sc !== undefined) return solcast(ctx(), method, sc, params, key);
  const om = under(OPEN_METEO_BASE_PATH);
  if (om !== undefined) return openMeteo(ctx(), method, om, params);
  return undefined;
}
