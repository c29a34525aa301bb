'use strict';
// energy-mqtt checked on a real Home Assistant Core (scripts/ha.js installs it outside the project): one HA for
// the suite (its start is heavy), with a fresh configuration in a temporary folder; a real Mosquitto; a real
// Node-RED process (so that it can be stopped and killed) with the simulator. All three run on one clock the suite
// chooses (HA through libfaketime, Node-RED and the simulator through scripts/shifted-clock.js). Everything is
// read through HA's own REST and websocket APIs: the registries, the states, energy/validate, switch services.
const assert = require('node:assert/strict');
const { startMosquitto, MOSQUITTO } = require('../support/mosquitto');
const { startHomeAssistant, findFaketime } = require('../support/ha-server');
const { connectHomeAssistant } = require('../support/home-assistant');
const { startBareNodeRed, admin } = require('../e2e/bare-node-red');
const { ensureHomeAssistant, findHomeAssistant, HA_VERSION } = require('../../scripts/ha');
const { SIM_DEVICES } = require('../../dist/simulator');

const PREFIX = 'homeassistant';
const BASE = 'energy';
const BRIDGE_TOPIC = `${BASE}/bridge/availability`;
const KEEPALIVE_S = 15;
const SOLAR_HOME = SIM_DEVICES.switch6M3SW;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// The instant the suite runs at (ENERGY_HA_TEST_AT, ISO 8601): by default minutes after a UTC midnight, where the
// history import's first hour is a midnight too and the first day's sum has no imported hour before it, in the
// week the site's time zone (Sydney) starts daylight saving.
const AT = process.env.ENERGY_HA_TEST_AT || '2026-10-06T00:08:30Z';
const firstOwnOf = (short, id) => Math.min(...(short[id] ?? []).map((r) => r.start / 1000));

async function until(condition, what, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The flow: the key, Node-RED's core mqtt-broker with the Last Will the node's help asks for, and (unless `withMqtt`
 * is false) energy-mqtt; with `history`, its history import into `history.url` and, to drive and watch it from the
 * test, POST /import (a msg "import history"; 200 once done, 500 with the error) and GET /status (its last status).
 */
function flow(nr, brokerPort, { withMqtt = true, history } = {}) {
  const drive = history ? [
    { id: 'in', type: 'http in', z: 'tab', url: '/import', method: 'post', x: 100, y: 200, wires: [['cmd']] },
    { id: 'cmd', type: 'change', z: 'tab', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'import history', tot: 'str' }], x: 250, y: 200, wires: [['ha']] },
    { id: 'complete', type: 'complete', z: 'tab', scope: ['ha'], uncaught: false, x: 100, y: 260, wires: [['ok']] },
    { id: 'ok', type: 'change', z: 'tab', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'done', tot: 'str' }], x: 250, y: 260, wires: [['res']] },
    { id: 'catch', type: 'catch', z: 'tab', scope: ['ha'], uncaught: false, x: 100, y: 320, wires: [['failed']] },
    { id: 'failed', type: 'change', z: 'tab', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'error.message', tot: 'msg' }, { t: 'set', p: 'statusCode', pt: 'msg', to: '500', tot: 'num' }], x: 250, y: 320, wires: [['res']] },
    { id: 'res', type: 'http response', z: 'tab', x: 400, y: 260, wires: [] },
    { id: 'status', type: 'status', z: 'tab', scope: ['ha'], x: 100, y: 380, wires: [['keep']] },
    { id: 'keep', type: 'change', z: 'tab', rules: [{ t: 'set', p: 'lastStatus', pt: 'flow', to: 'status', tot: 'msg' }], x: 250, y: 380, wires: [[]] },
    { id: 'sin', type: 'http in', z: 'tab', url: '/status', method: 'get', x: 100, y: 440, wires: [['sget']] },
    { id: 'sget', type: 'change', z: 'tab', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'lastStatus', tot: 'flow' }], x: 250, y: 440, wires: [['sres']] },
    { id: 'sres', type: 'http response', z: 'tab', x: 400, y: 440, wires: [] },
  ] : [];
  return [
    { id: 'tab', type: 'tab', label: 'Home Assistant' },
    { id: 'api', type: 'energy-api', name: 'sim', baseUrl: nr.simulator.baseUrl, tps: 20, tpd: 100000, timezone: '', configVersion: 1, credentials: { apiKey: nr.simulator.keys.full } },
    {
      id: 'broker', type: 'mqtt-broker', name: 'mosquitto', broker: '127.0.0.1', port: brokerPort, clientid: '', autoConnect: true, usetls: false,
      protocolVersion: 4, keepalive: KEEPALIVE_S, cleansession: true, autoUnsubscribe: true,
      willTopic: BRIDGE_TOPIC, willQos: '1', willRetain: 'true', willPayload: 'offline', willMsg: {}, birthTopic: '', closeTopic: '',
    },
    ...(withMqtt ? [{
      id: 'ha', type: 'energy-mqtt', z: 'tab', name: '', api: 'api', broker: 'broker', devices: '', discovery: true, discoveryPrefix: PREFIX,
      baseTopic: BASE, interval: 60, energyInterval: 300, configVersion: 1, x: 200, y: 100, wires: [],
      ...(history ? { history: history.days, haUrl: history.url, credentials: { haToken: history.token } } : {}),
    }] : []),
    ...drive,
  ];
}

