'use strict';
// energy-mqtt against a real Mosquitto and the simulator, with an MQTT client subscribed as Home Assistant
// is (issue 18): discovery validated against HA's schema, retained, sent again on HA's birth; switch
// commands through the switch transaction; load control's override as a select; bad input; the requests
// the node makes over a simulated hour against what it states.
const assert = require('node:assert/strict');
const { helper, load } = require('../support/env');
const { SIM_DEVICES } = require('../../dist/simulator');
const { connectHomeAssistant, discoveryErrors } = require('../support/home-assistant');
const { DEV, NODES, sleep, until, useMqttSuite } = require('./energy-mqtt-fixtures');

const S1 = `${DEV}_S1`;
const INITIALISED = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.uninitialised && id !== SIM_DEVICES.forbidden);

describe('energy-mqtt: its stated cost per day', function () {
  const { estimateRequestsPerDay } = require('../support/request-costs');
  const mqtt = { id: 'm', type: 'energy-mqtt', api: 'api', devices: DEV, interval: 60, energyInterval: 300 };
  const lc = (props) => ({ id: 'l', type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S1, interval: 30, ...props });

  it('per device: short energy every interval, long energy every 5 minutes, the device every minute with switches (else every 5)', function () {
    assert.equal(estimateRequestsPerDay(mqtt, [mqtt]), 1440 + 288 + 1440, 'a device with switches, or not known yet');
    assert.equal(estimateRequestsPerDay(mqtt, [mqtt], { switchDevices: 0 }), 1440 + 288 + 288, 'a meter without switches');
    assert.equal(estimateRequestsPerDay({ ...mqtt, devices: `${DEV}, ${SIM_DEVICES.meter3M}` }, [mqtt], { switchDevices: 1 }), 3168 + 2016);
    assert.equal(estimateRequestsPerDay({ ...mqtt, devices: '' }, [mqtt], { deviceCount: 6 }), 6 * 3168, 'all devices, once listed');
    assert.equal(estimateRequestsPerDay({ ...mqtt, energyInterval: 60 }, [mqtt]), 3168, 'at most one long-energy read per 5-minute record');
    assert.equal(estimateRequestsPerDay({ ...mqtt, interval: 0 }, [mqtt]), 0, 'only on msgs, and none scheduled');
  });

  it('shares the device\'s reads with its load-control nodes: only what it adds is counted', function () {
    const flow = [mqtt, lc()];
    assert.equal(estimateRequestsPerDay(lc(), flow), 2880 + 288, 'load control counts the group\'s reads at its 30 s');
    assert.equal(estimateRequestsPerDay(mqtt, flow), 288 + (1440 - 288), 'energy-mqtt adds its long-energy reads and the device reads beyond load control\'s 5 minutes');
    const slower = [mqtt, lc({ interval: 120 })];
    assert.equal(estimateRequestsPerDay(mqtt, slower), 1440 - 720 + 288 + (1440 - 240), 'the group reads at the shorter interval: the differences, and long energy');
    assert.equal(estimateRequestsPerDay(mqtt, [mqtt, { ...lc(), d: true }]), 3168, 'a disabled load-control node shares nothing');
  });
});

