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
      const slot = (i) => {
        const start = either(() => pick([nowS + i * 1800, (nowS + i * 1800) * 1000, new Date((nowS + i * 1800) * 1000).toISOString(), nowS + i * 900]), 0.1);
        const item = { start, price: either(() => pick([0.2, '0.31', -0.05, 0, '1.234567', '0.1234567', 'abc', 1e9]), 0.15) };
        if (chance(0.3)) item.end = either(() => nowS + (i + pick([1, 1, 1, 2, 0])) * 1800, 0.1);
        if (chance(0.3)) item.exportPrice = either(() => pick([0.05, -0.1, '0.08', 'x']), 0.2);
        return item;
      };
      const list = () => Array.from({ length: int(0, 40) }, (_, i) => slot(i));
      const iso = (t) => (typeof t === 'number' && Number.isFinite(t) && t > 0 && t < 1e11 ? new Date(t * 1000).toISOString() : t);
      const msg = pick([
        () => ({ prices: list() }),
        () => ({ payload: { priceData: list().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) } }),
        () => ({ payload: { viewer: { homes: [{ currentSubscription: { priceInfo: { today: list().map(({ start, price }) => ({ startsAt: iso(start), total: price })) } } }] } } }),
        () => ({ payload: list().map(({ start, price }) => ({ timestamp: iso(start), price, currency: 'EUR', area: 'NO1' })) }),
        () => ({ data: { attributes: { raw_today: list().map(({ start, end, price }) => ({ start: iso(start), end: iso(end), value: price })) } } }),
        () => ({ prices: bad() }),
        () => ({ payload: bad() }),
        () => ({}),
      ])();
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

module.exports = { fuzzer, ONE_MB };
