'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  helper, startSimulator, startClockedSimulator, TEST_NOW_S, nodeFile, apiConfig, startServer, stopServer, load, nextMessage, loggedText, assertNoKey,
} = require('../support/env');
const { SIM_DEVICES, SIM_KEYS } = require('../../dist/simulator');
const { nodeRedModule } = require('../support/node-red');

const HTML = path.join(__dirname, '..', '..', 'dist', 'nodes', 'energy-api', 'energy-api.html');
const last5 = (key) => key.slice(-5);

/**
 * The test helper gives nodes `RED._ = key => key` (no catalogue) and a pass-through
 * `RED.auth.needsPermission`. These wrappers make both observable: message parameters are
 * appended to the key, and every admin route asks Node-RED's own permission check for the
 * scopes in the `x-test-scope` header (none: 401), as `adminAuth` does for a logged-out user.
 */
function observable(nodeModule, seen) {
  const permissions = nodeRedModule('@node-red/editor-api/lib/auth/permissions');
  return function (RED) {
    RED._ = (key, params) => (params ? `${key} ${JSON.stringify(params)}` : key);
    RED.auth = {
      needsPermission(permission) {
        seen.push(permission);
        return (req, res, next) => {
          const scope = req.get('x-test-scope');
          if (!scope || !permissions.hasPermission(scope.split(','), permission)) return res.status(401).end();
          next();
        };
      },
    };
    return nodeModule(RED);
  };
}

