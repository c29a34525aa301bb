'use strict';
// Property: a range split by the client equals what one unlimited request returns (no split buckets,
// no duplicates, no gaps, oldest first), for seeded random ranges, granularities and DST-changing
// timezones, under both readings of a long range (the live service's by timestamp, the spec's by
// coverage), each entry in the client's convention: stamped at the end of the period it covers. The simulator's clock is frozen at CHUNK_NOW and the client reads the same clock, so both
// reads see the same data. Replay a failure with the CHUNK_SEED and CHUNK_NOW printed below.
const assert = require('node:assert/strict');
const { EnergyApiClient, GRANULARITIES, LONG_MAX_SPAN_S } = require('../../dist/api');
const { startSimulator, SIM_DEVICES: D, SIM_KEYS: K } = require('../../dist/simulator');

const SEED = Number(process.env.CHUNK_SEED || 20261122);
/** Not on a 5-minute boundary: the current period is in progress. */
const NOW = Number(process.env.CHUNK_NOW || Date.UTC(2026, 9, 25, 1, 37, 42) / 1000);

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe(`chunked ranges equal one unlimited request (CHUNK_SEED=${SEED} CHUNK_NOW=${NOW})`, function () {
  this.timeout(120000);
  let sim;
  let client;
  /** One client per reading, each learning it from the responses. */
  const clients = {};
  const rnd = random(SEED);
  const between = (lo, hi) => Math.floor(lo + rnd() * (hi - lo));
  const LONG_EPOCH = Date.UTC(2019, 0, 2) / 1000;
  const DATA_START = Date.UTC(2024, 0, 1) / 1000;
  const LONG_HISTORY_S = NOW - LONG_EPOCH - 86400;

  before(async () => {
    // eslint-disable-next-line no-console
    console.log(`      replay with: CHUNK_SEED=${SEED} CHUNK_NOW=${NOW} (${new Date(NOW * 1000).toISOString()})`);
    sim = await startSimulator({ port: 0, tps: 100, now: NOW });
    const open = () => new EnergyApiClient({ baseUrl: sim.baseUrl, apiKey: K.full, tps: 100, now: () => sim.control.now() * 1000 });
    client = open();
    clients.timestamp = open();
    clients.coverage = open();
  });
  after(async () => {
    await Promise.all([client, clients.timestamp, clients.coverage].map((c) => c.close()));
    await sim.close();
  });

  /** One request with the span limits lifted: the reference. */
  async function unlimited(path, params, longWindow = 'timestamp') {
    sim.control.setLimits({ spanLimits: false, longWindow });
    try {
      const query = Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const res = await fetch(`${sim.baseUrl}${path}?${query}`, { headers: { Authorization: `Bearer ${K.full}` } });
      assert.ok(res.status === 200 || res.status === 204, `reference answered ${res.status}`);
      return res.status === 204 ? [] : res.json();
    } finally {
      sim.control.setLimits({ spanLimits: true, longWindow: 'timestamp' });
    }
  }

  /**
   * The long entries of [fromTs, toTs) in the client's convention, from one unlimited request: 5-minute
   * periods inside the range are what the spec's reading returns; the live reading's coarse entries are
   * labelled with their first record (covering the 5 minutes before it), so they end at label - 300 + duration.
   */
  async function reference(path, params, granularity, reading) {
    if (granularity === '5m' || reading === 'coverage') return unlimited(path, params, 'coverage');
    return (await unlimited(path, params, 'timestamp')).map((e) => ({ ...e, timestamp: e.timestamp - 300 + e.duration }));
  }

  // Each granularity and timezone twice: once ending before now, once covering the period in progress.
  // Each granularity gets both readings, each once ending before now and once covering now.
  const cases = [];
  for (const timezone of ['Australia/Sydney', 'Europe/Berlin']) {
    for (const granularity of GRANULARITIES) {
      for (const covering of [false, true]) {
        // Longer than the span limit, so that it is split, as far as the years since 2019 allow.
        const span = Math.floor(Math.min(LONG_MAX_SPAN_S[granularity] * (1.2 + rnd() * 1.5), LONG_HISTORY_S));
        const reading = covering === (timezone === 'Europe/Berlin') ? 'timestamp' : 'coverage';
        cases.push({ timezone, granularity, span, covering, reading, convert: rnd() < 0.3 ? 'kWh' : undefined, groupByPhase: rnd() < 0.3 });
      }
    }
  }

  for (const c of cases) {
    const name = `long ${c.granularity} in ${c.timezone}, ${c.reading} reading, ${c.covering ? 'covering now' : 'ending before now'}${c.convert ? ' kWh' : ''}${c.groupByPhase ? ' by phase' : ''}`;
    it(name, async () => {
      let fromTs;
      let toTs;
      if (c.covering) {
        // Ends after now, so the last chunk holds the current period (and is cut where the data ends).
        toTs = NOW + between(60, 3 * 86400);
        fromTs = Math.max(LONG_EPOCH, toTs - c.span);
      } else {
        // At least half of the range lies in the simulator's data years (from 2024), ending before now.
        fromTs = between(Math.max(LONG_EPOCH, DATA_START - c.span / 2), NOW - c.span - 60);
        toTs = fromTs + c.span;
      }
      const device = D.switch6M3SW;
      sim.control.clearLog();
      sim.control.setLimits({ longWindow: c.reading });
      const merged = await clients[c.reading].getLongEnergy(device, { fromTs, toTs, granularity: c.granularity, timezone: c.timezone, convert: c.convert, groupByPhase: c.groupByPhase });
      sim.control.setLimits({ longWindow: 'timestamp' });
      assert.equal(clients[c.reading].longWindow(), c.reading, 'the client learnt the reading');
      const requests = sim.control.log().length;
      if (toTs - fromTs > LONG_MAX_SPAN_S[c.granularity] && !c.covering) assert.ok(requests >= 2, `the range was split (${requests} requests)`);
      const params = { fromTs, toTs, granularity: c.granularity, timezone: c.timezone };
      if (c.convert) params['convert[energy]'] = c.convert;
      if (c.groupByPhase) params['filter[group]'] = 'phases';
      const expected = await reference(`/long-energy/${device}`, params, c.granularity, c.reading);
      assert.ok(expected.length > 0);
      assert.deepEqual(merged, expected, `range ${fromTs}..${toTs}`);
      if (c.covering) assert.ok(merged.at(-1).timestamp <= NOW, 'nothing after now');
    });
  }

  it('short energy over random multi-day ranges, before now and covering now', async () => {
    for (let i = 0; i < 4; i++) {
      const span = between(13 * 3600, 3 * 86400);
      const covering = i % 2 === 1;
      const toTs = covering ? NOW + between(60, 3600) : between(NOW - 30 * 86400 + span, NOW - 60);
      const fromTs = toTs - span;
      const merged = await client.getShortEnergy(D.meter3M, { fromTs, toTs, powerFactor: true });
      const reference = await unlimited(`/short-energy/${D.meter3M}`, { fromTs, toTs, 'fields[energy]': '+pf' });
      assert.deepEqual(merged, reference, `range ${fromTs}..${toTs}`);
    }
  });

  it('modbus over a random range across the meter change', async () => {
    const change = Date.UTC(2026, 5, 1) / 1000;
    const fromTs = change - between(8 * 86400, 20 * 86400);
    const toTs = change + between(86400, 20 * 86400);
    const merged = await client.getModbus(D.modbus6MOne, { fromTs, toTs });
    assert.deepEqual(merged, await unlimited(`/modbus/${D.modbus6MOne}`, { fromTs, toTs }));
  });
});
