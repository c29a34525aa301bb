/**
 * Device doubles a flow can drive, each on its own HTTP port (as a device on its own address) and wired to a
 * channel of a simulated site, so that what it draws shows in that channel's and the grid's short and long energy.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorControl } from '../types.js';
import { GoeCharger, type GoeOptions, type Reply } from './goe.js';
import { ShellyRelay, type ShellyOptions } from './shelly.js';
import { OpenEvseCharger, type OpenEvseOptions } from './openevse.js';

export { GoeCharger } from './goe.js';
export { ShellyRelay } from './shelly.js';
export { OpenEvseCharger } from './openevse.js';
export { visitAt, visitOf, homeDay, carLimitW, type Visit } from './car.js';

export interface RunningDouble<D> {
  /** http://127.0.0.1:PORT: the device's address. */
  url: string;
  device: D;
  close(): Promise<void>;
}

type Handler = { handle(method: string, url: URL, body: string): Reply; reset(): void; deviceId: string; channel: number; slotJoules(s: number): number };

async function serve<D extends Handler>(control: SimulatorControl, device: D): Promise<RunningDouble<D>> {
  control.attachExternal(device);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let reply: Reply;
      try {
        reply = device.handle(req.method ?? 'GET', new URL(req.url ?? '/', 'http://double'), Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        reply = { status: 500, body: { error: err instanceof Error ? err.message : String(err) } };
      }
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    device,
    close: () => new Promise<void>((resolve) => {
      control.detachExternal(device);
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** A go-eCharger (API v2) on `channel` of `deviceId`, with a car on a seeded timetable. */
export function startGoeCharger(control: SimulatorControl, options: Omit<GoeOptions, 'now'>): Promise<RunningDouble<GoeCharger>> {
  return serve(control, new GoeCharger({ ...options, now: () => Math.floor(control.now()) }));
}

/** An OpenEVSE charger (its WiFi module's HTTP API) on `channel` of `deviceId`, with a car on a seeded timetable. */
export function startOpenEvse(control: SimulatorControl, options: Omit<OpenEvseOptions, 'now'>): Promise<RunningDouble<OpenEvseCharger>> {
  return serve(control, new OpenEvseCharger({ ...options, now: () => Math.floor(control.now()) }));
}

/** A Shelly Gen2 relay switching a water heater on `channel` of `deviceId`. */
export function startShellyRelay(control: SimulatorControl, options: Omit<ShellyOptions, 'now'>): Promise<RunningDouble<ShellyRelay>> {
  return serve(control, new ShellyRelay({ ...options, now: () => Math.floor(control.now()) }));
}
