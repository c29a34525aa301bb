'use strict';
// A strict recording server for the InfluxDB 2 and 3 write APIs, which neither Debian nor npm packages: built from
// InfluxData's documentation, not from the node under test. It checks what those servers check and records what
// they would store.
//   InfluxDB 2, POST /api/v2/write?org=&bucket=&precision=ns|us|ms|s, `Authorization: Token <token>`, line protocol
//     body; 204 on success; 401 {"code":"unauthorized"}, 404 {"code":"not found"} for an unknown bucket, 400
//     {"code":"invalid"} for a malformed line or a field whose type differs from what the series holds.
//   InfluxDB 3, POST /api/v3/write_lp?db=&precision=auto|second|millisecond|microsecond|nanosecond (or s|ms|us|ns)
//     &accept_partial=&no_sync=, `Authorization: Bearer <token>` (Token accepted too); 204 on success; 401; 400 with
//     {"error": …} where, with accept_partial=false, nothing of a refused request is written.
// Line protocol: measurement[,tag=value…] field=value[,field=value…] [timestamp]; commas, spaces and equals signs
// escaped with a backslash in tags; floats bare, integers with an `i` suffix, strings in double quotes, booleans.
const http = require('node:http');

const PRECISION_V2 = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const PRECISION_V3 = { nanosecond: 1, microsecond: 1e3, millisecond: 1e6, second: 1e9, ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** Splits on `sep` outside backslash escapes and double quotes. */
function splitUnescaped(text, sep) {
  const parts = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) { current += c + text[i + 1]; i += 1; continue; }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) { parts.push(current); current = ''; continue; }
    current += c;
  }
  parts.push(current);
  return parts;
}
const unescape = (s) => s.replace(/\\(.)/g, '$1');

function parseField(raw) {
  if (/^-?\d+i$/.test(raw)) return { type: 'integer', value: Number(raw.slice(0, -1)) };
  if (/^"(.*)"$/s.test(raw)) return { type: 'string', value: raw.slice(1, -1) };
  if (/^(t|T|true|True|TRUE|f|F|false|False|FALSE)$/.test(raw)) return { type: 'boolean', value: /^t/i.test(raw) };
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) return { type: 'float', value: Number(raw) };
  throw new Error(`invalid field value ${JSON.stringify(raw)}`);
}

function parseLine(line, scale) {
  const sections = splitUnescaped(line, ' ');
  if (sections.length < 2 || sections.length > 3) throw new Error(`expected measurement, fields and timestamp: ${JSON.stringify(line.slice(0, 80))}`);
  const [series, fieldText, tsText] = sections;
  const [measurement, ...tagParts] = splitUnescaped(series, ',');
  if (!measurement) throw new Error('missing measurement');
  const tags = {};
  for (const t of tagParts) {
    const kv = splitUnescaped(t, '=');
    if (kv.length !== 2 || !kv[0] || !kv[1]) throw new Error(`invalid tag ${JSON.stringify(t)} (tag values may not be empty)`);
    tags[unescape(kv[0])] = unescape(kv[1]);
  }
  const fields = {};
  for (const f of splitUnescaped(fieldText, ',')) {
    const kv = splitUnescaped(f, '=');
    if (kv.length !== 2 || !kv[0]) throw new Error(`invalid field ${JSON.stringify(f)}`);
    fields[unescape(kv[0])] = parseField(kv[1]);
  }
  if (Object.keys(fields).length === 0) throw new Error('a point needs at least one field');
  if (tsText === undefined || !/^-?\d+$/.test(tsText)) throw new Error(`invalid timestamp ${JSON.stringify(tsText)}`);
  return { measurement: unescape(measurement), tags, fields, timeNs: Number(tsText) * scale };
}

/**
 * Starts the recorder on a free loopback port. `points` holds what was stored, keyed as InfluxDB keys a point
 * (measurement, tag set, time): writing the same point again replaces its fields.
 */
