#!/usr/bin/env node
/** `npm run simulator` / `npx energy-api-simulator`: the simulator on the real clock. */
import { parseArgs } from 'node:util';
import { createExtraSites } from './extraSites.js';
import { createFleet, keyGrants } from './fleet.js';
import { fleetLimits } from './rateLimit.js';
import { SIM_AMBER_KEY, SIM_DEVICES, SIM_KEYS, startGoeCharger, startOpenEvse, startShellyRelay, startSimulator, type SimulatorOptions } from './index.js';
import { createAmberSites } from './prices/sites.js';
import type { HeaderStyle, LongWindow, SimulatorControl } from './types.js';

const HELP = `Usage: energy-api-simulator [options]

Simulates the energy-monitoring API v3 (base address http://HOST:PORT/v3) with a fleet of
believable sites, on the real clock.

Options:
  --port <n>             port to listen on (default: env PORT or 8787; 0 = any free port)
  --host <address>       address to listen on (default 127.0.0.1)
  --state-file <path>    keep PATCHed values, switch states and switch history in this JSON file
                         across restarts (default: none, every start is fresh)
  --header-style <form>  rate-limit headers: live (default, X-RateLimit-Tps*/Tpd*, resets in
                         seconds remaining, a bare device after PATCH), spec (X-RateLimit-
                         Limit/Remaining/Reset, unix time, {status, result} after PATCH) or both
  --long-window <rule>   which long-energy entries a range selects: timestamp (default, as the
                         live service: the 5-minute records stamped fromTs <= t < toTs; a coarser
                         entry is labelled with the first record it adds up, so a day entry
                         stamped D 00:00 holds the records stamped D 00:00 to D 23:55, that is
                         D-1 23:55 to D 23:55) or coverage (the spec's text: the records whose
                         5 minutes lie inside the range; an entry is stamped at the end of its
                         period)
  --seed <n>             seed of the sites' weather and habits (default 1)
  --tps <n>              requests per second per key (default: sized by the key's devices, as
                         the live service does: 5 for the fixed fleet, about one per three
                         devices with --extra-devices)
  --tpd <n>              requests per day per key (default: sized by the key's devices: 10000
                         for the fixed fleet; with --extra-devices, reads of every device's short
                         energy every 30 s and long energy and status every 5 min, plus a quarter)
  --latency-ms <n>       added to every API response (default 0)
  --latency-jitter-ms <n>
                         each response's latency varies by up to this much either side of
                         --latency-ms (uniform, seeded by --seed; default 0)
  --arrival-jitter-ms <n>
                         one-way network delay: each request is counted by the rate limit
                         0..n ms after it arrived (uniform, seeded by --seed; default 0)
  --extra-devices <n>    add n seeded sites (homes, solar homes, small businesses) that the
                         demo key sees (default 0)
  --doubles              also start the device doubles the examples drive, each on a free port
                         (printed): a go-eCharger and an OpenEVSE charger on the Solar home's EV
                         charger channel, a Shelly Gen2 relay on a water heater on the Factory
                         main board's Workshop power channel
  --help                 print this help

Demo API key (full access): ${SIM_KEYS.full}
Other keys: read-only ${SIM_KEYS.readOnly}, no switching ${SIM_KEYS.writeNoSwitch}
Amber-compatible prices for the Australian devices: http://HOST:PORT/amber/v1 (/sites,
/sites/<siteId>/prices/current, /sites/<siteId>/prices), key ${SIM_AMBER_KEY}, 50 requests per 5 min
Control (no key): /__sim/{log,clock,faults,outage,report/<id>,reset,limits,amber-limits}
`;

