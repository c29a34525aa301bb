'use strict';
// The credentials of the nodes that reach other services than the energy API: energy-price's Amber key,
// energy-store's PostgreSQL password, InfluxDB 1 password and InfluxDB 2/3 token, and the MQTT broker's password
// around energy-mqtt (the broker node is Node-RED's own: only energy-mqtt's statuses, log and what it publishes are
// checked). Each is set to a distinctive value and driven down the paths where leaks happen: accepted, refused (a
// wrong key, password or token), a server that is not there (connection refused), a password typed into an address,
// the exported flow (and each secret kept as a password credential, which Node-RED never sends to the editor), and
// energy-store's disk queue. No text may hold a secret, nor any 6 characters of one (a key is named by its last 5
// only), nor a URL with user:password@. Translated texts are filled in (see withTexts). The secrets also join the
// harness's set (support.js `captured`), so secrets.rel.js checks them again over everything captured after this.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  helper, allNodes, load, startServer, stopServer, startClockedSimulator, useSimClock, messagesOf, until, captured, capture, capturesScanned, figure,
} = require('./support');
const { tempDir, requireServer } = require('../support/store');
const { freePort } = require('../support/processes');
const { startPostgres, POSTGRES_BIN_DIR } = require('../support/postgres-server');
const { startInflux, INFLUXD } = require('../support/influx-server');
const { startInfluxRecorder } = require('../support/influx-recorder');
const { startMosquitto, MOSQUITTO } = require('../support/mosquitto');
const { coreMqttNodes, mqtt } = require('../support/home-assistant');
const { SIM_AMBER_KEY, SIM_DEVICES, amberSiteId } = require('../../dist/simulator');
const { skipBecause } = require('../support/skip');

const DEVICE = SIM_DEVICES.switch6M3SW;
/** Node-RED's log level of a warning. */
const WARN = 30;
/**
 * A secret named by more than its last 5 characters is a leak. The test's own secrets mix cases and digits, so
 * every 6-character piece of one is looked for (no other text holds one); of a fixed one (a fixture's password, the
 * simulator's Amber key), the whole of it and its last 6 characters.
 */
function pieces(secret) {
  if (/^[A-Za-z0-9]{12,}$/.test(secret) && /[a-z]/.test(secret) && /[A-Z]/.test(secret) && /\d/.test(secret)) {
    return Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));
  }
  return [secret, secret.slice(-6)];
}
/** scheme://user:password@ anywhere in a text. */
const USERINFO_URL = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:'"\\]+:[^\s/@'"\\]+@/i;

/** Any value as text, Errors with their message, stack and cause (JSON.stringify gives `{}` for an Error). */
function textOf(value) {
  const seen = new WeakSet();
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === 'bigint') return String(v);
    if (v && typeof v === 'object') {
      if (seen.has(v)) return '[cycle]';
      seen.add(v);
      if (v instanceof Error) return { ...v, name: v.name, message: v.message, stack: v.stack, cause: v.cause };
    }
    return v;
  }) ?? String(value);
}

/**
 * The test helper's RED._ returns the bare message key and drops its values, so a secret put into a
 * translated text (a warning's __reason__) would never be seen: the package's nodes get the texts of their
 * en-US catalogs, filled in as Node-RED fills them (other keys: the key and its values).
 */
function withTexts(modules) {
  const catalogs = new Map();
  const catalog = (type) => {
    if (!catalogs.has(type)) {
      const file = path.join(__dirname, '../../dist/nodes', type, 'locales/en-US', `${type}.json`);
      catalogs.set(type, fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined);
    }
    return catalogs.get(type);
  };
  const translate = (key, values = {}) => {
    // A node's catalog (locales/en-US/<type>.json) holds its texts under its type: "energy-store.warn.unreachable".
    const parts = String(key).split('.');
    const text = parts.reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), catalog(parts[0]));
    if (typeof text !== 'string') return `${key}${Object.keys(values).length ? ` ${textOf(values)}` : ''}`;
    return Object.entries(values).reduce((t, [k, v]) => t.split(`__${k}__`).join(String(v)), text);
  };
  return modules.map((mod) => (red) => {
    red._ = translate;
    return mod(red);
  });
}

/** Every file under `dir` (energy-store's queue and watermarks), as text. */
function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile())
    .map((f) => ({ file: path.relative(dir, f), text: fs.readFileSync(f, 'latin1') }));
}

/**
 * What one test saw, scanned for its secrets. `inline` secrets are ones a user typed into a plain property
 * (refused by the node): they are looked for everywhere except the export, which carries the user's own text.
 */