describe(`energy-mqtt on a real Home Assistant`, function () {
  this.timeout(120000);
  let broker;
  let ha;
  let nr;
  let client;
  let clockOffsetS;
  let skipped = false;

  before(async function () {
    this.timeout(30 * 60 * 1000);
    if (MOSQUITTO && findFaketime() && !findHomeAssistant()) console.log(`      installing Home Assistant ${HA_VERSION} (once, about 2.5 minutes; node scripts/ha.js install)`);
    const installed = !MOSQUITTO ? { error: 'mosquitto is not installed (apt-get install -y mosquitto)' }
      : !findFaketime() ? { error: 'libfaketime is not installed (apt-get install -y faketime): HA runs on the suite\'s clock' }
        : ensureHomeAssistant();
    if (installed.error) {
      // CI installs both (.ci/run): there a missing one fails instead of skipping.
      if (process.env.CI) throw new Error(installed.error);
      console.log(`      skipped: ${installed.error}`);
      skipped = true;
      this.skip();
    }
    const at = Date.parse(AT);
    if (!Number.isFinite(at)) throw new Error(`ENERGY_HA_TEST_AT is not an ISO 8601 instant: ${AT}`);
    clockOffsetS = Math.round((at - Date.now()) / 1000);
    broker = await startMosquitto();
    const started = Date.now();
    ha = await startHomeAssistant({ mqttPort: broker.port, clockOffsetS });
    console.log(`      Home Assistant ${ha.version} running and onboarded in ${((Date.now() - started) / 1000).toFixed(1)} s, on a clock started at ${AT}`);
    // HA's clock is the suite's: its own now() (a template it renders) within a few seconds of the chosen one.
    const rendered = await fetch(`${ha.url}/api/template`, { method: 'POST', headers: { authorization: `Bearer ${ha.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ template: '{{ now().isoformat() }}' }) });
    const haNow = Date.parse(await rendered.text());
    assert.ok(Math.abs(haNow - (Date.now() + clockOffsetS * 1000)) < 5000, `HA's clock reads ${new Date(haNow).toISOString()}, not the suite's ${new Date(Date.now() + clockOffsetS * 1000).toISOString()}`);
    client = await connectHomeAssistant(broker.url, { prefix: PREFIX, base: BASE });
  });

  after(async function () {
    if (skipped) return;
    await client?.end();
    await nr?.stop();
    await ha?.stop();
    await broker?.close();
  });

  async function deploy(withMqtt = true, history = undefined) {
    await admin(nr.editorUrl, 'POST', 'flows', { flows: flow(nr, broker.port, { withMqtt, history }) });
  }

  /** Discovery payloads as last published (an empty one removes the device). */
  const discovered = () => {
    const byTopic = new Map();
    for (const m of client.messages) if (m.topic.startsWith(`${PREFIX}/device/`)) byTopic.set(m.topic, m.payload);
    return [...byTopic.values()].filter((p) => p !== '').map((p) => JSON.parse(p));
  };
  const entityRegistry = () => ha.ws.call({ type: 'config/entity_registry/list' });
  const deviceRegistry = () => ha.ws.call({ type: 'config/device_registry/list' });
  const mqttDevices = async () => (await deviceRegistry()).filter((d) => d.identifiers.some(([domain, id]) => domain === 'mqtt' && id.startsWith('energy_api_')));
  /** entity_id of the entity with that unique id (MQTT's), once HA has it. */
  const entityIdOf = async (uniqueId) => (await entityRegistry()).find((e) => e.platform === 'mqtt' && e.unique_id === uniqueId)?.entity_id;

  it('starts Node-RED with energy-mqtt: every entity exists with the device class, state class and unit discovery promised, under its device', async function () {
    nr = await startBareNodeRed({ clockOffsetMs: clockOffsetS * 1000 });
    await deploy();
    const deviceIds = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.uninitialised && id !== SIM_DEVICES.forbidden);
    await until(() => deviceIds.every((id) => client.latest(`${PREFIX}/device/${id}/config`)), 'every device\'s discovery payload', 60000);
    const payloads = discovered();
    const components = payloads.flatMap((p) => Object.values(p.cmps).map((c) => ({ ...c, dev: p.dev })));
    await until(async () => {
      const registry = await entityRegistry();
      return components.every((c) => registry.some((e) => e.platform === 'mqtt' && e.unique_id === c.unique_id));
    }, 'HA to register every entity');

    const registry = await entityRegistry();
    const devices = await mqttDevices();
    for (const c of components) {
      const entry = registry.find((e) => e.platform === 'mqtt' && e.unique_id === c.unique_id);
      const device = devices.find((d) => d.id === entry.device_id);
      assert.ok(device, `${c.unique_id} is grouped under a device`);
      assert.deepEqual(device.identifiers, [['mqtt', c.dev.identifiers[0]]], `${c.unique_id} is under its own device`);
      if (c.enabled_by_default === false) {
        assert.equal(entry.disabled_by, 'integration', `${c.unique_id} starts disabled, as discovery asked`);
        continue;
      }
      if (c.p !== 'sensor' || !c.device_class) continue;
      const state = await until(() => ha.state(entry.entity_id), `${entry.entity_id}'s state`);
      assert.equal(state.attributes.device_class, c.device_class, entry.entity_id);
      assert.equal(state.attributes.state_class, c.state_class, entry.entity_id);
      assert.equal(state.attributes.unit_of_measurement, c.unit_of_measurement, entry.entity_id);
    }
    const home = devices.find((d) => d.identifiers[0][1] === `energy_api_${SOLAR_HOME}`);
    assert.equal(home.name, 'Solar home');
    assert.ok(home.manufacturer, 'the device names its manufacturer');
    assert.ok(home.configuration_url, 'and where it is configured');
    // One bridge device holds what belongs to the key (its daily budget), not every device.
    const bridges = payloads.filter((p) => Object.values(p.cmps).some((c) => /api_budget$/.test(c.unique_id)));
    assert.equal(bridges.length, 1, 'the key\'s budget is one entity');
    // Names as HA shows them: no "power power", and each energy once for the Energy dashboard.
    const names = registry.filter((e) => e.platform === 'mqtt' && e.original_name).map((e) => e.original_name);
    assert.ok(names.every((n) => !/\b(\w+) \1\b/i.test(n)), `no doubled word in ${names.filter((n) => /\b(\w+) \1\b/i.test(n)).join(', ')}`);
  });

  it('a switch turned on and off through HA switches the simulator\'s device; HA follows only once the device confirms, pending shown meanwhile', async function () {
    const sim = nr.simulator;
    const p = discovered().find((x) => x.dev.identifiers[0] === `energy_api_${SOLAR_HOME}`);
    const entityId = await entityIdOf(p.cmps.s1.unique_id);
    // The device reports only when the test says (reportNow), so the pending window is the test's.
    const now = sim.control.now();
    sim.control.setOutage(SOLAR_HOME, { from: now, to: now + 3600 });
    await until(async () => (await ha.state(entityId))?.state === 'off', 'the switch off in HA');

    for (const [service, target, haState] of [['turn_on', 'closed', 'on'], ['turn_off', 'open', 'off']]) {
      const before = sim.control.log().filter((r) => r.method === 'PATCH').length;
      await ha.rest('POST', `/api/services/switch/${service}`, { entity_id: entityId });
      await until(() => sim.control.log().filter((r) => r.method === 'PATCH').length > before, `the PATCH for ${service}`);
      const pending = await until(async () => {
        const s = await ha.state(entityId);
        return s?.attributes.pending === target ? s : undefined;
      }, `HA to show ${target} pending`);
      assert.notEqual(pending.state, haState, 'HA does not show the new state before the device confirms');
      sim.control.reportNow(SOLAR_HOME);
      // State and attributes are two MQTT messages: HA shows the state first, then nothing pending.
      const done = await until(async () => {
        const s = await ha.state(entityId);
        return s?.state === haState && s.attributes.pending === null ? s : undefined;
      }, `HA to show ${haState} once confirmed, nothing pending`);
      assert.equal(done.attributes.pending, null, 'nothing pending once confirmed');
    }
  });

  it('the node\'s sensors saved as the Energy dashboard\'s grid, solar and devices pass energy/validate with no issue', async function () {
    this.timeout(400000);
    const p = discovered().find((x) => x.dev.identifiers[0] === `energy_api_${SOLAR_HOME}`);
    const ids = {};
    for (const [key, c] of Object.entries(p.cmps)) ids[key] = await entityIdOf(c.unique_id);
    const consumers = Object.entries(p.cmps).filter(([key, c]) => /^c\d+_imported$/.test(key) && c.enabled_by_default !== false && !['c1_imported', 'c2_imported'].includes(key));
    assert.ok(consumers.length >= 3, 'the hot water, pool pump, EV charger and house channels');
    // Numeric states first: validate reports a sensor without one.
    await until(async () => (await Promise.all([ids.grid_imported, ids.grid_exported, ids.solar_produced].map((id) => ha.state(id)))).every((s) => s && Number.isFinite(Number(s.state))), 'the totals\' first states', 60000);
    await ha.ws.call({
      type: 'energy/save_prefs',
      energy_sources: [
        {
          type: 'grid', cost_adjustment_day: 0,
          flow_from: [{ stat_energy_from: ids.grid_imported, stat_cost: null, entity_energy_price: null, number_energy_price: null }],
          flow_to: [{ stat_energy_to: ids.grid_exported, stat_compensation: null, entity_energy_price: null, number_energy_price: null }],
        },
        { type: 'solar', stat_energy_from: ids.solar_produced, config_entry_solar_forecast: null },
      ],
      device_consumption: consumers.map(([key]) => ({ stat_consumption: ids[key] })),
    });
    const issuesOf = (result) => [...result.energy_sources.flat(), ...result.device_consumption.flat()];
    // Until HA compiles its first statistics (every 5 minutes of its clock) each sensor is "statistics_not_defined",
    // as a user sees on the day a sensor is added: that one issue is waited out; any other fails at once.
    const waited = Date.now();
    const result = await until(async () => {
      const r = await ha.ws.call({ type: 'energy/validate' });
      const other = issuesOf(r).filter((i) => i.type !== 'statistics_not_defined');
      if (other.length > 0) assert.fail(`energy/validate: ${JSON.stringify(r)}`);
      return issuesOf(r).length === 0 ? r : undefined;
    }, 'HA\'s first statistics compile (every 5 minutes)', 330000);
    console.log(`      energy/validate clean after ${((Date.now() - waited) / 1000).toFixed(0)} s (HA's first statistics compile)`);
    assert.deepEqual(issuesOf(result), []);
  });

  /** POST /import of the history flow: { status, text } once the node's "import history" is done or failed. */
  async function importNow() {
    // The flow's http endpoint is there once the deploy has started the new flow.
    return until(async () => {
      const res = await fetch(new URL('import', nr.editorUrl), { method: 'POST' });
      return res.status === 404 ? undefined : { status: res.status, text: await res.text() };
    }, 'POST /import of the deployed flow');
  }
  const nodeStatus = async () => (await (await fetch(new URL('status', nr.editorUrl))).json());
  const HISTORY_DAYS = 8;
  const statsOf = async (ids, start, period = 'hour') => ha.ws.call({
    type: 'recorder/statistics_during_period', start_time: new Date(start * 1000).toISOString(), statistic_ids: ids, period, types: ['state', 'sum'], units: { energy: 'kWh' },
  });
  /** The solar home's energy sensors HA records (discovered, enabled): { total, entityId }. */
  async function solarHomeEnergy() {
    const p = discovered().find((x) => x.dev.identifiers[0] === `energy_api_${SOLAR_HOME}`);
    const out = [];
    for (const [total, c] of Object.entries(p.cmps)) {
      if (c.device_class !== 'energy' || c.enabled_by_default === false) continue;
      out.push({ total, entityId: await entityIdOf(c.unique_id) });
    }
    return out;
  }

  it('imports the devices\' past energy into HA\'s long-term statistics: every hour, daily sums equal to the service\'s within 1 Wh, no jump where HA\'s own begin; a second import changes nothing', async function () {
    this.timeout(300000);
    const sensors = await solarHomeEnergy();
    const ids = sensors.map((s) => s.entityId);
    const started = Date.now();
    await deploy(true, { days: HISTORY_DAYS, url: ha.url, token: ha.token });
    const done = await importNow();
    assert.equal(done.status, 200, done.text);
    console.log(`      import of ${HISTORY_DAYS} days of ${Object.keys(SIM_DEVICES).length - 2} devices: ${((Date.now() - started) / 1000).toFixed(1)} s; status "${(await nodeStatus()).text}"`);
    assert.match((await nodeStatus()).text, /history: \d+ h imported/);

    // HA's recorder writes an import after it answered: wait for the rows to settle.
    const sim = nr.simulator;
    const nowS = Math.floor(sim.control.now());
    const fromS = Math.floor((nowS - HISTORY_DAYS * 86400) / 3600) * 3600;
    let imported;
    let last = '';
    await until(async () => {
      imported = await statsOf(ids, fromS - 3600);
      const shown = JSON.stringify(imported);
      const stable = shown === last && ids.every((id) => (imported[id] ?? []).length > 24 * (HISTORY_DAYS - 1));
      last = shown;
      if (!stable) await sleep(500);
      return stable;
    }, 'the imported hours in HA', 60000);
    const short = await statsOf(ids, nowS - 86400, '5minute');

    // The service's own figures for the same period, read here with a client of the test's.
    const { EnergyApiClient } = require('../../dist/api');
    const { energyLayout, recordEnergy } = require('../../dist/domain/site/energy-totals.js');
    const client = new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.full, tps: 20, now: () => sim.control.now() * 1000 });
    const device = await client.getDevice(SOLAR_HOME);
    const layout = energyLayout(device);
    const records = await client.getLongEnergy(SOLAR_HOME, { fromTs: fromS - 300, toTs: nowS + 300, granularity: '5m' });
    /** The service's energy of a total between two times (Wh; negative when `to` is before `from`). */
    const serviceWh = (total, from, to) => (to < from ? -1 : 1) * records.filter((r) => r.timestamp > Math.min(from, to) && r.timestamp <= Math.max(from, to))
      .reduce((a, r) => a + (recordEnergy(r, layout)[total] ?? 0), 0) / 3600;

    let days = 0;
    for (const { total, entityId } of sensors) {
      const rows = imported[entityId].map((r) => ({ start: r.start / 1000, sum: r.sum, state: r.state }));
      const firstOwnShort = (short[entityId] ?? []).map((r) => r.start / 1000).sort((a, b) => a - b)[0];
      assert.ok(firstOwnShort, `${entityId} has HA's own 5-minute statistics`);
      const meeting = Math.floor(firstOwnShort / 3600) * 3600;
      const byStart = new Map(rows.map((r) => [r.start, r]));
      // Every hour from the range's start to where HA's own statistics begin is there, once.
      for (let h = fromS; h < meeting; h += 3600) assert.ok(byStart.has(h), `${entityId}: hour ${new Date(h * 1000).toISOString()} imported`);
      // Daily sums (UTC days, HA's time zone here) equal the service's within 1 Wh.
      // From the first midnight after the range's start: a day's sum is read from the hour before it, imported too.
      for (let day = (Math.floor(fromS / 86400) + 1) * 86400; day + 86400 <= meeting; day += 86400) {
        const ha = (byStart.get(day + 86400 - 3600).sum - byStart.get(day - 3600).sum) * 1000;
        const wh = serviceWh(total, day, day + 86400);
        assert.ok(Math.abs(ha - wh) <= 1, `${entityId} on ${new Date(day * 1000).toISOString().slice(0, 10)}: HA ${ha.toFixed(2)} Wh, service ${wh.toFixed(2)} Wh`);
        days += 1;
      }
      // Where HA's own statistics begin: its first 5-minute row's sum less the last imported hour's is the energy of that
      // stretch as the live total had counted it then (its read lags the records by up to ~10 minutes), not a jump.
      const ownShort = short[entityId].find((r) => r.start / 1000 === firstOwnShort);
      const joined = (ownShort.sum - byStart.get(meeting - 3600).sum) * 1000;
      const upTo = serviceWh(total, meeting, firstOwnShort + 300);
      const lagged = serviceWh(total, meeting, firstOwnShort + 300 - 1200);
      assert.ok(joined <= upTo + 0.5 && joined >= lagged - 0.5, `${entityId} where HA's own begin: ${joined.toFixed(2)} Wh, the service ${lagged.toFixed(2)} to ${upTo.toFixed(2)} Wh`);
    }
    assert.ok(days >= 5 * sensors.length, `${days} sensor-days compared`);

    // Importing again writes nothing: HA's rows are the same.
    const again = await importNow();
    assert.equal(again.status, 200, again.text);
    await sleep(1500);
    const after = await statsOf(ids, fromS - 3600);
    for (const id of ids) {
      const strip = (rows) => rows.filter((r) => r.start / 1000 < Math.floor(firstOwnOf(short, id) / 3600) * 3600);
      assert.deepEqual(strip(after[id]), strip(imported[id]), `${id} unchanged by a second import`);
    }
  });

  it('a wrong access token: the import fails with a clear error and a red status, nothing written, the token nowhere in them', async function () {
    const wrong = `${ha.token.slice(0, -8)}WRONGtok`;
    await deploy(true, { days: HISTORY_DAYS, url: ha.url, token: wrong });
    const res = await importNow();
    assert.equal(res.status, 500);
    assert.match(res.text, /Home Assistant refused the access token …NGtok/);
    assert.ok(!res.text.includes(wrong.slice(0, 20)), 'the token is not in the error');
    const status = await until(async () => { const s = await nodeStatus(); return s?.fill === 'red' ? s : undefined; }, 'a red status');
    assert.match(status.text, /history import failed: HA: auth invalid|Home Assistant refused the access token/);
    assert.ok(!JSON.stringify(status).includes(wrong.slice(0, 20)));
    assert.ok(!nr.logs.join('\n').includes(wrong.slice(0, 20)), 'nor in Node-RED\'s log');
    // The MQTT side goes on: the devices are back online in HA (the node is connected again after the deploy).
    const ids = (await solarHomeEnergy()).map((x) => x.entityId);
    await until(async () => (await Promise.all(ids.map((id) => ha.state(id)))).every((x) => x && x.state !== 'unavailable'), 'the entities available again');
  });

  it('a node removed from the flow removes its devices from HA', async function () {
    const before = (await mqttDevices()).length;
    assert.ok(before > 1);
    await deploy(false);
    await until(async () => (await mqttDevices()).length === 0, 'HA to remove every device of the node');
    // Nothing of the node stays retained on the broker: a fresh subscriber gets none of it.
    const fresh = await connectHomeAssistant(broker.url, { prefix: PREFIX, base: BASE });
    try {
      await sleep(500);
      assert.deepEqual(fresh.messages.filter((m) => m.payload !== '').map((m) => m.topic), []);
    } finally {
      await fresh.end();
    }
  });

  async function expectAll(entityIds, states, what, ms) {
    await until(async () => (await Promise.all(entityIds.map((id) => ha.state(id)))).every((s) => states.includes(s?.state)), what, ms);
  }

  it('Node-RED stopped, or killed with kill -9: every entity becomes unavailable in HA (within the broker\'s keep-alive for a kill)', async function () {
    await deploy(true);
    const p = () => discovered().find((x) => x.dev.identifiers[0] === `energy_api_${SOLAR_HOME}`);
    await until(() => p(), 'discovery again');
    const ids = await until(async () => {
      const all = await Promise.all(Object.values(p().cmps).filter((c) => c.enabled_by_default !== false).map((c) => entityIdOf(c.unique_id)));
      return all.every(Boolean) ? all : undefined;
    }, 'the entities again');
    await until(async () => (await Promise.all(ids.map((id) => ha.state(id)))).every((s) => s && s.state !== 'unavailable'), 'every entity available');

    await nr.stop();
    nr = undefined;
    await expectAll(ids, ['unavailable'], 'every entity unavailable after Node-RED stopped', 10000);

    nr = await startBareNodeRed({ clockOffsetMs: clockOffsetS * 1000 });
    await deploy(true);
    await until(async () => (await Promise.all(ids.map((id) => ha.state(id)))).every((s) => s && s.state !== 'unavailable'), 'every entity available again', 60000);
    const killedAt = Date.now();
    nr.child.kill('SIGKILL');
    await expectAll(ids, ['unavailable'], 'every entity unavailable after kill -9', KEEPALIVE_S * 1500);
    console.log(`      unavailable in HA ${((Date.now() - killedAt) / 1000).toFixed(1)} s after kill -9 (keep-alive ${KEEPALIVE_S} s)`);
    await nr.stop();
    nr = undefined;
  });
});
