'use strict';
// Builds the flows `npm start` deploys: one tab per file in examples/, all sharing the
// examples' one `energy-api` config node (and Dashboard 2 config nodes), pointed at the
// simulator or the real service.
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES_DIR = path.join(__dirname, '..', 'examples');
/** The id every example uses for its `energy-api` config node, so imports share it. */
const DEMO_CONFIG_ID = '4e3a9c2f10d0c0f1';
/** The credential the demo config node carries: resolved from the Node-RED process env. */
const KEY_REFERENCE = '${ENERGY_API_KEY}';
/** The Amber key of the examples' energy-price nodes, the same way (the simulator's demo key in `npm start`). */
const AMBER_KEY_REFERENCE = '${AMBER_API_KEY}';

/** The showcases open first in the demo; the one-per-node examples follow alphabetically. */
const FIRST = ['Energy dashboard', 'Three loads by priority on solar surplus', 'Daily energy report', 'Energy per day chart (Dashboard 2)'];
/**
 * Deployed with their tab disabled (imported, they run): they would drive the solar home's switches that the
 * Energy dashboard's load control (the "Three loads" example) drives (a command while one of its changes is
 * pending is refused), and the load-control examples' reads would take the demo over a quarter of the key's
 * daily budget. "Home Assistant via MQTT" needs an MQTT broker, and none runs in the demo.
 */
const DISABLED_IN_DEMO = [
  'Three loads by priority on solar surplus', 'Hot water on solar surplus',
  'Peak limit - shed loads above a site limit', 'Switch a load on a power threshold', 'Switch control',
  'Home Assistant via MQTT',
  // They drive a device on the user's network (a Shelly, a go-eCharger) or Home Assistant over MQTT.
  'Hot water on a Shelly relay, measured by a 6M without switches', 'EV charger following the solar surplus (go-e)',
  'Any Home Assistant switch through MQTT',
  'Hot water - solar first, cheapest slots otherwise, 3 h by 5 pm', 'Pool pump - 4 h a day in the cheapest slots',
  // They need a database server the demo does not start.
  'Write to InfluxDB', 'Write to PostgreSQL',
];
/**
 * Deployed disabled where the Node.js running the demo has no node:sqlite (22.13+; Node.js 20 runs `npm start`'s
 * Node-RED 4): the store would refuse every entry. `NODE_RED_MAJOR=5 npm start` on Node.js 22 or 24 runs them.
 */
const NEEDS_SQLITE = ['Keep history in SQLite'];

/** Whether `npm start` deploys the example's tab disabled (on this Node.js, unless `sqlite` says otherwise). */
function disabledInDemo(name, sqlite = hasSqlite()) {
  return DISABLED_IN_DEMO.includes(name) || (NEEDS_SQLITE.includes(name) && !sqlite);
}

function hasSqlite(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}
const rank = (name) => (FIRST.includes(name) ? FIRST.indexOf(name) : FIRST.length);

function readExamples(dir = EXAMPLES_DIR) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => rank(path.basename(a, '.json')) - rank(path.basename(b, '.json')) || a.localeCompare(b))
    .map((file) => ({ name: path.basename(file, '.json'), file: path.join(dir, file), nodes: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
}

const isFlowNode = (n) => Object.prototype.hasOwnProperty.call(n, 'x') && Object.prototype.hasOwnProperty.call(n, 'y');

/** The demo config node: the target's address, and the key by reference only. */
function demoConfigNode(base, baseUrl) {
  return { ...base, id: DEMO_CONFIG_ID, type: 'energy-api', baseUrl, credentials: { apiKey: KEY_REFERENCE } };
}

/** An example's energy-price node in the demo: the Amber address given (the simulator's) and the key by reference only. */
function demoPriceNode(node, amberUrl) {
  if (node.type !== 'energy-price' || node.source === 'messages') return node;
  return { ...node, ...(amberUrl ? { baseUrl: amberUrl } : {}), credentials: { apiKey: AMBER_KEY_REFERENCE } };
}

/** An example's energy-forecast node in the demo: the simulator's Forecast.Solar address, else the provider's own. */
function demoForecastNode(node, forecastSolarUrl) {
  if (node.type !== 'energy-forecast') return node;
  return { ...node, baseUrl: forecastSolarUrl || '' };
}

function buildDemoFlows({ baseUrl, amberUrl, forecastSolarUrl, name = 'Energy API', examples = readExamples(), sqlite = hasSqlite() }) {
  const tabs = [];
  const flowNodes = [];
  const configs = new Map();
  const seen = new Set();
  for (const example of examples) {
    const zs = new Set(example.nodes.filter(isFlowNode).map((n) => n.z));
    if (zs.size !== 1 || [...zs][0] === undefined) throw new Error(`${example.name}: every node with x/y must share one z`);
    const tabId = [...zs][0];
    if (tabs.some((t) => t.id === tabId)) throw new Error(`${example.name}: tab id ${tabId} is used by another example`);
    const intro = example.nodes.find((n) => n.type === 'comment');
    tabs.push({ id: tabId, type: 'tab', label: example.name, disabled: disabledInDemo(example.name, sqlite), info: intro ? intro.info || '' : '' });
    for (const node of example.nodes) {
      if (isFlowNode(node) || node.type === 'group') {
        if (seen.has(node.id)) throw new Error(`${example.name}: node id ${node.id} is used by another example`);
        seen.add(node.id);
        flowNodes.push(demoForecastNode(demoPriceNode(node, amberUrl), forecastSolarUrl));
      } else if (!configs.has(node.id)) {
        configs.set(node.id, node);
      }
    }
  }
  const baseConfig = configs.get(DEMO_CONFIG_ID) || { name, tps: 5, tpd: 10000, timezone: '' };
  configs.set(DEMO_CONFIG_ID, demoConfigNode({ ...baseConfig, name }, baseUrl));
  return [...tabs, ...configs.values(), ...flowNodes];
}

module.exports = { DISABLED_IN_DEMO, NEEDS_SQLITE, hasSqlite, disabledInDemo, DEMO_CONFIG_ID, KEY_REFERENCE, AMBER_KEY_REFERENCE, EXAMPLES_DIR, readExamples, buildDemoFlows, demoConfigNode };