function evidence(secrets, inline = []) {
  // Not the inline ones: the export carries what the user typed (support.js scans every capture for these).
  for (const s of secrets) captured.secrets.add(s);
  const leaksBefore = captured.leaks.length;
  const seen = [];
  const add = (where, value, { exported = false } = {}) => {
    capture(value, where);
    seen.push({ where, text: textOf(value), exported });
  };
  return {
    add,
    /** Statuses of `ids`, and every msg at the helper nodes `helpers` (outputs and Catch). */
    watch(ids, helpers) {
      for (const id of ids) helper.getNode(id).on('call:status', (call) => add(`${id} status`, call.args[0]));
      for (const id of helpers) helper.getNode(id).on('input', (msg) => add(`${id} msg`, msg));
    },
    /**
     * The runtime's log (every node's log, warn and error) and the exported flow (which must hold the nodes,
     * without their credentials). `passwords` ({ type: [names] }): credentials Node-RED must keep as passwords,
     * which it never sends to the editor (the editor is told only has_<name>), so no export from it holds them.
     */
    exported(ids, { logFilter = () => true, passwords = {} } = {}) {
      for (const [type, names] of Object.entries(passwords)) {
        const definition = helper._RED.nodes.getCredentialDefinition(type);
        for (const name of names) assert.equal(definition?.[name]?.type, 'password', `${type} keeps ${name} as a password credential`);
      }
      add('log', helper.log().args.filter((args) => logFilter(args[0])));
      const flows = helper._RED.nodes.getFlows();
      const nodes = Array.isArray(flows) ? flows : flows.flows;
      for (const id of ids) assert.ok(nodes.some((n) => n.id === id), `the export holds ${id}`);
      add('exported flow', flows, { exported: true });
    },
    async check(label) {
      await capturesScanned();
      const found = captured.leaks.slice(leaksBefore);
      for (const { where, text, exported } of seen) {
        for (const secret of exported ? secrets : [...secrets, ...inline]) {
          const piece = pieces(secret).find((p) => text.includes(p));
          if (piece) {
            const at = text.indexOf(piece);
            found.push(`${where}: …${text.slice(Math.max(0, at - 60), at)}<6+ characters of the secret …${secret.slice(-5)}>`);
          }
        }
        const url = exported ? undefined : USERINFO_URL.exec(text);
        if (url) found.push(`${where}: a URL with user:password@ (${url[0].replace(/:[^:]*@$/, ':…@')})`);
      }
      figure(`${label}: ${secrets.length + inline.length} secrets over ${seen.length} captured texts (statuses, msgs, log, export, files); leaks ${found.length}`);
      for (const leak of found.slice(0, 20)) figure(`  leak: ${leak}`);
      assert.equal(found.length, 0, `${label}: ${found.length} leaks (listed above, secrets named by their last 5 characters)`);
    },
  };
}

