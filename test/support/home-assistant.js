'use strict';
// Home Assistant's side of the MQTT tests: an MQTT client that subscribes as HA does (discovery topics,
// then the topics the discovery payloads name, recording every message with its retain flag), HA's
// abbreviation expansion, and the JSON schema of a device-based discovery payload. The MQTT client is the
// `mqtt` package Node-RED's own mqtt nodes use (resolved from node-red's dependencies, not ours), and the
// core `mqtt-broker` node comes from the Node-RED the tests run on.
const path = require('node:path');
const Ajv = require('ajv');
const schema = require('./ha-discovery.schema.json');

const { NODE_RED_DIR: nodeRedDir } = require('./node-red');
const coreNodesDir = path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [nodeRedDir] }));
/** Node-RED's core mqtt nodes (mqtt-broker, mqtt in, mqtt out) of the Node-RED under test. */
const coreMqttNodes = () => require(path.join(coreNodesDir, 'core', 'network', '10-mqtt.js'));
const mqtt = require(require.resolve('mqtt', { paths: [coreNodesDir] }));

/** The abbreviations HA's discovery expands (homeassistant/components/mqtt/abbreviations.py), for the keys a payload here may use. */
const ABBREVIATIONS = {
  root: {
    dev: 'device', o: 'origin', cmps: 'components', p: 'platform', uniq_id: 'unique_id', stat_t: 'state_topic', cmd_t: 'command_topic',
    dev_cla: 'device_class', stat_cla: 'state_class', unit_of_meas: 'unit_of_measurement', avty: 'availability', avty_t: 'availability_topic',
    avty_mode: 'availability_mode', avty_tpl: 'availability_template', pl_avail: 'payload_available', pl_not_avail: 'payload_not_available',
    json_attr_t: 'json_attributes_topic', ent_cat: 'entity_category', en: 'enabled_by_default', pl_on: 'payload_on', pl_off: 'payload_off',
    stat_on: 'state_on', stat_off: 'state_off', opt: 'optimistic', ops: 'options', sug_dsp_prc: 'suggested_display_precision', exp_aft: 'expire_after',
    ic: 'icon', e: 'encoding', t: 'topic',
  },
  device: { ids: 'identifiers', cns: 'connections', mf: 'manufacturer', mdl: 'model', mdl_id: 'model_id', hw: 'hw_version', sw: 'sw_version', sn: 'serial_number', sa: 'suggested_area', cu: 'configuration_url', via_dev: 'via_device' },
  origin: { sw: 'sw_version', url: 'support_url' },
};

function expand(object, table) {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const out = {};
  for (const [key, value] of Object.entries(object)) out[table[key] ?? key] = value;
  return out;
}

/** A discovery payload as HA reads it: abbreviations expanded at the root, in `device`, `origin` and each component. */
function expandDiscovery(payload) {
  const root = expand(payload, ABBREVIATIONS.root);
  if (root.device) root.device = expand(root.device, ABBREVIATIONS.device);
  if (root.origin) root.origin = expand(root.origin, ABBREVIATIONS.origin);
  if (root.components && typeof root.components === 'object') {
    root.components = Object.fromEntries(Object.entries(root.components).map(([id, c]) => [id, expand(c, ABBREVIATIONS.root)]));
  }
  return root;
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** The schema's errors for a payload (as published), [] when HA would take it. */
function discoveryErrors(payload) {
  const expanded = expandDiscovery(payload);
  if (validate(expanded)) return [];
  return validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params?.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`);
}

/**
 * An MQTT client subscribed as Home Assistant is: to `<prefix>/+/+/config`, `<prefix>/+/+/+/config` and its
 * status topic, and to everything under the base topic (the states the payloads name). Every message is
 * kept with its retain flag, in arrival order.
 */
async function connectHomeAssistant(url, { prefix = 'homeassistant', base = 'energy' } = {}) {
  const client = mqtt.connect(url, { clientId: `ha-test-${process.pid}-${Math.random().toString(16).slice(2, 8)}`, reconnectPeriod: 100 });
  const messages = [];
  const listeners = new Set();
  client.on('message', (topic, payload, packet) => {
    const m = { topic, payload: payload.toString('utf8'), retain: packet.retain === true };
    messages.push(m);
    for (const l of [...listeners]) l(m);
  });
  client.on('error', () => {});
  await new Promise((resolve, reject) => { client.once('connect', resolve); client.once('error', reject); });
  const topics = [`${prefix}/+/+/config`, `${prefix}/+/+/+/config`, `${base}/#`];
  await new Promise((resolve, reject) => client.subscribe(topics, { qos: 1 }, (err) => (err ? reject(err) : resolve())));
  const ha = {
    client,
    messages,
    /** Every payload published on `topic`, oldest first. */
    history: (topic) => messages.filter((m) => m.topic === topic),
    latest: (topic) => messages.filter((m) => m.topic === topic).at(-1),
    /** Resolves with the first message (from now on, or already kept when `past`) matching. */
    next(match, ms = 15000, past = false) {
      if (past) {
        const found = messages.find(match);
        if (found) return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => { listeners.delete(l); reject(new Error(`no matching MQTT message within ${ms} ms`)); }, ms);
        const l = (m) => { if (match(m)) { clearTimeout(timer); listeners.delete(l); resolve(m); } };
        listeners.add(l);
      });
    },
    publish: (topic, payload, options = {}) => new Promise((resolve, reject) => client.publish(topic, payload, { qos: 1, ...options }, (err) => (err ? reject(err) : resolve()))),
    /** HA's birth message, as HA sends it when it (re)starts. */
    birth: () => ha.publish(`${prefix}/status`, 'online'),
    end: () => new Promise((resolve) => client.end(true, {}, resolve)),
  };
  return ha;
}

module.exports = { coreMqttNodes, mqtt, expandDiscovery, discoveryErrors, connectHomeAssistant };