/** Straight from the simulator, not through the client under test. */
async function simGet(sim, apiPath) {
  for (;;) {
    // Another key than the config node's, so that its budget and request log stay its own.
    const res = await fetch(sim.baseUrl + apiPath, { headers: { Authorization: `Bearer ${SIM_KEYS.readOnly}` } });
    if (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    assert.equal(res.status, 200, `${apiPath}: ${res.status}`);
    return res.json();
  }
}

/** Every status the node has shown since it was created (the helper spies on Node.prototype.status). */
function statusesOf(node) {
  return helper._NodePrototype.status.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
}

function nonLoopbackIPv4() {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

describe('energy-api config node', function () {
  let sim;
  let permissionsAsked;

  before(async function () {
    sim = await startClockedSimulator();
  });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () {
    sim.control.reset();
    permissionsAsked = [];
  });
  afterEach(async function () {
    delete process.env.ENERGY_TEST_KEY;
    await helper.unload();
  });

  /** The config node plus one user (a modbus-read node) so that pushed status can be seen. */
  async function setup({ key = SIM_KEYS.full, extra = {}, credentials } = {}) {
    const api = apiConfig(sim, key, extra);
    const flow = [
      api.node,
      { id: 'user', type: 'energy-modbus-read', api: 'api', deviceId: SIM_DEVICES.modbus6MOne, query: 'latest', scale: 'raw', wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'c', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    const nodes = [observable(nodeFile('energy-api'), permissionsAsked), nodeFile('energy-modbus-read')];
    await load(nodes, flow, credentials ?? api.credentials);
    const user = helper.getNode('user');
    return { config: helper.getNode('api'), user, statuses: () => statusesOf(user), out: helper.getNode('out'), caught: helper.getNode('caught') };
  }

  const admin = (url) => helper.request().get(url).set('x-test-scope', 'read');

  it('declares the key as a password credential, never as a flow property', async function () {
    await setup();
    // The shared limiter's Redis password (issue 12) is a credential too.
    assert.deepEqual(helper._redNodes.getCredentialDefinition('energy-api'), { apiKey: { type: 'password' }, redisPassword: { type: 'password' } });
    const html = fs.readFileSync(HTML, 'utf8');
    const block = /RED\.nodes\.registerType\('energy-api',\s*\{([\s\S]*?)\n\s*label:/.exec(html);
    assert.ok(block, 'a literal registerType block');
    const defaults = /defaults:\s*\{([\s\S]*?)\n\s*\},\s*\n\s*credentials:/.exec(block[1]);
    assert.ok(defaults, 'defaults followed by credentials');
    assert.doesNotMatch(defaults[1], /apiKey|redisPassword/);
    assert.match(block[1], /credentials:\s*\{\s*apiKey:\s*\{\s*type:\s*'password'\s*\}/);
    assert.match(html, /<input type="password" id="node-config-input-apiKey"/);
  });

  it('substitutes ${ENV_VAR} in the apiKey credential (Node-RED does it for credentials)', async function () {
    process.env.ENERGY_TEST_KEY = SIM_KEYS.full;
    const ctx = await setup({ credentials: { api: { apiKey: '${ENERGY_TEST_KEY}' } } });
    assert.equal(ctx.config.client.key, `…${last5(SIM_KEYS.full)}`);
    const res = await admin('/energy-api/api/verify').expect(200);
    assert.equal(res.body.accepted, true);
    assert.equal(res.body.key, `…${last5(SIM_KEYS.full)}`);
    const requests = sim.control.log();
    assert.ok(requests.length > 0);
    for (const r of requests) assert.equal(r.key5, last5(SIM_KEYS.full));
  });

  it('an unset ${ENV_VAR} is reported as such and nothing is sent', async function () {
    const ctx = await setup({ credentials: { api: { apiKey: '${ENERGY_TEST_KEY}' } } });
    assert.equal(ctx.config.client, undefined);
    assert.match(ctx.config.problem, /energy-api\.errors\.envKeyUnset.*"name":"ENERGY_TEST_KEY"/);
    assert.equal((await admin('/energy-api/api/verify').expect(503)).body.error, 'not-usable');
    assert.equal(ctx.statuses().at(-1).fill, 'red');
    assert.equal(sim.control.log().length, 0);
  });

  it('a Redis password left in the shared limiter address is warned about without naming it (the editor moves it into its credential)', async function () {
    const password = 'redis-pw-93a1c7';
    await setup({ extra: { redisUrl: `redis://fleet:${password}@127.0.0.1:1` } });
    const warnings = helper.log().args.flat().filter((e) => e.level === helper.log().WARN && e.id === 'api');
    assert.ok(warnings.some((e) => /energy-api\.errors\.redisPasswordInUrl/.test(e.msg)), JSON.stringify(warnings));
    assert.ok(!loggedText().includes(password), 'the password is in no log line');
    const html = fs.readFileSync(HTML, 'utf8');
    assert.match(html, /oneditsave[\s\S]*node-config-input-redisPassword/, 'the editor moves it into the credential');
  });

  it('refuses plain http:// to a non-loopback host: red status on users, error logged, no request', async function () {
    const ip = nonLoopbackIPv4();
    const open = ip ? await startSimulator({ port: 0, host: '0.0.0.0' }) : undefined;
    try {
      const baseUrl = ip ? `http://${ip}:${open.port}/v3` : 'http://192.0.2.1/v3';
      const ctx = await setup({ extra: { baseUrl } });
      assert.equal(ctx.config.client, undefined);
      assert.match(ctx.config.problem, /https:\/\//);
      assert.deepEqual(ctx.statuses().at(-1), { fill: 'red', shape: 'ring', text: '@energy-monitor/node-red-energy-api/energy-api:common.status.configProblem' });
      const errors = helper.log().args.flat().filter((e) => e.level === helper.log().ERROR && e.id === 'api');
      assert.ok(errors.some((e) => /energy-api\.errors\.unusable/.test(e.msg) && /https:\/\//.test(e.msg)), JSON.stringify(errors));
      ctx.user.receive({});
      const caught = await nextMessage(ctx.caught);
      assert.match(caught.error.message, /not usable.*https:\/\//);
      assert.equal((await admin('/energy-api/api/devices').expect(503)).body.error, 'not-usable');
      if (open) assert.equal(open.control.log().length, 0, 'nothing reached the server');
    } finally {
      if (open) await open.close();
    }
  });

  it('a refused key turns users red, named by its last 5 characters only', async function () {
    const ctx = await setup({ key: SIM_KEYS.disabled });
    const res = await admin('/energy-api/api/verify').expect(200);
    assert.equal(res.body.accepted, false);
    assert.equal(res.body.key, `…${last5(SIM_KEYS.disabled)}`);
    await new Promise((resolve) => setImmediate(resolve));
    const red = ctx.statuses().find((s) => s.fill === 'red' && /energy-api\.status\.keyRefused/.test(s.text));
    assert.ok(red, JSON.stringify(ctx.statuses()));
    assert.ok(red.text.includes(last5(SIM_KEYS.disabled)));
    const state = (await admin('/energy-api/api/state').expect(200)).body;
    assert.equal(state.accepted, false);
    assert.equal(state.key, `…${last5(SIM_KEYS.disabled)}`);
    assert.ok(loggedText().includes(`energy-api.errors.keyRefused`));
    assertNoKey(SIM_KEYS.disabled, ctx.statuses(), res.body, state, loggedText());
  });

  describe('admin routes (answered by the deployed config node)', function () {
    it('/devices lists every accessible device with its label and model', async function () {
      await setup();
      const res = await admin('/energy-api/api/devices').expect(200);
      const ids = await simGet(sim, '/devices');
      assert.deepEqual(res.body.map((d) => d.id).sort(), [...ids].sort());
      assert.ok(!ids.includes(SIM_DEVICES.forbidden));
      for (const d of res.body) {
        const device = await simGet(sim, `/devices/${d.id}`);
        assert.equal(d.label, device.label);
        assert.equal(d.model, device.model);
      }
    });

    it('/devices costs one request when the devices were read in the last 10 minutes (a fleet\'s status reads)', async function () {
      await setup();
      const { client } = helper.getNode('api');
      await Promise.all((await client.listDevices()).map((id) => client.getDevice(id)));
      sim.control.clearLog();
      const res = await admin('/energy-api/api/devices').expect(200);
      assert.equal(res.body.length, (await simGet(sim, '/devices')).length);
      assert.deepEqual(sim.control.log().filter((r) => r.key5 === SIM_KEYS.full.slice(-5)).map((r) => r.path), ['/v3/devices'], 'the list, and no device read');
    });

    it('/devices/:deviceId gives the channels and switches', async function () {
      await setup();
      const res = await admin(`/energy-api/api/devices/${SIM_DEVICES.switch6M3SW}`).expect(200);
      const device = await simGet(sim, `/devices/${SIM_DEVICES.switch6M3SW}`);
      assert.equal(res.body.model, device.model);
      assert.deepEqual(res.body.channels.map((c) => [c.id, c.label, c.ctRating]), device.channels.map((c) => [c.id, c.label, c.ctRating]));
      assert.deepEqual(res.body.switches.map((s) => [s.id, s.label, s.state]), device.switches.map((s) => [s.id, s.label, s.state]));
      assert.equal(res.body.switches.length, 3);
      const forbidden = await admin(`/energy-api/api/devices/${SIM_DEVICES.forbidden}`);
      assert.ok([403, 404].includes(forbidden.status), String(forbidden.status));
    });

    it('/models and /categories are the service lists', async function () {
      await setup();
      assert.deepEqual((await admin('/energy-api/api/models').expect(200)).body, await simGet(sim, '/devices/models'));
      assert.deepEqual((await admin('/energy-api/api/categories').expect(200)).body, await simGet(sim, '/devices/channel-categories'));
    });

    it('/state and /verify name the key by its last 5 characters and give the daily budget', async function () {
      await setup();
      const before = (await admin('/energy-api/api/state').expect(200)).body;
      assert.equal(before.key, `…${last5(SIM_KEYS.full)}`);
      assert.equal(before.accepted, null);
      const verify = (await admin('/energy-api/api/verify').expect(200)).body;
      assert.equal(verify.accepted, true);
      assert.equal(verify.devices, (await simGet(sim, '/devices')).length);
      const used = sim.control.log().filter((r) => r.key5 === last5(SIM_KEYS.full)).length;
      assert.equal(verify.rateLimit.dailyRemaining, verify.rateLimit.tpd - used);
      assert.equal(verify.rateLimit.dailyResetAt, (Math.floor(TEST_NOW_S / 86400) + 1) * 86400, 'the next UTC midnight on the shared clock');
      const after = (await admin('/energy-api/api/state').expect(200)).body;
      assert.equal(after.accepted, true);
      assertNoKey(SIM_KEYS.full, before, verify, after);
    });

    it('answers 503 for an id that is not a deployed config node', async function () {
      await setup();
      assert.equal((await admin('/energy-api/nope/devices').expect(503)).body.error, 'not-deployed');
      assert.equal((await admin('/energy-api/user/models').expect(503)).body.error, 'not-deployed');
      await admin('/energy-api/nope/verify').expect(503);
    });

    it('every route asks for the energy-api.read permission: no scope gives 401', async function () {
      await setup();
      assert.deepEqual([...new Set(permissionsAsked)], ['energy-api.read']);
      const stack = helper._httpAdmin._router.stack.filter((l) => l.route && l.route.path.startsWith('/energy-api/'));
      assert.equal(stack.length, 6);
      for (const layer of stack) {
        const url = layer.route.path.replace(':id', 'api').replace(':deviceId', SIM_DEVICES.meter3M);
        await helper.request().get(url).expect(401);
        await helper.request().get(url).set('x-test-scope', 'flows.read').expect(401);
      }
      await helper.request().get('/energy-api/api/models').set('x-test-scope', 'energy-api.read').expect(200);
      assert.equal(sim.control.log().length, 1, 'only the permitted request reached the service');
    });
  });

  it('the deployed flow never holds the key outside the credentials', async function () {
    await setup();
    await admin('/energy-api/api/devices').expect(200);
    const flows = helper._redNodes.getFlows();
    const config = flows.flows.find((n) => n.id === 'api');
    assert.equal(config.apiKey, undefined);
    const configNode = helper.getNode('api');
    const ownText = Object.entries(configNode).filter(([k, v]) => k !== 'credentials' && typeof v === 'string');
    assertNoKey(SIM_KEYS.full, flows.flows, ownText, Object.keys(configNode));
    assertNoKey(SIM_KEYS.full, loggedText());
  });
});
