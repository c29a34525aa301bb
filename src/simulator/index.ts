/** Public entry of the energy API v3 simulator. */
import type { AddressInfo } from 'node:net';
import { SIM_DEVICES, SIM_KEYS } from './fleet.js';
import { BASE_PATH, createSimServer } from './server.js';
import { AMBER_BASE_PATH } from './prices/amberApi.js';
import { SimulatorState } from './state.js';
import type { HeaderStyle, LongWindow, SimulatorControl } from './types.js';

export { SIM_DEVICES, SIM_KEYS } from './fleet.js';
export { SIM_AMBER_KEY, amberSiteId } from './prices/sites.js';
export { AMBER_BASE_PATH } from './prices/amberApi.js';
export type {
  ClockSettings, FaultSettings, HeaderStyle, LimitSettings, LoggedRequest, LongWindow, OutageWindow, SimulatorControl,
} from './types.js';

export interface SimulatorOptions {
  /** 0 = a random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Unix seconds; if given, the clock starts frozen at this time. */
  now?: number;
  /** Added to every API response; default 0. */
  latencyMs?: number;
  /** Each response's latency varies uniformly (seeded) by up to this many ms either side of latencyMs; default 0. */
  latencyJitterMs?: number;
  /**
   * One-way network delay: each API request is seen, logged and counted by the rate limit 0..this many ms
   * (uniform, seeded) after it reached the simulator; default 0.
   */
  arrivalJitterMs?: number;
  /** Seeded extra sites (homes, solar homes, small businesses) that the whole-fleet keys see; default 0. */
  extraDevices?: number;
  /**
   * Count each request from the X-Sim-Arrived-At header (ms since the epoch) that a front process on the
   * same machine stamped on arrival, so the simulator's busy event loop cannot delay the count (benches);
   * default false.
   */
  arrivalStampHeader?: boolean;
  /**
   * Requests per second of every key. Default: sized by the devices the key may use, as the live service does
   * (5 for a key of the fixed fleet; about one per three devices with `extraDevices`).
   */
  tps?: number;
  /** Requests per day of every key. Default: sized by the key's devices (10000 for a key of the fixed fleet). */
  tpd?: number;
  /** Rate-limit header form: 'live' (default, the service's), 'spec' or 'both'. */
  headerStyle?: HeaderStyle;
  /**
   * Which long-energy entries a range selects: 'timestamp' (default, the live service: records stamped
   * fromTs <= t < toTs, coarser entries labelled with their first record) or 'coverage' (the spec's text).
   */
  longWindow?: LongWindow;
  /** Seed of every site's weather and habits (the data is the same for the same seed and switch history); default 1. */
  seed?: number;
  /** Share of short energy entries lost as UDP delivery loses them, 0..1; default 0.03. */
  shortLoss?: number;
  /** JSON file that keeps PATCHed values, switch states and switch history across restarts; without it, start fresh. */
  stateFile?: string;
}

export interface Simulator {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + '/v3': the API base address. */
  baseUrl: string;
  /** url + '/amber/v1': the Amber-compatible price API's base address (key: SIM_AMBER_KEY). */
  amberUrl: string;
  port: number;
  keys: typeof SIM_KEYS;
  control: SimulatorControl;
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const state = new SimulatorState(opts);
  const server = createSimServer(state);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseUrl: `${url}${BASE_PATH}`,
    amberUrl: `${url}${AMBER_BASE_PATH}`,
    port,
    keys: SIM_KEYS,
    control: state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        state.persist();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
