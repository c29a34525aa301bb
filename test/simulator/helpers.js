'use strict';
const { startSimulator, SIM_KEYS, SIM_DEVICES } = require('../../dist/simulator/index.js');

/** 2026-01-15T10:07:00Z: a fixed instant for frozen-clock tests. */
const T0 = Date.UTC(2026, 0, 15, 10, 7, 0) / 1000;

async function start(opts = {}) {
  const sim = await startSimulator({ now: T0, tps: 1000, ...opts });
  const call = async (method, path, { key = SIM_KEYS.full, body, headers = {}, raw } = {}) => {
    const h = { ...headers };
    if (key !== null) h.Authorization = `Bearer ${key}`;
    let payload;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (!('Content-Type' in h)) h['Content-Type'] = 'application/json';
    }
    const res = await fetch((raw ? sim.url : sim.baseUrl) + path, { method, headers: h, body: payload });
    const text = await res.text();
    let json;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    return { status: res.status, headers: res.headers, text, body: json };
  };
  return {
    sim,
    get: (path, o) => call('GET', path, o),
    patch: (path, body, o = {}) => call('PATCH', path, { ...o, body }),
    call,
  };
}

const sum = (entries, field) => entries.reduce((acc, e) => e[field].map((v, i) => (acc[i] ?? 0) + v), []);

module.exports = { start, T0, SIM_KEYS, SIM_DEVICES, sum };