describe('reliability: credentials of energy-price, energy-store, energy-mqtt (and energy-api, texts filled in)', function () {
  this.timeout(120000);
  let sim;
  let userDir;

  before(async function () { sim = await startClockedSimulator(); });
  after(async function () { await sim?.close(); });
  beforeEach(function (done) {
    sim.control.reset();
    userDir = tempDir('energy-secrets-');
    useSimClock(sim, { userDir, mqttReconnectTime: 200 });
    startServer(done);
  });
  afterEach(async function () {
    await stopServer();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  const apiNode = () => ({ id: 'api', type: 'energy-api', name: 'sim', baseUrl: sim.baseUrl, tps: 50, tpd: 10000, timezone: '' });
  const catchAll = () => [{ id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] }, { id: 'caught', type: 'helper' }];

  it('energy-price: the Amber key, accepted, refused (401), with Amber unreachable, and a password typed into the address', async function () {
    const wrongKey = 'Qx4Zr9Lm2Kd8VtJ7';
    const typedIn = 'Pa5Ws8Ex2Rd4Tf6G';
    const e = evidence([SIM_AMBER_KEY, wrongKey], [typedIn]);
    const downUrl = `http://127.0.0.1:${await freePort()}/v1`;
    const price = (id, baseUrl) => ({
      id, type: 'energy-price', name: '', source: 'amber', baseUrl, siteId: amberSiteId(DEVICE), resolution: 30, ahead: 24,
      timezone: 'Australia/Sydney', poll: false, wires: [['out']],
    });
    const ids = ['accepted', 'refused', 'unreachable', 'inline'];
    // A password typed into the address (user:password@) is refused: plain http only to this machine, and not so.
    const inlineUrl = sim.amberUrl.replace('http://', `http://amber:${typedIn}@`);
    await load(withTexts(allNodes()), [
      apiNode(), price('accepted', sim.amberUrl), price('refused', sim.amberUrl), price('unreachable', downUrl), price('inline', inlineUrl), { id: 'out', type: 'helper' }, ...catchAll(),
    ], {
      api: { apiKey: sim.keys.full }, accepted: { apiKey: SIM_AMBER_KEY }, refused: { apiKey: wrongKey }, unreachable: { apiKey: SIM_AMBER_KEY }, inline: { apiKey: SIM_AMBER_KEY },
    });
    e.watch(ids, ['out', 'caught']);
    const out = messagesOf(helper.getNode('out'));
    const caught = messagesOf(helper.getNode('caught'));
    for (const id of ids) helper.getNode(id).receive({ payload: 'now' });
    await until(() => out.length === 1 && caught.length === 3, 20000, 'one list and three errors');
    const errorOf = (id) => caught.find((m) => m.error.source.id === id);
    assert.equal(errorOf('refused').apiError.code, 'HTTP_401');
    assert.ok(errorOf('refused').error.message.includes(`…${wrongKey.slice(-5)}`), 'the refused key is named by its last 5 characters');
    assert.equal(errorOf('unreachable').apiError.code, 'NETWORK');
    assert.equal(errorOf('inline').apiError.code, 'INVALID_REQUEST');
    e.exported(ids, { passwords: { 'energy-price': ['apiKey'] } });
    await e.check('energy-price');
  });

  it('energy-api: a refused key named by its last 5 characters in the translated status and error', async function () {
    // The energy API key is secrets.rel.js's, but there the texts are bare message keys: here they are filled in.
    const wrongKey = 'Ak7Hd2Ns9Qe4Lw6X';
    const e = evidence([wrongKey]);
    await load(withTexts(allNodes()), [
      { ...apiNode(), id: 'api' },
      { id: 'status', type: 'energy-device-status', api: 'api', mode: 'device', deviceId: DEVICE, offlineAfter: 900, interval: 0, wires: [['out']] },
      { id: 'out', type: 'helper' }, ...catchAll(),
    ], { api: { apiKey: wrongKey } });
    e.watch(['status'], ['out', 'caught']);
    const caught = messagesOf(helper.getNode('caught'));
    helper.getNode('status').receive({});
    await until(() => caught.length === 1 && helper.log().args.some(([entry]) => entry.id === 'api' && /not accepted|refused/i.test(String(entry.msg))), 20000, 'the refusal at Catch and in the log');
    assert.ok([401, 403].includes(caught[0].apiError.status), 'the service refused the key');
    e.exported(['api', 'status'], { passwords: { 'energy-api': ['apiKey', 'redisPassword'] } });
    await e.check('energy-api');
  });

  describe('energy-store', function () {
    const query = (wires) => ({ id: 'query', type: 'energy-query', api: 'api', kind: 'long', query: 'range', granularity: '5m', output: 'entries', fromTs: '-1h', toTs: 'now', maxRequests: 20, wires: [wires] });
    const store = (id, props) => ({ id, type: 'energy-store', retention: 0, queueLimit: 10, wires: [['written'], ['read'], ['resume']], ...props });

    /**
     * One energy-query feeding every store: `accepted` stores must write, `refused` ones send an error to
     * Catch, `unreachable` ones queue the batch on disk. Then the export, the log and the queue files.
     */
    async function drive(e, stores, credentials, label) {
      const all = [...stores.accepted, ...stores.refused, ...stores.unreachable];
      await load(withTexts(allNodes()), [
        apiNode(), query(all.map((s) => s.id)), ...all,
        { id: 'written', type: 'helper' }, { id: 'read', type: 'helper' }, { id: 'resume', type: 'helper' }, ...catchAll(),
      ], { api: { apiKey: sim.keys.full }, ...credentials });
      e.watch(all.map((s) => s.id), ['written', 'caught']);
      const written = messagesOf(helper.getNode('written'));
      const caught = messagesOf(helper.getNode('caught'));
      helper.getNode('query').receive({ deviceId: DEVICE });
      await until(() => written.length === stores.accepted.length + stores.unreachable.length && caught.length === stores.refused.length, 30000,
        `${label}: ${stores.accepted.length} written, ${stores.unreachable.length} queued, ${stores.refused.length} refused`);
      assert.deepEqual(written.map((m) => m.payload.state).sort(), [...stores.accepted.map(() => 'written'), ...stores.unreachable.map(() => 'queued')].sort());
      assert.deepEqual(caught.map((m) => m.error.source.id).sort(), stores.refused.map((s) => s.id).sort());
      for (const m of caught) assert.match(m.apiError.code, /^STORE_REFUSED$/, `${m.error.source.id} refused`);
      // A refused or unreachable database keeps the batch in the node's disk queue.
      const files = filesUnder(path.join(userDir, 'energy-store'));
      for (const s of [...stores.refused, ...stores.unreachable]) {
        assert.ok(files.some((f) => f.file.startsWith(`${s.id}${path.sep}queue${path.sep}`)), `${s.id}: a batch queued on disk`);
      }
      for (const f of files) e.add(`file energy-store/${f.file}`, f.text);
      e.exported(all.map((s) => s.id), { passwords: { 'energy-store': ['password', 'token'] } });
    }

    it('PostgreSQL: the password, accepted, refused, with the server down, and typed into the connection', async function () {
      requireServer(this, POSTGRES_BIN_DIR, 'PostgreSQL (postgresql)');
      const pg = await startPostgres();
      try {
        const password = 'Rw8Kq1Zt6YxN3pC5';
        const wrong = 'Hc2Vn5Lb7MfT9sD4';
        const typedIn = 'Td8Sa1Xe3WqG6yK2';
        // A role of the test's own, with a distinctive password, owning the database it writes to.
        await pg.query(`CREATE ROLE energy_writer LOGIN PASSWORD '${password}'`);
        await pg.query('CREATE DATABASE energy_secrets OWNER energy_writer');
        const e = evidence([password, wrong, pg.password], [typedIn]);
        const at = `127.0.0.1:${pg.port}/energy_secrets`;
        const down = `127.0.0.1:${await freePort()}/energy_secrets`;
        await drive(e, {
          accepted: [store('pgOk', { backend: 'postgres', connection: `postgres://energy_writer@${at}` })],
          refused: [
            store('pgWrong', { backend: 'postgres', connection: `postgres://energy_writer@${at}` }),
            store('pgInline', { backend: 'postgres', connection: `postgres://energy_writer:${typedIn}@${at}` }),
          ],
          unreachable: [store('pgDown', { backend: 'postgres', connection: `postgres://energy_writer@${down}` })],
        }, { pgOk: { password }, pgWrong: { password: wrong }, pgInline: {}, pgDown: { password } }, 'PostgreSQL');
        await e.check('energy-store PostgreSQL');
      } finally {
        await helper.unload();
        await pg.destroy();
      }
    });

    it('InfluxDB 1: user and password, accepted, refused (401), with the server down, and typed into the url', async function () {
      requireServer(this, INFLUXD, 'InfluxDB (influxdb)');
      const influx = await startInflux({ auth: true });
      try {
        const password = 'Gm1Rd4Uy8KpB7wF3';
        const wrong = 'Nq7Wc5Hs9JtE4xV8';
        const typedIn = 'Lz3Pe6Va1BnH5rM9';
        await influx.query(`CREATE USER energy_writer WITH PASSWORD '${password}' WITH ALL PRIVILEGES`);
        const e = evidence([password, wrong, influx.admin.password, Buffer.from(`energy_writer:${password}`).toString('base64')], [typedIn]);
        const v1 = (id, url) => store(id, { backend: 'influxdb', influxApi: 'v1', url, database: 'energy' });
        const host = influx.url.replace(/^http:\/\//, '');
        await drive(e, {
          accepted: [v1('ifxOk', influx.url)],
          refused: [v1('ifxWrong', influx.url), v1('ifxInline', `http://energy_writer:${typedIn}@${host}`)],
          unreachable: [v1('ifxDown', `http://127.0.0.1:${await freePort()}`)],
        }, {
          ifxOk: { user: 'energy_writer', password }, ifxWrong: { user: 'energy_writer', password: wrong }, ifxInline: {}, ifxDown: { user: 'energy_writer', password },
        }, 'InfluxDB 1');
        await e.check('energy-store InfluxDB 1');
      } finally {
        await helper.unload();
        await influx.destroy();
      }
    });

    it('InfluxDB 2 and 3 (a recording server: neither is packaged): the token, accepted, refused (401) and with the server down', async function () {
      const token = 'Xr2Dk8Qw3FhU6zP1';
      const wrong = 'Mv6Sj9Ca4GeY2nW7';
      const rec = await startInfluxRecorder({ token });
      try {
        const e = evidence([token, wrong]);
        const down = `http://127.0.0.1:${await freePort()}`;
        const v2 = (id, url) => store(id, { backend: 'influxdb', influxApi: 'v2', url, org: rec.org, bucket: rec.bucket });
        const v3 = (id, url) => store(id, { backend: 'influxdb', influxApi: 'v3', url, database: rec.database });
        await drive(e, {
          accepted: [v2('v2Ok', rec.url), v3('v3Ok', rec.url)],
          refused: [v2('v2Wrong', rec.url), v3('v3Wrong', rec.url)],
          unreachable: [v2('v2Down', down), v3('v3Down', down)],
        }, {
          v2Ok: { token }, v3Ok: { token }, v2Wrong: { token: wrong }, v3Wrong: { token: wrong }, v2Down: { token }, v3Down: { token },
        }, 'InfluxDB 2 and 3');
        await e.check('energy-store InfluxDB 2 and 3');
      } finally {
        await helper.unload();
        await rec.close();
      }
    });
  });

  it('energy-mqtt: the broker password (Node-RED\'s mqtt-broker) never in energy-mqtt\'s statuses, log or what it publishes', async function () {
    if (!MOSQUITTO) {
      if (process.env.CI) throw new Error('mosquitto is not installed: .ci/run installs it, so CI cannot skip this test');
      skipBecause(this, 'mosquitto is not installed here (CI installs it)');
    }
    const password = 'Bt4Hy1Ld9ZsQ8kR6';
    const wrong = 'Kf8Wn2Rc6UvX5jT3';
    const broker = await startMosquitto({ users: { ha: password } });
    // Everything published on the broker, read as Home Assistant would (with the right password).
    const listener = mqtt.connect(broker.url, { username: 'ha', password, reconnectPeriod: 0 });
    try {
      await new Promise((resolve, reject) => { listener.once('connect', resolve); listener.once('error', reject); });
      const published = [];
      listener.on('message', (topic, payload) => published.push({ topic, payload: payload.toString('utf8') }));
      await new Promise((resolve, reject) => listener.subscribe('#', { qos: 1 }, (err) => (err ? reject(err) : resolve())));
      const e = evidence([password, wrong]);
      const downPort = await freePort();
      const brokerNode = (id, port) => ({ id, type: 'mqtt-broker', name: `broker ${port}`, broker: '127.0.0.1', port, clientid: '', autoConnect: true, usetls: false, protocolVersion: 4, keepalive: 60, cleansession: true, autoUnsubscribe: true });
      const bridge = (id, brokerId) => ({
        id, type: 'energy-mqtt', name: '', api: 'api', broker: brokerId, devices: DEVICE, discovery: true, discoveryPrefix: `ha-${id}`, baseTopic: `energy-${id}`, interval: 0, energyInterval: 300, configVersion: 1,
      });
      const ids = ['mqOk', 'mqWrong', 'mqDown'];
      await load(withTexts([...allNodes(), coreMqttNodes()]), [
        apiNode(), brokerNode('brokerOk', broker.port), brokerNode('brokerWrong', broker.port), brokerNode('brokerDown', downPort),
        bridge('mqOk', 'brokerOk'), bridge('mqWrong', 'brokerWrong'), bridge('mqDown', 'brokerDown'), ...catchAll(),
      ], {
        api: { apiKey: sim.keys.full }, brokerOk: { user: 'ha', password }, brokerWrong: { user: 'ha', password: wrong }, brokerDown: { user: 'ha', password },
      });
      e.watch(ids, ['caught']);
      const warned = (id) => helper.log().args.some(([entry]) => entry.id === id && entry.level === WARN);
      await until(() => published.some((m) => m.topic === `ha-mqOk/device/${DEVICE}/config`), 20000, 'discovery published');
      await until(() => warned('mqWrong') && warned('mqDown'), 20000, 'the refused and the unreachable broker warned of');
      assert.equal(published.filter((m) => /^(ha|energy)-mq(Wrong|Down)\//.test(m.topic)).length, 0, 'nothing published past a broker that refused');
      e.add('published', published);
      // energy-mqtt's own log lines: the core mqtt-broker node's (Node-RED's) are its own business.
      e.exported([...ids, 'brokerOk', 'brokerWrong', 'brokerDown'], { logFilter: (entry) => entry.type !== 'mqtt-broker', passwords: { 'mqtt-broker': ['password'] } });
      await e.check('energy-mqtt');
    } finally {
      listener.end(true);
      await helper.unload();
      await broker.close();
    }
  });
});
