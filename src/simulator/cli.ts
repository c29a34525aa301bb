#!/usr/bin/env node
/** `npm run simulator`: the simulator on PORT (default 8787) with the real clock. */
import { SIM_DEVICES, SIM_KEYS, startSimulator } from './index.js';
import { createFleet } from './fleet.js';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 8787);
  const sim = await startSimulator({ port, host: '127.0.0.1' });
  const models = new Map(createFleet({ seed: 1, since: 0 }).map((d) => [d.id, d.model]));
  console.log(`Energy API simulator listening at ${sim.baseUrl}`);
  console.log(`Demo API key (full access): ${SIM_KEYS.full}`);
  console.log('Devices:');
  for (const [name, id] of Object.entries(SIM_DEVICES)) console.log(`  ${id}  ${models.get(id)?.padEnd(8)} ${name}`);
  console.log(`Control: ${sim.url}/__sim/{log,clock,faults,outage,report/<id>,reset,limits}`);
  const stop = (): void => {
    sim.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
