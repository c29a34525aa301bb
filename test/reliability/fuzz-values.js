'use strict';
// Seeded generators of random and adversarial msg properties for the fuzz suite.
const { SIM_DEVICES } = require('../../dist/simulator');

/** mulberry32: the seed alone decides every message. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONE_MB = 'x'.repeat(1024 * 1024);
const ONE_MB_ID = `D${'0'.repeat(1024 * 1024)}`;

function deep(levels, leaf = 1) {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}
function deepArray(levels) {
  let value = [];
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
function circular() {
  const o = { name: 'loop' };
  o.self = o;
  return o;
}
const DEEP = deep(5000);
const DEEP_ARRAY = deepArray(3000);
const BIG_ARRAY = new Array(100000).fill(0);

/** Values that break naive code: each a fresh object where it matters (nodes may mutate msgs). */
const ADVERSARIAL = [
  () => undefined, () => null, () => true, () => false, () => 0, () => -1, () => 1.5, () => NaN, () => Infinity, () => -Infinity,
  () => 1e20, () => -1e20, () => Number.MAX_SAFE_INTEGER, () => Number.MAX_VALUE, () => 8.64e15, () => 8.64e15 + 1, () => -0,
  () => 5n, () => 10n ** 30n, () => '', () => ' ', () => 'abc', () => ONE_MB, () => '\u0000', () => '\n\r\t', () => 'ü', () => '💡',
  () => '../devices', () => '?', () => '#', () => '/', () => '%2F', () => '__proto__', () => 'constructor', () => 'toString',
  () => new Date(NaN), () => new Date(8.64e15), () => new Date(-8.64e15), () => new Date(Date.UTC(9999, 0, 1)),
  () => [], () => [1, 2, 3], () => ({}), () => JSON.parse('{"__proto__":{"polluted":"yes"}}'),
  () => ({ constructor: { prototype: { polluted: 'yes' } } }), () => JSON.parse('{"constructor":{"prototype":{"polluted":"yes"}}}'),
  () => DEEP, () => DEEP_ARRAY, () => circular(), () => () => 'fn', () => Symbol('s'),
  () => ({ toString() { throw new Error('toString exploded'); } }), () => ({ [Symbol.toPrimitive]() { throw new TypeError('no primitive'); } }),
  () => Object.create(null), () => new Map([[1, 2]]), () => Buffer.from('buf'), () => ({ valueOf: () => 42 }),
  () => BIG_ARRAY, () => ({ length: 1e9 }),
];

const REAL = Object.values(SIM_DEVICES).filter((id) => id !== SIM_DEVICES.forbidden);
/** Malformed and path-like device ids: every one must be refused before a request. */
const BAD_IDS = [
  '', ' ', 'D', 'd630000000002', '../devices', 'D630000000002/../../devices', 'D6S000000000?', 'D6S00000000#2', 'D6S/000000002',
  'D6S 000000002', 'D6S00000000ü2', 'D6S0000000💡', `${SIM_DEVICES.meter3M}?x=1`, `${SIM_DEVICES.meter3M}#`, `${SIM_DEVICES.meter3M}/`,
  `${SIM_DEVICES.meter3M}%2F`, '%2e%2e', 'A000000000000', 'D6S00000000021', ONE_MB_ID, 'B300000000001\u0000', '\u202eB3M0000000001',
];
const TIMEZONES = ['Europe/Berlin', 'UTC', 'Australia/Sydney', 'europe/berlin', 'EUROPE/BERLIN', 'utc', 'Mars/Olympus', '+02:00', 'Etc/GMT+5', 'local', 'system', 'Z'];
const GRANULARITIES = ['5m', '15m', '30m', 'hour', 'day', 'week', 'month', '1m', 'HOUR', 'year', '5M', 'minute'];

/** Valid device ids no msg may leave a row of in the store (their msgs each hold a broken entry). */
const POISONED = ['D6P0000000001', 'D6P0000000002', 'B3P0000000003'];

