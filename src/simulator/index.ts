/** Public entry of the energy API v3 simulator. */
import type { AddressInfo } from 'node:net';
import { SIM_DEVICES, SIM_KEYS } from './fleet.js';
import { BASE_PATH, createSimServer } from './server.js';
import { AMBER_BASE_PATH } from './prices/amberApi.js';
import { FORECAST_SOLAR_BASE_PATH, OPEN_METEO_BASE_PATH, SOLCAST_BASE_PATH } from './forecast/providers.js';
import { SimulatorState, type StateOptions } from './state.js';
import type { SimulatorControl } from './types.js';

export { SIM_DEVICES, SIM_KEYS } from './fleet.js';
export { startGoeCharger, startOpenEvse, startShellyRelay, visitAt, visitOf, homeDay, carLimitW, GoeCharger, OpenEvseCharger, ShellyRelay, type RunningDouble, type Visit } from './devices/index.js';
export { SIM_AMBER_KEY, amberSiteId } from './prices/sites.js';
export { AMBER_BASE_PATH } from './prices/amberApi.js';
export {
  forecastFor, actualSolar, declaredKwp, siteLocation, simulatedForecast, simulatedSolar, simulatedDeclaredKwp,
  type ForecastOptions, type ForecastPeriod,
} from './forecast/index.js';
export { FORECAST_SOLAR_BASE_PATH, OPEN_METEO_BASE_PATH, SOLCAST_BASE_PATH, SIM_SOLCAST_KEY } from './forecast/providers.js';
export type {
  ClockSettings, FaultSettings, HeaderStyle, LimitSettings, LoggedRequest, LongWindow, OutageWindow, SimulatorControl,
} from './types.js';

/** Where the simulator listens, and everything its state takes (see StateOptions). */
export interface SimulatorOptions extends StateOptions {
  /** 0 = a random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface Simulator {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + '/v3': the API base address. */
  baseUrl: string;
  /** url + '/amber/v1': the Amber-compatible price API's base address (key: SIM_AMBER_KEY). */
  amberUrl: string;
  /** Forecast providers' base addresses on the simulator (docs/forecast.md): Forecast.Solar, Solcast (key SIM_SOLCAST_KEY), Open-Meteo. */
  forecastSolarUrl: string;
  solcastUrl: string;
  openMeteoUrl: string;
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
    forecastSolarUrl: `${url}${FORECAST_SOLAR_BASE_PATH}`,
    solcastUrl: `${url}${SOLCAST_BASE_PATH}`,
    openMeteoUrl: `${url}${OPEN_METEO_BASE_PATH}`,
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
