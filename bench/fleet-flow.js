'use strict';
// The flow a user following a fleet of about 300 devices on one key deploys (bench/fleet-follow.js runs it):
//  - "every 5 min": one energy-device-status node in "every device" mode (1 + one request per device) whose
//    output keeps the fleet's device list in flow context, and one energy-query node following every device's
//    5-minute long energy (follow mode, catch-up 2 h: a device that back-fills after an outage of its own is
//    still emitted), fed one msg per device (msg.deviceId) by a function;
//  - "every 30 s": one energy-query node following every device's short energy (follow mode, catch-up 0.1 h:
//    short energy comes over UDP and does not arrive late), fed the same way;
//  - "every 3 min": one switch command (toggle switch 1 of the next device with switches, in turn) through an
//    energy-switch-control node;
//  - a Catch node for every error. The config node starts at the 5/s and 10000/day of a small key and learns the
//    key's real limits from the service's first answer.
// The record functions stand for what the user does with the data; they hand each output to the bench's probe.
// The 30-s trigger fires 0.2 s before the 5-min one, so that when both fire the short reads are queued first.

const ID = {
  tab: 'f1ee700000000001',
  api: 'f1ee700000000002',
  every30s: 'f1ee700000000010',
  shortFanOut: 'f1ee700000000011',
  short: 'f1ee700000000012',
  recordShort: 'f1ee700000000013',
  every5min: 'f1ee700000000020',
  status: 'f1ee700000000021',
  rememberDevices: 'f1ee700000000022',
  longFanOut: 'f1ee700000000023',
  long: 'f1ee700000000024',
  recordLong: 'f1ee700000000025',
  every3min: 'f1ee700000000030',
  nextSwitch: 'f1ee700000000031',
  switchControl: 'f1ee700000000032',
  recordSwitch: 'f1ee700000000033',
  catchAll: 'f1ee700000000040',
  recordError: 'f1ee700000000041',
};

/** Seconds after the deploy at which the 30-s and 5-min triggers first fire (the device list is read at deploy). */
const FIRST_SHORT_S = 9.8;
const FIRST_LONG_S = 10;

const probe = "const probe = global.get('fleetProbe');\n";

function fn(id, name, func, wires, y, outputs = 1) {
  return { id, type: 'function', z: ID.tab, name, func, outputs, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], x: 500, y, wires };
}

function inject(id, name, repeat, onceDelay, wires, y) {
  return {
    id, type: 'inject', z: ID.tab, name, props: [{ p: 'payload' }], payload: '', payloadType: 'date', topic: '',
    repeat: String(repeat), crontab: '', once: onceDelay !== undefined, onceDelay: onceDelay ?? 0.1, x: 150, y, wires,
  };
}

function follow(id, name, kind, catchUp, wires, y) {
  return {
    id, type: 'energy-query', z: ID.tab, name, configVersion: 1, api: ID.api, deviceId: '', kind, query: 'range',
    fromTs: '-1h', toTs: 'now', granularity: '5m', timezone: '', convert: '', powerFactor: false, groupByPhase: false,
    output: 'entries', chartUnit: '', maxPoints: 500, reduce: 'average', follow: true, catchUp, maxRequests: 100, x: 800, y, wires,
  };
}

/** The flow, with the key as the config node's credential (deployed through the admin API). */
function fleetFlow({ baseUrl, apiKey }) {
  return [
    { id: ID.tab, type: 'tab', label: 'Fleet' },
    { id: ID.api, type: 'energy-api', name: 'fleet key', configVersion: 1, baseUrl, tps: 5, tpd: 10000, timezone: '', redisUrl: '', credentials: { apiKey } },

    inject(ID.every30s, 'every 30 s', 30, FIRST_SHORT_S, [[ID.shortFanOut]], 80),
    fn(ID.shortFanOut, 'one msg per device', `${probe}const devices = flow.get('devices') || [];\nprobe.trigger('short', devices.length);\nreturn [devices.map((deviceId) => ({ deviceId }))];`, [[ID.short]], 80),
    follow(ID.short, 'short energy', 'short', 0.1, [[ID.recordShort]], 80),
    fn(ID.recordShort, 'record', `${probe}probe.short(msg);\nreturn null;`, [], 80),

    inject(ID.every5min, 'every 5 min', 300, FIRST_LONG_S, [[ID.status, ID.longFanOut]], 180),
    {
      id: ID.status, type: 'energy-device-status', z: ID.tab, name: 'every device', configVersion: 1, api: ID.api, deviceId: '',
      mode: 'devices', offlineAfter: 900, interval: 0, onlyOnChange: false, outputOnDeploy: true, x: 500, y: 160, wires: [[ID.rememberDevices]],
    },
    fn(ID.rememberDevices, 'remember devices', `${probe}probe.status(msg);\nconst live = msg.payload.filter((d) => !d.uninitialised && d.channels.length > 0);\nflow.set('devices', live.map((d) => d.id));\nflow.set('switchDevices', live.filter((d) => d.switches.length > 0).map((d) => d.id));\nreturn null;`, [], 160),
    fn(ID.longFanOut, 'one msg per device', `${probe}const devices = flow.get('devices') || [];\nprobe.trigger('long', devices.length);\nreturn [devices.map((deviceId) => ({ deviceId }))];`, [[ID.long]], 200),
    follow(ID.long, 'long energy (5 min)', 'long', 2, [[ID.recordLong]], 200),
    fn(ID.recordLong, 'record', `${probe}probe.long(msg);\nreturn null;`, [], 200),

    inject(ID.every3min, 'every 3 min', 180, undefined, [[ID.nextSwitch]], 280),
    fn(ID.nextSwitch, 'next switch', `${probe}const devices = flow.get('switchDevices') || [];\nif (devices.length === 0) return null;\nconst i = (context.get('i') || 0) % devices.length;\ncontext.set('i', i + 1);\nprobe.switchIssued(devices[i]);\nreturn { deviceId: devices[i], switchId: 1, payload: 'toggle' };`, [[ID.switchControl]], 280),
    { id: ID.switchControl, type: 'energy-switch-control', z: ID.tab, name: 'switch 1', configVersion: 1, api: ID.api, deviceId: '', switchId: '', timeout: 180, x: 800, y: 280, wires: [[ID.recordSwitch], [ID.recordSwitch]] },
    fn(ID.recordSwitch, 'record', `${probe}probe.switchDone(msg.confirmed ? 'confirmed' : 'notConfirmed');\nreturn null;`, [], 280),

    { id: ID.catchAll, type: 'catch', z: ID.tab, name: 'every error', scope: null, uncaught: false, x: 150, y: 360, wires: [[ID.recordError]] },
    fn(ID.recordError, 'record', `${probe}probe.error(msg);\nreturn null;`, [], 360),
  ];
}

module.exports = { fleetFlow, FLOW_IDS: ID, FIRST_SHORT_S, FIRST_LONG_S };