/** A fuzzer bound to one seed and the simulator's frozen time (unix seconds). */
function fuzzer(seed, nowS) {
  const random = prng(seed);
  const chance = (p) => random() < p;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const bad = () => pick(ADVERSARIAL)();
  /** Sensible-looking most of the time, adversarial otherwise. */
  const either = (good, p = 0.3) => (chance(p) ? bad() : good());

  const deviceId = (pool = REAL) => (chance(0.25) ? (chance(0.2) ? bad() : pick(BAD_IDS)) : chance(0.1) ? ` ${pick(pool)} ` : pick(pool));
  const time = () => pick([
    () => nowS - int(0, 30) * 3600,
    () => (nowS - int(0, 30) * 3600) * 1000,
    () => nowS - int(1, 3) * 86400,
    () => pick(['-1h', '-24h', '-2d', 'now', 'today', 'yesterday', '-90d', '-400d', '-10y', '+1h', '-1x', 'soon', '2025-13-45', '9999-12-31T00:00:00Z']),
    () => new Date((nowS - int(0, 48) * 3600) * 1000).toISOString(),
    () => new Date((nowS - int(0, 48) * 3600) * 1000),
    () => pick([0, -1, 1, 1e20, -1e20, NaN, Infinity, 8.64e12, 8.64e15, 253402300800, 253402300800000, 1e12]),
  ])();
  const timezone = () => either(() => pick(TIMEZONES), 0.2);
  const granularity = () => either(() => pick(GRANULARITIES), 0.2);
  /** A random subset of extra keys, some adversarial names. */
  const noise = (msg) => {
    if (chance(0.2)) msg[pick(['topic', 'payload', 'extra', 'constructor', 'prototype', '__proto__x', 'req', 'res'])] = bad();
    if (chance(0.03)) Object.assign(msg, JSON.parse('{"__proto__":{"polluted":"yes"}}'));
    if (chance(0.02)) msg.nested = DEEP;
    return msg;
  };
  const set = (msg, name, value) => { if (value !== undefined) msg[name] = value; };

  /** One price slot, sensible or broken (bad prices, overlaps, gaps) or adversarial. */
  const slot = (i) => {
    const start = either(() => pick([nowS + i * 1800, (nowS + i * 1800) * 1000, new Date((nowS + i * 1800) * 1000).toISOString(), nowS + i * 900]), 0.1);
    const item = { start, price: either(() => pick([0.2, '0.31', -0.05, 0, '1.234567', '0.1234567', 'abc', 1e9]), 0.15) };
    if (chance(0.3)) item.end = either(() => nowS + (i + pick([1, 1, 1, 2, 0])) * 1800, 0.1);
    if (chance(0.3)) item.exportPrice = either(() => pick([0.05, -0.1, '0.08', 'x']), 0.2);
    return item;
  };
  const priceList = () => Array.from({ length: int(0, 40) }, (_, i) => slot(i));
  const iso = (t) => (typeof t === 'number' && Number.isFinite(t) && t > 0 && t < 1e11 ? new Date(t * 1000).toISOString() : t);
  /** A msg.prices value in one of the shapes the price normaliser reads (energy-cost, energy-load-control). */
  const priceValue = () => pick([
    () => priceList(),
    () => ({ priceData: priceList().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) }),
    () => ({ viewer: { homes: [{ currentSubscription: { priceInfo: { today: priceList().map(({ start, price }) => ({ startsAt: iso(start), total: price })) } } }] } }),
    () => priceList().map(({ start, price }) => ({ timestamp: iso(start), price, currency: 'AUD', area: 'NSW1' })),
    () => ({ attributes: { raw_today: priceList().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) } }),
    () => [{ start: nowS - 86400, price: '0.25' }],
    () => bad(),
  ])();

  /** Per-channel values: whole Joules, or the kWh / kW energy-query converts them to. */
  const channelValues = (channels, scale) => Array.from({ length: channels }, () => either(() => Math.round(int(-2_000_000, 6_000_000) * scale * 1e6) / 1e6, 0.03));
  /** One energy entry as energy-query emits it (timestamp = the END of `duration`), in J, kWh or kW. */
  const energyEntry = (ts, duration, channels, unit) => {
    const e = { timestamp: ts, duration };
    const [suffix, prefix, scale] = unit === 'kWh' ? ['Kwh', 'e', 1 / 3_600_000] : unit === 'kW' ? ['Kw', 'p', 1 / (1000 * duration)] : ['', 'e', 1];
    const name = (field) => `${prefix}${field}${suffix}`;
    const net = channelValues(channels, scale);
    e[name('Real')] = net;
    if (chance(0.7)) {
      e[name('RealPositive')] = net.map((v) => (typeof v === 'number' ? Math.max(v, 0) : v));
      e[name('RealNegative')] = net.map((v) => (typeof v === 'number' ? Math.max(-v, 0) : v));
    }
    if (chance(0.4)) e[name('Reactive')] = channelValues(channels, scale);
    if (chance(0.5)) e.frequency = either(() => pick([50, 49.98, 60.01, null]), 0.05);
    if (chance(0.4)) {
      e.vRMS = Array.from({ length: channels }, () => either(() => 230 + int(-10, 10), 0.05));
      e.iRMS = Array.from({ length: channels }, () => int(0, 40) / 10);
    }
    return e;
  };
  /** Entries no query emits: each must be refused, with the whole msg it came in. */
  const brokenEntry = () => pick([
    () => ({ timestamp: nowS + 0.5, duration: 300, eReal: [1] }),
    () => ({ timestamp: nowS, duration: 0, eReal: [1] }),
    () => ({ timestamp: nowS, duration: -300, eReal: [1] }),
    () => ({ timestamp: nowS, duration: 300 }),
    () => ({ timestamp: nowS, duration: 300, eReal: 'lots' }),
    () => ({ timestamp: nowS, duration: 300, eReal: [NaN] }),
    () => ({ timestamp: nowS, duration: 300, eReal: ['1'] }),
    () => ({ timestamp: nowS, duration: 300, eReal: new Array(65).fill(1) }),
    () => ({ timestamp: nowS, duration: 300, eReal: [1], groupedBy: 'phases' }),
    () => ({ timestamp: nowS, duration: 300, eReal: [1], frequency: 'fifty' }),
    () => ({ timestamp: nowS, duration: 300, eReal: [1, 2, 3], eRealPositive: [1, 2, 3, 4, 5, 6] }),
    () => ({ series: 'Grid', x: nowS * 1000, y: 1 }),
    () => ({ timestamp: -300, duration: 300, eReal: [1] }),
    () => ({ timestamp: 1e20, duration: 300, eReal: [1] }),
    () => ({ timestamp: `${nowS}`, duration: 300, eReal: [1] }),
    () => bad(),
  ])();
  /** Entries that are valid but extreme: a long span, a far past or future, one huge value. */
  const extremeEntry = () => pick([
    () => ({ timestamp: nowS, duration: 400 * 86400, eReal: [1e9], eRealPositive: [1e9], eRealNegative: [0] }),
    () => ({ timestamp: Number.MAX_SAFE_INTEGER, duration: 300, eReal: [1] }),
    () => ({ timestamp: 8.64e12, duration: 1e12, eReal: [1] }),
    () => ({ timestamp: 253402300800, duration: 86400, eReal: [1] }),
    () => ({ timestamp: 300, duration: 300, eReal: [1] }),
    () => ({ timestamp: nowS, duration: 300, eReal: [Number.MAX_VALUE] }),
    () => ({ timestamp: nowS, duration: 300, eReal: [1e300], eRealPositive: [1e300], eRealNegative: [-1e300] }),
    () => ({ timestamp: nowS, duration: 300, eReal: [] }),
  ])();
  const STEPS = { short: 30, '5m': 300, '15m': 900, '30m': 1800, hour: 3600, day: 86400 };
  /**
   * A msg as energy-query sends one (entries, pages, split or follow output: msg.payload, deviceId, kind,
   * granularity, timezone, topic, parts), mostly sensible; `devices` are the ids it may come from.
   */
  const queryOutput = (devices) => {
    const kind = chance(0.3) ? 'short' : 'long';
    const gran = kind === 'short' ? undefined : pick(['5m', '5m', '15m', '30m', 'hour', 'day']);
    const step = STEPS[gran ?? 'short'];
    const channels = pick([3, 6, 6, 1]);
    const unit = pick(['J', 'J', 'J', 'kWh', 'kW']);
    const newest = Math.floor(nowS / step) * step - int(0, 48) * step;
    const count = pick([1, int(1, 12), int(1, 300), 0]);
    const entries = Array.from({ length: count }, (_, i) => energyEntry(newest - (count - 1 - i) * step, step, channels, unit));
    if (entries.length && chance(0.05)) entries[int(0, entries.length - 1)] = extremeEntry();
    if (chance(0.05)) entries.push(entries[0]);
    const device = chance(0.85) ? pick(devices) : deviceId();
    const msg = { deviceId: device, kind, timezone: either(() => pick(['Australia/Sydney', 'Europe/Berlin', 'UTC']), 0.1), fromTs: newest - count * step, toTs: newest };
    if (gran) msg.granularity = gran;
    if (chance(0.1)) msg.kind = either(() => pick(['short', 'long', 'medium']), 0.5);
    if (chance(0.1)) msg.granularity = granularity();
    const output = pick(['entries', 'entries', 'pages', 'split', 'follow']);
    if (output === 'split' || (output === 'follow' && chance(0.5))) {
      msg.payload = entries[0] ?? energyEntry(newest, step, channels, unit);
      msg.topic = device;
      msg.timestamp = msg.payload.timestamp * 1000;
    } else {
      msg.payload = entries;
      if (output === 'pages') {
        msg.topic = device;
        msg.parts = { id: `p${int(0, 1e6)}`, type: 'array', index: int(0, 3), count: 4, len: Math.max(2, entries.length) };
      }
    }
    if (chance(0.08)) msg.payload = bad();
    return msg;
  };

  return {
    random, pick, chance, bad,
    status() {
      const msg = {};
      if (chance(0.8)) set(msg, 'deviceId', deviceId());
      return noise(msg);
    },
    query() {
      const msg = {};
      if (chance(0.8)) set(msg, 'deviceId', deviceId());
      if (chance(0.7)) set(msg, 'kind', either(() => pick(['short', 'long', 'medium']), 0.2));
      if (chance(0.3)) set(msg, 'query', either(() => pick(['range', 'first', 'latest', 'all']), 0.2));
      if (chance(0.7)) set(msg, 'fromTs', time());
      if (chance(0.6)) set(msg, 'toTs', time());
      if (chance(0.5)) set(msg, 'granularity', granularity());
      if (chance(0.3)) set(msg, 'timezone', timezone());
      if (chance(0.2)) set(msg, 'convert', either(() => pick(['kWh', 'kW', 'MWh']), 0.3));
      if (chance(0.15)) set(msg, 'powerFactor', either(() => pick([true, false, 'true']), 0.3));
      if (chance(0.15)) set(msg, 'groupByPhase', either(() => pick([true, false, 'false']), 0.3));
      return noise(msg);
    },
    switchCmd() {
      const msg = { payload: either(() => pick(['open', 'closed', 'toggle', 'on', 'off', true, false, 1, 0, 'ON', 'Open ', 'maybe', 2])) };
      if (chance(0.7)) set(msg, 'deviceId', deviceId([SIM_DEVICES.switch6M3SW, SIM_DEVICES.switch6M3SW, SIM_DEVICES.meter3M, SIM_DEVICES.modbus6MOne, SIM_DEVICES.uninitialised]));
      if (chance(0.6)) set(msg, 'switchId', either(() => pick([1, 2, 3, 4, 0, -1, '2', `${SIM_DEVICES.switch6M3SW}_S2`, `${SIM_DEVICES.switch6M3SW}_S9`, 'D630000000002_S1/../x', `${SIM_DEVICES.meter3M}_S1`])));
      return noise(msg);
    },
    wifi(psk) {
      const good = () => pick([
        () => ({ ssid: pick(['lab-net', 'café', 'x'.repeat(32), 'x'.repeat(33), '', 'net\u0000', 'tab\tnet', 'line\nnet']), psk }),
        () => ({ ssid: 'lab-net', psk: pick([psk, 'short', `${psk}\u0007`, `${psk}\n`, 'a'.repeat(64), 'g'.repeat(64), 'x'.repeat(70)]) }),
        () => ({ ssid: '', psk: '' }),
        () => ({ ssid: 'lab-net' }),
        () => ({ ssid: 5, psk }),
        () => ({ ssid: 'lab-net', psk: 12345678 }),
        () => ({ ssid: ONE_MB, psk }),
      ])();
      const msg = { payload: either(good, 0.2) };
      if (chance(0.7)) set(msg, 'deviceId', deviceId([SIM_DEVICES.wifi6MW, SIM_DEVICES.cer6MWCER, SIM_DEVICES.meter3M, SIM_DEVICES.uninitialised]));
      return noise(msg);
    },
    modbus() {
      const msg = {};
      if (chance(0.7)) set(msg, 'deviceId', deviceId([SIM_DEVICES.modbus6MOne, SIM_DEVICES.modbus6MOne, SIM_DEVICES.meter3M]));
      if (chance(0.3)) set(msg, 'query', either(() => pick(['range', 'first', 'latest', 'middle'])));
      if (chance(0.7)) set(msg, 'fromTs', time());
      if (chance(0.6)) set(msg, 'toTs', time());
      if (chance(0.3)) set(msg, 'scale', either(() => pick(['raw', 'units', 'kWh'])));
      if (chance(0.2)) set(msg, 'timezone', timezone());
      return noise(msg);
    },
    patch(deviceIdValue) {
      const channel = () => ({
        id: either(() => pick([1, 2, 3, 7, '1', `${deviceIdValue}_C2`, 'C1', '../C1'])),
        ...(chance(0.6) ? { label: either(() => pick(['Mains', 'x'.repeat(40), 'x'.repeat(41), '', 'tab\t', 'ü'])) } : {}),
        ...(chance(0.4) ? { ctRating: either(() => pick([50, 100, 120, 200, 400, 3000, 0, -5, 99.5])) } : {}),
        ...(chance(0.2) ? { categoryId: either(() => pick([1, 2, 3, 99, 0])) } : {}),
      });
      const body = pick([
        () => ({ label: either(() => pick(['Workshop', '', 'x'.repeat(100), 'x'.repeat(40)])) }),
        () => ({ channels: Array.from({ length: int(0, 3) }, channel) }),
        () => ({ switches: [{ id: either(() => pick([1, 2, '3', 9])), label: either(() => pick(['Heater', ''])) }] }),
        () => ({ switches: [{ id: 1, state: 'open' }] }),
        () => ({ comms: { wifi: { ssid: 'x', psk: 'secretsecret' } } }),
        () => ({ phases: { grouping: [{ included: [1, 2, 3] }] } }),
        () => ({ timezone: timezone() }),
        () => ({ unknownField: 1 }),
        () => ({}),
        () => JSON.parse('{"__proto__":{"polluted":"yes"},"label":"p"}'),
        () => ({ constructor: { prototype: { polluted: 'yes' } } }),
        () => ({ label: 'deep', extra: DEEP }),
        () => ({ label: circular() }),
        () => ({ label: 5n }),
      ])();
      return either(() => body, 0.15);
    },
    /** Price lists in every shape energy-price reads, sensible, broken (bad prices, overlaps, gaps) or adversarial. */
    prices() {
      const msg = pick([
        () => ({ prices: priceList() }),
        () => ({ payload: { priceData: priceList().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) } }),
        () => ({ payload: { viewer: { homes: [{ currentSubscription: { priceInfo: { today: priceList().map(({ start, price }) => ({ startsAt: iso(start), total: price })) } } }] } } }),
        () => ({ payload: priceList().map(({ start, price }) => ({ timestamp: iso(start), price, currency: 'EUR', area: 'NO1' })) }),
        () => ({ data: { attributes: { raw_today: priceList().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) } } }),
        () => ({ prices: bad() }),
        () => ({ payload: bad() }),
        () => ({}),
      ])();
      return noise(msg);
    },
    /** energy-cost: energy-query's outputs, with msg.prices (and msg.exportPrices) in the shapes the normaliser reads. */
    cost() {
      const msg = queryOutput([SIM_DEVICES.meter3M, SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW, SIM_DEVICES.uninitialised]);
      if (chance(0.4)) set(msg, 'prices', priceValue());
      if (chance(0.1)) set(msg, 'exportPrices', priceValue());
      if (chance(0.1)) set(msg, 'timezone', timezone());
      return noise(msg);
    },
    /** energy-load-control: commands (on/off/auto/evaluate, msg.duration) and price lists. */
    loadControl() {
      const msg = {};
      if (chance(0.8)) set(msg, 'payload', either(() => pick(['on', 'off', 'auto', 'auto', 'evaluate', 'evaluate', 'ON', ' Auto ', 'closed', 'open', true, false, 'toggle', 'stop', ''])));
      if (chance(0.3)) set(msg, 'duration', either(() => pick([60, 600, '120', 3600, 0, -5, 1e9, 'x', null, '', 0.001])));
      if (chance(0.25)) set(msg, 'prices', priceValue());
      return noise(msg);
    },
    /**
     * energy-store: energy-query's outputs to write, reads (msg.topic "read"), resumes and garbage. Some
     * writes carry one broken entry among good ones, from a POISONED device: the whole msg must be refused,
     * so no row of such a device may exist afterwards.
     */
    store() {
      const writers = [SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW, SIM_DEVICES.modbus6MOne];
      return noise(pick([
        () => queryOutput(writers),
        () => queryOutput(writers),
        () => queryOutput(writers),
        () => {
          const msg = queryOutput([pick(POISONED)]);
          msg.deviceId = pick(POISONED);
          delete msg.topic;
          const entries = Array.isArray(msg.payload) ? msg.payload : [];
          entries.splice(int(0, entries.length), 0, brokenEntry());
          msg.payload = entries;
          return msg;
        },
        () => {
          const msg = { topic: 'read' };
          set(msg, 'deviceId', chance(0.8) ? pick(writers) : deviceId());
          if (chance(0.7)) set(msg, 'kind', either(() => pick(['short', 'long']), 0.2));
          if (chance(0.3)) set(msg, 'query', either(() => pick(['range', 'first', 'latest']), 0.2));
          if (chance(0.7)) set(msg, 'fromTs', time());
          if (chance(0.6)) set(msg, 'toTs', time());
          if (chance(0.5)) set(msg, 'granularity', granularity());
          if (chance(0.3)) set(msg, 'timezone', timezone());
          if (chance(0.4)) set(msg, 'output', either(() => pick(['entries', 'split', 'pages', 'chart']), 0.2));
          if (chance(0.2)) set(msg, 'convert', either(() => pick(['kWh', 'kW', 'MWh']), 0.3));
          if (chance(0.2)) set(msg, 'channels', either(() => pick(['1', '1,2', [1, 3], '9', 'x'])));
          if (chance(0.1)) set(msg, 'groupByPhase', either(() => pick([true, false]), 0.3));
          return msg;
        },
        () => ({ topic: 'resume', ...(chance(0.5) ? { deviceId: deviceId(writers) } : {}), ...(chance(0.5) ? { kind: either(() => pick(['short', 'long'])) } : {}) }),
        () => ({ payload: bad(), deviceId: deviceId(writers), kind: either(() => pick(['short', 'long'])) }),
      ])());
    },
    /** energy-mqtt: its two commands, in any case and spacing, and anything else. */
    mqtt() {
      const msg = {};
      if (chance(0.9)) set(msg, 'payload', either(() => pick(['refresh', 'refresh', 'republish', ' Refresh ', 'REPUBLISH', 'refresh\n', 'reload', 'on', ''])));
      return noise(msg);
    },
    config() {
      const id = deviceId([SIM_DEVICES.meter3M, SIM_DEVICES.switch6M3SW, SIM_DEVICES.wifi6MW, SIM_DEVICES.rogowski3RM, SIM_DEVICES.uninitialised]);
      const msg = { payload: this.patch(typeof id === 'string' ? id.trim() : 'D') };
      if (chance(0.8)) set(msg, 'deviceId', id);
      return noise(msg);
    },
  };
}

module.exports = { fuzzer, ONE_MB, POISONED };
