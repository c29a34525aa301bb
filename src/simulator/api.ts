/** Routing and authorisation of the /v3 API (spec 4, 5). */
import { CATEGORIES, MODELS } from './catalog.js';
import { longEnergyEdge, longEnergyList, shortEnergyEdge, shortEnergyList } from './energyApi.js';
import { ApiError, badRequest, forbidden, notFound } from './errors.js';
import type { KeyGrant } from './fleet.js';
import { modbusEdge, modbusList } from './modbusApi.js';
import { patchDevice } from './patchDevice.js';
import type { QueryParams } from './query.js';
import { settle } from './reporting.js';
import { renderDevice } from './renderDevice.js';
import { ok, type Reply } from './reply.js';
import type { BodyStyle, LongWindow, SimDevice } from './types.js';

export interface ApiRequest {
  method: string;
  /** Path below the base address, e.g. /devices/B300000000001. */
  path: string;
  params: QueryParams;
  contentType: string | undefined;
  rawBody: string;
  grant: KeyGrant;
}

export interface ApiContext {
  devices: ReadonlyMap<string, SimDevice>;
  now: number;
  /** False only for tests that need one unlimited request as a reference. */
  spanLimits: boolean;
  /** Which long-energy entries a range selects. */
  longWindow: LongWindow;
  /** Device objects as the live service shapes them, or as the spec's text does. */
  bodyStyle: BodyStyle;
}

const DEVICE_ID = /^[BDEF][A-Za-z0-9]{12}$/;

function methodNotAllowed(allowed: string): ApiError {
  return new ApiError(405, 'METHOD_NOT_ALLOWED', `Only ${allowed} is supported on this path`);
}

/** Looks up a device the key may use; settles its pending changes first. */
function device(ctx: ApiContext, grant: KeyGrant, id: string): SimDevice {
  if (!DEVICE_ID.test(id.toUpperCase())) throw badRequest(`The device id ${id} is malformed`);
  const dev = ctx.devices.get(id);
  if (!dev) throw notFound(`Device id ${id} was not found`);
  if (!grant.devices.includes(id)) {
    throw new ApiError(403, 'FORBIDDEN', `The API key is not permitted to access device id ${id}`, 401);
  }
  settle(dev, ctx.now);
  return dev;
}

function parseJsonBody(req: ApiRequest): unknown {
  const type = (req.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw badRequest('The Content-Type must be application/json');
  try {
    return JSON.parse(req.rawBody);
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
}

type EnergyRoute = {
  list: (dev: SimDevice, now: number, params: QueryParams, ctx: ApiContext) => Reply;
  edge: (dev: SimDevice, now: number, params: QueryParams, edge: 'first' | 'latest') => Reply;
};

const ENERGY_ROUTES: Record<string, EnergyRoute> = {
  'short-energy': { list: (dev, now, params, ctx) => shortEnergyList(dev, now, params, ctx.spanLimits), edge: shortEnergyEdge },
  'long-energy': { list: (dev, now, params, ctx) => longEnergyList(dev, now, params, ctx.spanLimits, ctx.longWindow), edge: longEnergyEdge },
  modbus: { list: (dev, now, params, ctx) => modbusList(dev, now, params, ctx.spanLimits), edge: modbusEdge },
};

export function handleApi(ctx: ApiContext, req: ApiRequest): Reply {
  const segments = req.path.split('/').slice(1);
  const [collection, id, edge, ...rest] = segments;
  // Exact match only: wrong case and trailing slashes (an empty segment) are 404.
  if (segments.some((s) => s === '') || rest.length > 0) throw notFound();

  if (collection === 'devices') {
    if (edge !== undefined) throw notFound();
    if (id === undefined || id === 'channel-categories' || id === 'models') {
      if (req.method !== 'GET') throw methodNotAllowed('GET');
      if (id === undefined) return ok(req.grant.devices.filter((d) => ctx.devices.has(d)).sort());
      return ok(id === 'models' ? MODELS : CATEGORIES);
    }
    if (['channel-categories', 'models'].includes(id.toLowerCase())) throw notFound();
    if (req.method === 'GET') return ok(renderDevice(device(ctx, req.grant, id), ctx.now, ctx.bodyStyle));
    if (req.method !== 'PATCH') throw methodNotAllowed('GET, PATCH');
    const dev = device(ctx, req.grant, id);
    if (!req.grant.write) throw forbidden('The API key does not permit writing to this device');
    return patchDevice(dev, parseJsonBody(req), req.grant.switching, ctx.now, ctx.bodyStyle);
  }

  const route = ENERGY_ROUTES[collection];
  if (!route || id === undefined) throw notFound();
  if (edge !== undefined && edge !== 'first' && edge !== 'latest') throw notFound();
  if (req.method !== 'GET') throw methodNotAllowed('GET');
  const dev = device(ctx, req.grant, id);
  return edge === undefined ? route.list(dev, ctx.now, req.params, ctx) : route.edge(dev, ctx.now, req.params, edge);
}
