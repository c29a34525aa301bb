import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { clientScoped, isEnergyApiError, type EnergyApiClient } from '../../api/index.js';
import type { EnergyApiConfigNode } from '../shared/config-types.js';

/**
 * Device lists change rarely; the editor may open many dialogs in a row. The wall clock on purpose:
 * this only saves requests while someone edits a flow, decides nothing a flow sees, and must expire
 * even when the nodes run on a frozen test clock (energyApi.now).
 */
const DEVICE_LIST_TTL_MS = 60_000;
const DEVICE_LIST = Symbol('editor device list');
type CachedList = { current?: { at: number; list: Promise<unknown[]> } };

/**
 * Routes the editors use to fill their pickers, answered by the DEPLOYED config node (the key is a
 * password credential and never reaches the editor). 503 means "deploy the config node first".
 */
export function registerAdminRoutes(RED: NodeAPI): void {
  const read = RED.auth.needsPermission('energy-api.read');

  const withClient = (handler: (client: EnergyApiClient, req: Request, config: EnergyApiConfigNode) => Promise<unknown>) =>
    async (req: Request, res: Response) => {
      const config = RED.nodes.getNode(String(req.params.id)) as EnergyApiConfigNode | null;
      if (!config || config.type !== 'energy-api') return res.status(503).json({ error: 'not-deployed' });
      if (!config.client) return res.status(503).json({ error: 'not-usable', message: config.problem });
      try {
        res.json(await handler(config.client, req, config));
      } catch (err) {
        const status = isEnergyApiError(err) && err.status >= 400 ? err.status : 502;
        res.status(status).json({ error: isEnergyApiError(err) ? err.code : 'failed', message: err instanceof Error ? err.message : String(err) });
      }
    };

  RED.httpAdmin.get('/energy-api/:id/state', read, withClient(async (client, _req, config) => {
    const key = config.keyStatus();
    return {
      key: key?.key ?? client.key,
      accepted: key ? key.accepted : null,
      reason: key?.error?.message,
      rateLimit: client.rateLimitState(),
      budget: config.dailyBudget?.(),
      shared: client.shared?.status(),
    };
  }));

  RED.httpAdmin.get('/energy-api/:id/verify', read, withClient(async (client) => {
    try {
      const devices = await client.listDevices({ priority: 'interactive' });
      return { key: client.key, accepted: true, devices: devices.length, rateLimit: client.rateLimitState() };
    } catch (err) {
      if (isEnergyApiError(err) && (err.status === 401 || err.status === 403)) {
        return { key: client.key, accepted: false, reason: err.message, rateLimit: client.rateLimitState() };
      }
      throw err;
    }
  }));

  RED.httpAdmin.get('/energy-api/:id/devices', read, withClient((client) => deviceList(client)));

  RED.httpAdmin.get('/energy-api/:id/devices/:deviceId', read, withClient(async (client, req) => {
    const device = await client.getDevice(String(req.params.deviceId), { priority: 'interactive' });
    return {
      id: device.id,
      label: device.label,
      model: device.model,
      timezone: device.timezone,
      uninitialised: device.uninitialised === true,
      channels: device.channels.map((c) => ({ id: c.id, label: c.label, ctRating: c.ctRating, categoryId: c.categoryId })),
      switches: device.switches.map((s) => ({ id: s.id, label: s.label, state: s.state, openStateLabel: s.openStateLabel, closedStateLabel: s.closedStateLabel })),
    };
  }));

  RED.httpAdmin.get('/energy-api/:id/models', read, withClient((client) => client.getModels({ priority: 'interactive' })));
  RED.httpAdmin.get('/energy-api/:id/categories', read, withClient((client) => client.getChannelCategories({ priority: 'interactive' })));
}

function deviceList(client: EnergyApiClient): Promise<unknown[]> {
  const cache = clientScoped<CachedList>(client, DEVICE_LIST, () => ({}));
  const cached = cache.current;
  if (cached && Date.now() - cached.at < DEVICE_LIST_TTL_MS) return cached.list;
  const list = (async () => {
    const ids = await client.listDevices({ priority: 'interactive' });
    // A device read in the last 10 minutes (a fleet's status reads keep them fresh) costs no request: with
    // hundreds of devices, opening a dialog would otherwise spend one per device.
    return Promise.all(ids.map(async (id) => {
      try {
        const device = await client.knownDevice(id, { priority: 'interactive' });
        return { id, label: device.label, model: device.model, timezone: device.timezone };
      } catch {
        return { id, label: '', model: '' };
      }
    }));
  })();
  const entry = { at: Date.now(), list };
  list.catch(() => {
    if (cache.current === entry) cache.current = undefined;
  });
  cache.current = entry;
  return list;
}
