'use strict';
// A simulated week of the simulator's solar home (D630000000002: solar, hot water, pool pump, EV charger,
// house) under the "Three loads by priority on solar surplus" example, in a real Node-RED runtime on the
// simulator's clock: every 30 s of simulated time the clock steps and the example evaluates (as its
// 30 s interval would). Prints switchings per load per day, the share of solar used on site with and
// without the control, requests per day, and every PATCH that came within a hold time (must be 0).
// Options (env): DAYS (default 7), START (ISO date-time, default 2026-10-05T00:00+11:00, a Monday in spring).
const path = require('node:path');
const helper = require('node-red-node-test-helper');
const { startSimulator, SIM_KEYS, SIM_DEVICES } = require('../dist/simulator');
const { EnergyApiClient } = require('../dist/api');

helper.init(require.resolve('node-red'));

const DEV = SIM_DEVICES.switch6M3SW;
const STEP_S = 30;
const DAYS = Number(process.env.DAYS) || 7;
const START_S = Math.floor(Date.parse(process.env.START || '2026-10-05T00:00:00+11:00') / 1000);
const END_S = START_S + DAYS * 86400;
const CHANNEL = { grid: 0, solar: 1 };

const example = require(path.join(__dirname, '..', 'examples', 'Three loads by priority on solar surplus.json'));

/** Solar made and solar exported (J) over [from, to), from 5-minute long energy (export = the grid channel's negative part). */
async function solarUse(client, fromTs, toTs) {
  const entries = await client.getLongEnergy(DEV, { fromTs, toTs, granularity: '5m' });
  let solar = 0;
  let exported = 0;
  for (const e of entries) {
    solar += Math.max(0, e.eReal[CHANNEL.solar]);
    exported += Math.abs(Math.min(0, e.eRealNegative ? -Math.abs(e.eRealNegative[CHANNEL.grid]) : e.eReal[CHANNEL.grid]));
  }
  return { solar, exported, selfShare: solar > 0 ? 1 - exported / solar : 0 };
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

async function main() {
  const sim = await startSimulator({ port: 0, now: START_S });
  sim.control.setLimits({ tps: 1000, tpd: 10_000_000 });
  helper.settings({ energyApi: { now: () => sim.control.now() * 1000 } });
  await new Promise((resolve) => helper.startServer(resolve));
  const measure = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: SIM_KEYS.full, tps: 1000, tpd: 10_000_000, now: () => sim.control.now() * 1000 });
  try {
    const loads = example.filter((n) => n.type === 'energy-load-control');
    const tab = { id: loads[0].z, type: 'tab', label: 'three loads' };
    const flow = [tab, ...example.filter((n) => ['energy-api', 'energy-load-control'].includes(n.type)).map((n) => {
      if (n.type === 'energy-api') return { ...n, baseUrl: sim.baseUrl, tps: 1000, tpd: 10_000_000 };
      // Evaluations come from the stepped clock below instead of the 30 s timer: the same cadence, in accelerated time.
      return { ...n, interval: 0, wires: [['decisions'], ['evaluations']] };
    }), { id: 'decisions', type: 'helper', z: tab.id }, { id: 'evaluations', type: 'helper', z: tab.id }];
    const nodes = ['energy-api', 'energy-load-control'].map((n) => require(`../dist/nodes/${n}/${n}.js`));
    await new Promise((resolve, reject) => helper.load(nodes, flow, { [example.find((n) => n.type === 'energy-api').id]: { apiKey: SIM_KEYS.full } }, (err) => (err ? reject(err) : resolve())));

    const decisions = [];
    let evaluated = 0;
    let wake = () => {};
    helper.getNode('decisions').on('input', (msg) => decisions.push(msg));
    helper.getNode('evaluations').on('input', () => { evaluated += 1; wake(); });
    const first = helper.getNode(loads[0].id);
    const started = Date.now();
    for (let t = START_S + STEP_S; t <= END_S; t += STEP_S) {
      sim.control.setClock({ now: t });
      const target = evaluated + loads.length;
      first.receive({ payload: 'evaluate' });
      while (evaluated < target) await new Promise((resolve) => { wake = resolve; });
    }
    const runSeconds = (Date.now() - started) / 1000;
    await helper.unload();

    // From the simulator's request log (its clock and the PATCH bodies): requests per day, switchings per
    // load per day, and PATCHes that came within the hold time of the switch's previous change.
    const dayOf = (simNow) => Math.min(DAYS - 1, Math.floor((simNow - START_S - 1) / 86400));
    const log = sim.control.log();
    const requestsPerDay = Array(DAYS).fill(0);
    for (const r of log) requestsPerDay[dayOf(r.simNow)] += 1;
    const bySwitch = new Map(loads.map((n) => [n.switchId, n]));
    const perDay = new Map(loads.map((n) => [n.switchId, Array(DAYS).fill(0)]));
    const last = new Map();
    const early = [];
    for (const r of log.filter((x) => x.method === 'PATCH')) {
      for (const sw of r.body?.switches ?? []) {
        const node = bySwitch.get(sw.id);
        perDay.get(sw.id)[dayOf(r.simNow)] += 1;
        const before = last.get(sw.id);
        if (before) {
          const hold = before.state === 'closed' ? node.minOn : node.minOff;
          if (r.simNow - before.simNow < hold) early.push(`${node.name} ${sw.state} ${Math.round(r.simNow - before.simNow)} s after ${before.state} (hold ${hold} s)`);
        }
        last.set(sw.id, { state: sw.state, simNow: r.simNow });
      }
    }
    const confirmed = decisions.filter((m) => m.outcome === 'confirmed').length;
    const timedOut = decisions.filter((m) => m.outcome === 'timedOut').length;

    const controlled = await solarUse(measure, START_S, END_S);
    sim.control.reset();
    sim.control.setLimits({ tps: 1000, tpd: 10_000_000 });
    sim.control.setClock({ now: END_S });
    const uncontrolled = await solarUse(measure, START_S, END_S);

    console.log(`load control, ${DAYS} simulated days of ${DEV} from ${new Date(START_S * 1000).toISOString()} (${runSeconds.toFixed(0)} s real, ${evaluated} evaluations)`);
    console.log('switchings per load per day (PATCHes sent):');
    for (const [switchId, days] of perDay) console.log(`  ${bySwitch.get(switchId).name.padEnd(12)} ${days.join(' ')}  (max ${Math.max(...days)})`);
    console.log(`changes confirmed by the device: ${confirmed}, timed out: ${timedOut}`);
    console.log(`solar used on site: ${pct(controlled.selfShare)} with control, ${pct(uncontrolled.selfShare)} without (switches left open); solar ${(controlled.solar / 3.6e6).toFixed(1)} kWh`);
    console.log(`requests per day (all three loads): ${requestsPerDay.join(' ')}`);
    console.log(`PATCHes within a hold time: ${early.length}${early.length ? `\n  ${early.join('\n  ')}` : ''}`);
    const ok = early.length === 0;
    console.log(ok ? 'bench: no PATCH within a hold time' : 'bench: HOLD TIME VIOLATED');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await measure.close();
    await new Promise((resolve) => helper.stopServer(resolve));
    await sim.close();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