describe('energy-mqtt: Home Assistant through MQTT discovery (real Mosquitto, simulator)', function () {
  this.timeout(30000);
  const f = useMqttSuite();

  const discovery = (deviceId = DEV) => f.ha.next((m) => m.topic === f.configTopic(deviceId), 10000, true).then((m) => JSON.parse(m.payload));

  it('publishes one valid, retained device-based discovery payload per device, with the Energy dashboard\'s sensors and stable unique ids', async function () {
    const ctx = await f.setup({ devices: '' });
    const payloads = {};
    for (const id of INITIALISED) payloads[id] = await discovery(id);
    for (const [id, payload] of Object.entries(payloads)) assert.deepEqual(discoveryErrors(payload), [], `${id}: HA would refuse its discovery payload`);
    assert.ok(ctx.warnings.some((w) => /energy-mqtt\.errors\.uninitialised/.test(w)), 'the device that never connected is left out, with a warning');
    assert.equal(f.ha.history(f.configTopic(SIM_DEVICES.uninitialised)).length, 0);

    // The solar home: grid import/export and solar production as the Energy dashboard takes them; names from the labels.
    const home = payloads[DEV];
    assert.deepEqual(Object.keys(home).sort(), ['availability', 'availability_mode', 'cmps', 'dev', 'o']);
    assert.equal(home.dev.name, 'Solar home', 'the device is named by its label');
    for (const key of ['grid_imported', 'grid_exported', 'solar_produced', 'c1_imported', 'c2_exported']) {
      const c = home.cmps[key];
      assert.deepEqual([c.p, c.device_class, c.state_class, c.unit_of_measurement], ['sensor', 'energy', 'total_increasing', 'kWh'], key);
    }
    assert.deepEqual([home.cmps.c1_power.device_class, home.cmps.c1_power.state_class, home.cmps.c1_power.unit_of_measurement], ['power', 'measurement', 'W']);
    assert.equal(home.cmps.c1_power.name, 'Grid power');
    assert.equal(home.cmps.s1.p, 'switch');
    assert.equal(home.cmps.s1.name, 'Hot water');
    assert.equal(home.cmps.c1_power.unique_id, `${DEV}_C1_power`);
    const all = Object.values(payloads).flatMap((p) => Object.values(p.cmps).map((c) => c.unique_id));
    assert.equal(new Set(all).size, all.length, 'every unique id is unique across the key\'s devices');
    const feeder = payloads[SIM_DEVICES.rogowski3RM].cmps;
    assert.equal(feeder.solar_produced, undefined, 'no solar sensor where no channel is Solar generation');
    assert.ok(feeder.grid_imported, 'grid import over its three Grid connect channels');

    // Retained: an MQTT client that connects afterwards (HA after a restart) gets every config and state.
    await f.send(ctx, 'refresh');
    await until(() => f.state('channel/1/power') !== undefined && f.state('site/grid_imported') !== undefined, 'the first power and totals');
    const late = await connectHomeAssistant(f.broker.url, { prefix: f.prefix, base: f.base });
    try {
      const seenLive = new Set(f.ha.messages.map((m) => m.topic).filter((t) => !t.endsWith('/__marker')));
      await until(() => [...seenLive].every((t) => late.latest(t)), 'the late client to get every topic');
      const seenLate = late.messages;
      assert.ok(seenLate.length > 0 && seenLate.every((m) => m.retain), 'everything a late subscriber gets is retained');
      assert.deepEqual(new Set(seenLate.map((m) => m.topic)), seenLive, 'every topic published is retained');
    } finally {
      await late.end();
    }

    // Another deploy and another Node-RED instance (another node id) describe the same entities the same way.
    await helper.unload();
    const published = f.ha.history(f.configTopic(DEV)).length;
    const { flow, credentials } = f.flow({ devices: '' });
    await load(NODES(), flow.map((n) => (n.id === f.id ? { ...n, id: 'second-instance' } : n)).filter((n) => n.id !== 'done'), credentials);
    await until(() => f.ha.history(f.configTopic(DEV)).length > published, 'the second instance\'s discovery');
    assert.deepEqual(JSON.parse(f.ha.latest(f.configTopic(DEV)).payload), home);
  });

  it('sends discovery and every state again when Home Assistant says it is online', async function () {
    await f.setup();
    await discovery();
    await until(() => f.state('availability') === 'online', 'availability');
    const before = f.ha.history(f.configTopic()).length;
    const states = f.ha.history(f.topic('switch/1/state')).length;
    await f.ha.birth();
    await until(() => f.ha.history(f.configTopic()).length > before, 'the discovery payload again');
    await until(() => f.ha.history(f.topic('switch/1/state')).length > states, 'the switch state again');
  });

  it('switches through the switch transaction: one PATCH, the state topic says ON only after the device confirms', async function () {
    const ctx = await f.setup();
    await discovery();
    await until(() => f.state('switch/1/state') === 'OFF', 'the switch state');
    await f.ha.publish(f.topic('switch/1/set'), 'ON');
    await until(() => f.patches().length === 1, 'the PATCH');
    assert.deepEqual(f.patches()[0].body, { switches: [{ id: S1, state: 'closed' }] });
    await f.received();
    assert.equal(f.state('switch/1/state'), 'OFF', 'not ON while the change is pending on the device');
    const reportedAt = f.ha.messages.length;
    f.sim.control.reportNow(DEV);
    const on = await f.ha.next((m) => m.topic === f.topic('switch/1/state') && m.payload === 'ON', 12000);
    assert.ok(f.ha.messages.indexOf(on) >= reportedAt, 'ON came after the device reported');
    await f.received();
    assert.equal(JSON.parse(f.state('switch/1/attributes')).error, null);
    assert.equal(f.patches().length, 1, 'the command reached the service once');
    assert.deepEqual(ctx.caught, []);
  });

  it('a switch changed elsewhere (an app, the device) shows in HA at the next power read, within a minute', async function () {
    const ctx = await f.setup({ interval: 60 });
    await discovery();
    await f.send(ctx, 'refresh');
    await until(() => f.state('switch/1/state') === 'OFF', 'the switch state');
    // Another client of the service closes the switch; the device takes it at its next report.
    const res = await fetch(`${f.sim.baseUrl}/devices/${DEV}`, {
      method: 'PATCH', headers: { Authorization: `Bearer ${f.sim.keys.full}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ switches: [{ id: S1, state: 'closed' }] }),
    });
    assert.ok(res.ok, await res.text());
    f.sim.control.reportNow(DEV);
    f.step(60);
    await f.send(ctx, 'refresh');
    assert.equal(f.state('switch/1/state'), 'ON', 'the change made elsewhere, one power read (60 s) later');
    assert.equal(f.patches().length, 1, 'the node itself sent nothing');
  });

  it('Node-RED\'s availability: online once the devices are read, offline when the last node on that bridge topic closes', async function () {
    const other = { id: 'm-other', type: 'energy-mqtt', name: '', api: 'api', broker: 'broker', devices: SIM_DEVICES.meter3M, discovery: true, discoveryPrefix: f.prefix, baseTopic: f.base, interval: 0, energyInterval: 300, configVersion: 1 };
    const ctx = await f.setup({}, [other]);
    await discovery();
    await discovery(SIM_DEVICES.meter3M);
    const bridge = `${f.base}/bridge/availability`;
    await until(() => f.ha.latest(bridge)?.payload === 'online', 'the bridge online');
    assert.ok(!ctx.warnings.some((w) => /noWill/.test(w)), 'the broker\'s Last Will covers the bridge: no warning');
    // One of the two nodes redeployed or stopped: the other still stands for the bridge.
    await helper.getNode('m-other').close(false);
    await f.received();
    assert.equal(f.ha.latest(bridge).payload, 'online', 'not offline while another node shares the bridge');
    await ctx.node.close(false);
    await until(() => f.ha.latest(bridge)?.payload === 'offline', 'offline when the last one closes');
  });

  it('a node removed from the flow clears everything it published; a broker without the Last Will is warned of', async function () {
    const { flow, credentials } = f.flow();
    const broker = flow.find((n) => n.type === 'mqtt-broker');
    delete broker.willTopic;
    await load(NODES(), flow, credentials);
    const ctx = f.watch();
    await discovery();
    await f.send(ctx, 'refresh');
    assert.ok(ctx.warnings.some((w) => /energy-mqtt\.errors\.noWill/.test(w)), 'a warning names the missing Last Will');
    const published = new Set(f.ha.messages.filter((m) => !m.topic.endsWith('/__marker')).map((m) => m.topic));
    await ctx.node.close(true);
    const late = await connectHomeAssistant(f.broker.url, { prefix: f.prefix, base: f.base });
    try {
      await sleep(300);
      assert.deepEqual(late.messages.filter((m) => published.has(m.topic)).map((m) => m.topic), [], 'nothing of the node stays retained');
    } finally {
      await late.end();
    }
  });

  it('a command the device does not confirm in time publishes the real state back with the error', async function () {
    const ctx = await f.setup();
    await discovery();
    await until(() => f.state('switch/1/state') === 'OFF', 'the switch state');
    // The device stops reporting, so the change stays pending; the node's clock passes the 180 s timeout.
    const now = f.sim.control.now();
    f.sim.control.setOutage(DEV, { from: now, to: now + 3600 });
    const sent = f.ha.history(f.topic('switch/1/state')).length;
    await f.ha.publish(f.topic('switch/1/set'), 'ON');
    await until(() => f.patches().length === 1, 'the PATCH');
    // The clock steps once the node waits for the confirmation (its first poll after the PATCH): a step before the
    // wait starts would move the wait's own start, and its deadline, along with it.
    const patchAt = f.requests().findIndex((r) => r.method === 'PATCH');
    await until(() => f.requests().slice(patchAt + 1).some((r) => r.method === 'GET' && r.path.endsWith(`/devices/${DEV}`)), 'the first poll after the PATCH');
    f.step(200);
    await until(() => ctx.caught.length === 1, 'the timeout at the Catch node', 15000);
    assert.equal(ctx.caught[0].apiError.code, 'NOT_CONFIRMED');
    assert.match(ctx.caught[0].error.message, /not confirmed by the device within 180 s/);
    await f.received();
    assert.ok(f.ha.history(f.topic('switch/1/state')).length > sent, 'the state sent back');
    assert.equal(f.state('switch/1/state'), 'OFF', 'the real state: still off');
    const attributes = JSON.parse(f.state('switch/1/attributes'));
    assert.deepEqual([attributes.pending, attributes.requested], ['closed', 'closed']);
    assert.match(attributes.error, /not confirmed/);
    assert.equal(f.patches().length, 1);
  });

  it('a refused command or a bad payload publishes the real state back with the error, and reaches a Catch node', async function () {
    const ctx = await f.setup({}, [], { key: f.sim.keys.writeNoSwitch });
    await discovery();
    await until(() => f.state('switch/1/state') === 'OFF', 'the switch state');
    const sent = f.ha.history(f.topic('switch/1/state')).length;
    await f.ha.publish(f.topic('switch/1/set'), 'ON');
    await until(() => ctx.caught.length === 1, 'the refusal at the Catch node');
    assert.match(ctx.caught[0].error.message, /switching is not permitted/);
    assert.equal(ctx.caught[0].apiError.status, 403);
    assert.equal(ctx.caught[0].switchId, S1);
    await until(() => f.ha.history(f.topic('switch/1/state')).length > sent, 'the real state sent back');
    await f.received();
    assert.equal(f.state('switch/1/state'), 'OFF');
    assert.match(JSON.parse(f.state('switch/1/attributes')).error, /not permitted/);
    assert.equal(ctx.statuses.at(-1).fill, 'red');

    assert.equal(f.patches().length, 1, 'the refused PATCH, once');
    await f.ha.publish(f.topic('switch/1/set'), 'MAYBE');
    await until(() => ctx.caught.length === 2, 'the bad payload at the Catch node');
    assert.match(ctx.caught[1].error.message, /"MAYBE" is not a switch command/);
    assert.equal(f.patches().length, 1, 'nothing sent for it');
  });

  it('shows a load-control node of the device as an override select and a reason sensor, and sets its override from HA', async function () {
    const lc = {
      id: 'lc', type: 'energy-load-control', api: 'api', deviceId: DEV, switchId: S1, mode: 'threshold', onAbove: 1e6, offBelow: 1e6 - 1,
      interval: 0, window: 120, minOn: 0, minOff: 0, staleAfter: 3600, wires: [[], ['lc-evaluations']],
    };
    const ctx = await f.setup({}, [lc, { id: 'lc-evaluations', type: 'helper' }]);
    const payload = await f.ha.next((m) => m.topic === f.configTopic() && Boolean(JSON.parse(m.payload).cmps.s1_override), 10000, true).then((m) => JSON.parse(m.payload));
    assert.deepEqual(discoveryErrors(payload), []);
    assert.deepEqual(payload.cmps.s1_override.options, ['auto', 'on', 'off']);
    assert.equal(payload.cmps.s1_override.p, 'select');
    assert.equal(payload.cmps.s1_reason.p, 'sensor');
    await until(() => f.state('switch/1/load_control/override') === 'auto', 'the override state');

    await f.ha.publish(f.topic('switch/1/load_control/override/set'), 'on');
    await until(() => f.state('switch/1/load_control/override') === 'on', 'the override on');
    await until(() => f.state('switch/1/load_control/reason') === 'override', 'the reason');
    await until(() => f.patches().length === 1, 'the load switched on by the override');
    assert.deepEqual(f.patches()[0].body, { switches: [{ id: S1, state: 'closed' }] });
    await f.received();
    const reason = JSON.parse(f.state('switch/1/load_control/reason/attributes'));
    assert.equal(reason.mode, 'threshold');

    await f.ha.publish(f.topic('switch/1/load_control/override/set'), 'sometimes');
    await until(() => ctx.caught.length === 1, 'the bad option at the Catch node');
    assert.match(ctx.caught[0].error.message, /is not an override/);
    assert.equal(ctx.caught[0].apiError.code, 'BAD_MSG');
    await f.ha.publish(f.topic('switch/1/load_control/override/set'), 'auto');
    await until(() => f.state('switch/1/load_control/override') === 'auto', 'back to auto');

    // One short-energy read per cycle for both nodes: energy-mqtt's power and the load's evaluation.
    const evaluations = [];
    helper.getNode('lc-evaluations').on('input', (msg) => evaluations.push(msg));
    const reads = () => f.requests().filter((r) => r.path.includes('/short-energy/')).length;
    const before = reads();
    for (let i = 0; i < 5; i += 1) {
      f.step(60);
      await f.send(ctx, 'refresh');
    }
    assert.equal(reads() - before, 5, 'one read per minute');
    assert.equal(evaluations.length, 5, 'and the load evaluated on each');

    // The load-control node alone is redeployed: it leaves and joins again, and HA keeps its select all along.
    const configs = f.ha.history(f.configTopic()).length;
    const { flow, credentials } = f.flow({}, [{ ...lc, name: 'hot water on surplus' }, { id: 'lc-evaluations', type: 'helper' }]);
    await helper._redNodes.setFlows(flow, credentials, 'nodes');
    await until(() => helper.getNode('lc')?.name === 'hot water on surplus', 'the load-control node redeployed');
    await sleep(1300);
    await f.received();
    assert.equal(f.ha.history(f.configTopic()).length, configs, 'no discovery payload without the select in between');
    await f.ha.publish(f.topic('switch/1/load_control/override/set'), 'off');
    await until(() => f.state('switch/1/load_control/override') === 'off', 'the redeployed node takes the override');
  });

  describe('bad input: a clear error, a red status, nothing published', function () {
    const cases = [
      // The settings are the node's: a ConfigError (BAD_CONFIG); a device id is read by the API client's own check.
      ['no broker selected', { broker: '' }, /no MQTT broker/, 'BAD_CONFIG'],
      ['a base topic with a wildcard', { baseTopic: 'energy/+/x' }, /wildcard/, 'BAD_CONFIG'],
      ['a discovery prefix with a space', { discoveryPrefix: 'home assistant' }, /white space/, 'BAD_CONFIG'],
      ['a device not on the key', { devices: `${DEV}, B300000000099` }, /B300000000099 is not one of the devices/, 'BAD_CONFIG'],
      ['a malformed device id', { devices: 'kitchen' }, /kitchen/, 'INVALID_REQUEST'],
      ['an interval below 5 s', { interval: 2 }, /interval must be a number of seconds/, 'BAD_CONFIG'],
      ['history of a fraction of a day', { history: 1.5, haUrl: 'http://127.0.0.1:8123' }, /history must be a whole number of days/, 'BAD_CONFIG'],
      ['history without Home Assistant\'s address', { history: 30, haUrl: 'homeassistant.local' }, /Home Assistant address must be such as http/, 'BAD_CONFIG'],
    ];
    for (const [what, props, message, code] of cases) {
      it(what, async function () {
        const ctx = await f.setup(props);
        await until(() => ctx.statuses.some((s) => s.fill === 'red'), 'a red status');
        await until(() => ctx.errors.some((e) => message.test(e)), 'the error logged');
        ctx.node.receive({ payload: 'refresh' });
        await until(() => ctx.caught.length === 1, 'the msg refused');
        assert.match(ctx.caught[0].error.message, message);
        assert.equal(ctx.caught[0].apiError.code, code);
        await sleep(200);
        assert.deepEqual(f.ha.messages.filter((m) => !m.retain), [], 'nothing published');
        assert.equal(ctx.statuses.at(-1).fill, 'red', 'the status stays red (the broker connecting does not hide it)');
      });
    }

    it('refuses a msg that is no command, and goes on working', async function () {
      const ctx = await f.setup();
      await discovery();
      ctx.node.receive({ payload: 'now please' });
      await until(() => ctx.caught.length === 1, 'the msg refused');
      assert.match(ctx.caught[0].error.message, /is not a command: send "refresh"/);
      assert.equal(ctx.caught[0].apiError.code, 'BAD_MSG');
      await f.send(ctx, 'refresh');
    });
  });

  it('an API outage (the key\'s daily budget spent) is one warning and a red status, not one per read, until reads go through again', async function () {
    const ctx = await f.setup();
    await f.send(ctx);
    await until(() => ctx.statuses.at(-1)?.fill === 'green', 'publishing');
    f.sim.control.setLimits({ tpd: 1 });
    for (let i = 0; i < 6; i += 1) {
      f.step(120);
      await f.send(ctx);
      assert.equal(ctx.statuses.at(-1).fill, 'red', `red after read ${i + 1}`);
    }
    const warned = ctx.warnings.filter((w) => !/noPersistentStore|brokerDown/.test(w));
    assert.ok(warned.length >= 1 && warned.length <= 2, `warned ${warned.length} times: ${warned.join(' | ')}`);
    assert.ok(warned.every((w) => /daily|per 1 day/.test(w)), warned.join(' | '));
    // A new day on the service's clock: the budget is back, and so is the node.
    f.sim.control.setLimits({ tpd: 10000 });
    f.step(24 * 3600);
    await f.send(ctx);
    assert.equal(ctx.statuses.at(-1).fill, 'green');
    assert.equal(ctx.warnings.filter((w) => !/noPersistentStore|brokerDown/.test(w)).length, warned.length, 'no warning since');
  });

  it('makes no request beyond what it states: a simulated hour at 60 s (power) and 300 s (energy)', async function () {
    const ctx = await f.setup({ interval: 60, energyInterval: 300 });
    await until(() => f.state('site/grid_imported') !== undefined && f.state('channel/1/power') !== undefined, 'the first reads');
    const stated = ctx.node.requestsPerDay();
    assert.equal(stated, 1440 + 288 + 1440, 'one short-energy read a minute, long energy every 5 minutes, the device (it has switches) every minute');
    const start = f.requests().length;
    // The interval's cadence in simulated time: each minute the clock steps and the node reads, as its timer would.
    for (let minute = 1; minute <= 60; minute += 1) {
      f.step(60);
      await f.send(ctx, 'refresh');
    }
    const hour = f.requests().slice(start);
    const kinds = (part) => hour.filter((r) => r.path.includes(part)).length;
    assert.equal(kinds('/short-energy/'), 60);
    assert.equal(kinds('/long-energy/'), 12);
    assert.equal(hour.filter((r) => r.path.endsWith(`/devices/${DEV}`)).length, 60);
    assert.ok(hour.length <= stated / 24, `${hour.length} requests in the hour, ${stated / 24} stated`);
    assert.ok(Number(f.state('channel/6/imported')) > 0, 'an hour of the house\'s energy counted');
  });

  it('a redeploy leaves nothing behind: no publish, no request, no subscription after close', async function () {
    const ctx = await f.setup({ interval: 5 });
    await discovery();
    await f.send(ctx, 'refresh');
    await helper.unload();
    const requests = f.requests().length;
    const messages = f.ha.messages.length;
    await f.ha.publish(f.topic('switch/1/set'), 'ON');
    await sleep(5500);
    assert.equal(f.requests().length, requests, 'no request after close (the 5 s timer is gone)');
    assert.equal(f.ha.messages.length, messages + 1, 'only the test\'s own command went over the broker');
  });
});