function number(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${text}`);
  return n;
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): (SimulatorOptions & { doubles: boolean }) | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, 'state-file': { type: 'string' }, 'header-style': { type: 'string' },
      'long-window': { type: 'string' },
      seed: { type: 'string' }, tps: { type: 'string' }, tpd: { type: 'string' }, help: { type: 'boolean' },
      'latency-ms': { type: 'string' }, 'latency-jitter-ms': { type: 'string' }, 'arrival-jitter-ms': { type: 'string' },
      'extra-devices': { type: 'string' }, doubles: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const style = values['header-style'];
  if (style !== undefined && style !== 'live' && style !== 'spec' && style !== 'both') {
    throw new Error(`--header-style must be live, spec or both, got ${style}`);
  }
  const window = values['long-window'];
  if (window !== undefined && window !== 'timestamp' && window !== 'coverage') {
    throw new Error(`--long-window must be timestamp or coverage, got ${window}`);
  }
  return {
    port: number('port', values.port ?? env.PORT) ?? 8787,
    host: values.host ?? '127.0.0.1',
    stateFile: values['state-file'],
    headerStyle: style as HeaderStyle | undefined,
    longWindow: window as LongWindow | undefined,
    seed: number('seed', values.seed),
    tps: number('tps', values.tps),
    tpd: number('tpd', values.tpd),
    latencyMs: number('latency-ms', values['latency-ms']),
    latencyJitterMs: number('latency-jitter-ms', values['latency-jitter-ms']),
    arrivalJitterMs: number('arrival-jitter-ms', values['arrival-jitter-ms']),
    extraDevices: number('extra-devices', values['extra-devices']),
    doubles: values.doubles ?? false,
  };
}

/** The doubles the examples drive, on the channels a user would wire them to; their addresses printed. */
async function startExampleDoubles(control: SimulatorControl, seed: number): Promise<Array<{ close(): Promise<void> }>> {
  const zone = 'Australia/Sydney';
  const ev = { deviceId: SIM_DEVICES.switch6M3SW, channel: 4, seed, zone };
  const goe = await startGoeCharger(control, { ...ev, phases: 1, homeDays: { weekends: true } });
  const evse = await startOpenEvse(control, { ...ev, seed: seed + 1 });
  const shelly = await startShellyRelay(control, { deviceId: SIM_DEVICES.modbus6MOne, channel: 4, seed, watts: 3000 });
  console.log('Device doubles (built from each maker\'s public API documentation, on the simulator\'s clock):');
  console.log(`  go-eCharger (API v2)  ${goe.url}   on ${SIM_DEVICES.switch6M3SW} channel 5 (EV charger, its car home at night and all weekend); the go-e example's GOE`);
  console.log(`  OpenEVSE              ${evse.url}   on the same channel (a second car)`);
  console.log(`  Shelly Gen2 relay     ${shelly.url}   a 3 kW water heater on ${SIM_DEVICES.modbus6MOne} channel 5; the Shelly example's SHELLY`);
  return [goe, evse, shelly];
}

async function main(): Promise<void> {
  const options = parseCli(process.argv.slice(2), process.env);
  if (options === 'help') {
    process.stdout.write(HELP);
    return;
  }
  const sim = await startSimulator(options);
  const fleet = { seed: options.seed ?? 1, since: 0 };
  const models = new Map(createFleet(fleet).map((d) => [d.id, d.model]));
  console.log(`Energy API simulator listening at ${sim.baseUrl}`);
  console.log(`Demo API key (full access): ${SIM_KEYS.full}`);
  const extra = createExtraSites(options.extraDevices ?? 0, fleet);
  const sized = fleetLimits(keyGrants(extra.map((d) => d.id)).get(SIM_KEYS.full)?.devices.length ?? 0);
  console.log(`Its limits: ${options.tps ?? sized.tps} requests/s, ${options.tpd ?? sized.tpd} requests/day`);
  if (options.stateFile) console.log(`State file: ${options.stateFile}`);
  if (options.longWindow === 'coverage') console.log('Long energy: ranges select by coverage (the spec\'s reading)');
  console.log('Devices:');
  for (const [name, id] of Object.entries(SIM_DEVICES)) console.log(`  ${id}  ${models.get(id)?.padEnd(8)} ${name}`);
  for (const d of extra) console.log(`  ${d.id}  ${d.model.padEnd(8)} ${d.label}`);
  console.log(`Amber-compatible prices at ${sim.amberUrl} (key ${SIM_AMBER_KEY}); sites:`);
  for (const site of createAmberSites(createFleet(fleet), fleet.seed).values()) console.log(`  ${site.id}  for ${site.deviceId}`);
  console.log(`Control: ${sim.url}/__sim/{log,clock,faults,outage,report/<id>,reset,limits,amber-limits}`);
  const doubles = options.doubles ? await startExampleDoubles(sim.control, options.seed ?? 1) : [];
  const stop = (): void => {
    Promise.all(doubles.map((d) => d.close())).then(() => sim.close()).then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