async function startInfluxRecorder({ token = 'influx-token-5d2c7e', org = 'home', bucket = 'energy', database = 'energy' } = {}) {
  const points = new Map();
  const fieldTypes = new Map();
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://recorder');
      const reply = (status, json) => {
        requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, contentType: req.headers['content-type'], status, lines: body.split('\n').length });
        res.writeHead(status, json ? { 'Content-Type': 'application/json' } : {});
        res.end(json ? JSON.stringify(json) : undefined);
      };
      const v2 = url.pathname === '/api/v2/write';
      const v3 = url.pathname === '/api/v3/write_lp';
      if (!v2 && !v3) return reply(404, { code: 'not found', message: 'path not found' });
      if (req.method !== 'POST') return reply(405, { code: 'method not allowed', message: `${req.method} not allowed` });
      const auth = req.headers.authorization || '';
      const given = v2 ? /^Token (.+)$/.exec(auth)?.[1] : /^(?:Bearer|Token) (.+)$/.exec(auth)?.[1];
      if (given !== token) return reply(401, v2 ? { code: 'unauthorized', message: 'unauthorized access' } : { error: 'unauthorized access' });
      const q = url.searchParams;
      let scale;
      if (v2) {
        if (q.get('org') !== org) return reply(404, { code: 'not found', message: `organization name "${q.get('org')}" not found` });
        if (q.get('bucket') !== bucket) return reply(404, { code: 'not found', message: `bucket "${q.get('bucket')}" not found` });
        scale = PRECISION_V2[q.get('precision') ?? 'ns'];
        if (!scale) return reply(400, { code: 'invalid', message: `invalid precision "${q.get('precision')}"` });
      } else {
        if (q.get('db') !== database) return reply(404, { error: `database not found: ${q.get('db')}` });
        const precision = q.get('precision') ?? 'auto';
        scale = precision === 'auto' ? 'auto' : PRECISION_V3[precision];
        if (!scale) return reply(400, { error: `invalid precision "${precision}"` });
        for (const flag of ['accept_partial', 'no_sync']) {
          if (q.has(flag) && !/^(true|false)$/.test(q.get(flag))) return reply(400, { error: `invalid ${flag}` });
        }
      }
      const lines = body.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
      const parsed = [];
      const failures = [];
      for (const [i, line] of lines.entries()) {
        try {
          const s = scale === 'auto' ? (Math.abs(Number(line.split(' ').at(-1))) < 5e9 ? 1e9 : 1) : scale;
          const point = parseLine(line, s);
          for (const [name, f] of Object.entries(point.fields)) {
            const known = fieldTypes.get(`${point.measurement}.${name}`) ?? parsed.find((p) => p.measurement === point.measurement && p.fields[name])?.fields[name].type;
            if (known && known !== f.type) throw new Error(`field type conflict: input field "${name}" on measurement "${point.measurement}" is type ${f.type}, already exists as type ${known}`);
          }
          parsed.push(point);
        } catch (err) {
          failures.push(`line ${i + 1}: ${err.message}`);
        }
      }
      const partial = v2 || q.get('accept_partial') !== 'false';
      if (failures.length && !partial) return reply(400, { error: 'parsing failed for write_lp endpoint', data: failures.map((m) => ({ error_message: m })) });
      for (const p of parsed) {
        for (const [name, f] of Object.entries(p.fields)) fieldTypes.set(`${p.measurement}.${name}`, f.type);
        const key = `${p.measurement},${Object.keys(p.tags).sort().map((k) => `${k}=${p.tags[k]}`).join(',')} ${p.timeNs}`;
        const known = points.get(key);
        points.set(key, { ...p, fields: { ...known?.fields, ...p.fields } });
      }
      if (failures.length) return reply(400, v2 ? { code: 'invalid', message: failures.join('; ') } : { error: 'partial write of line protocol occurred', data: failures });
      return reply(204);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    token, org, bucket, database, points, requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

module.exports = { startInfluxRecorder };
