'use strict';
// energy-price in a real Node-RED runtime against the simulator's Amber-compatible endpoint, on the
// simulator's clock: Amber polled into msg.prices, at most once a minute, 429s kept to, other price
// nodes' shapes converted, and bad lists refused whole with the slot named.
const assert = require('node:assert/strict');
const {
  startServer, stopServer, startClockedSimulator, flowWith, messagesOf, statusesOf, until, loggedText, assertNoKey, helper, TEST_NOW_S,
} = require('../support/env');
const { SIM_AMBER_KEY, SIM_DEVICES, amberSiteId } = require('../../dist/simulator');

const SITE = amberSiteId(SIM_DEVICES.switch6M3SW);

describe('energy-price (Node-RED, simulator clock)', function () {
  this.timeout(20000);
  let sim;
  before(async function () { sim = await startClockedSimulator(); });
  before(function (done) { startServer(done); });
  after(async function () {
    await stopServer();
    await sim.close();
  });
  beforeEach(function () { sim.control.reset(); }); // the clock is frozen at TEST_NOW_S again
  afterEach(async function () { await helper.unload(); });

  const priceNode = (props = {}) => ({
    id: 'price', type: 'energy-price', name: '', source: 'amber', baseUrl: sim.amberUrl, siteId: SITE, resolution: 30, ahead: 24,
    timezone: 'Australia/Sydney', poll: false, wires: [['out']], ...props,
  });
  const load = (props) => flowWith(sim, [priceNode(props)], { credentials: { api: { apiKey: sim.keys.full }, price: { apiKey: SIM_AMBER_KEY } } });
  const amberRequests = () => sim.control.log().filter((r) => r.path.startsWith('/amber/v1/'));

  it('asks Amber for today since local midnight and 24 h ahead, and sends msg.prices in the one shape', async function () {
    const nodes = await load();
    const out = messagesOf(nodes.out);
    nodes.price.receive({ payload: 'go' });
    await until(() => out.length === 1);
    const [request] = amberRequests();
    // 13:00:12 in Sydney: 26 half hours since midnight, 48 ahead.
    assert.deepEqual(request.query, { next: '48', previous: '26', resolution: '30' });
    const msg = out[0];
    assert.equal(msg.prices.length, 75);
    assert.equal(msg.prices[0].start, Date.UTC(2026, 6, 14, 14, 0) / 1000, 'local midnight');
    assert.equal(msg.prices[26].start, Date.UTC(2026, 6, 15, 3, 0) / 1000, 'the current interval');
    assert.equal(msg.payload, msg.prices[26].price);
    assert.equal(msg.prices[26].estimate, true);
    assert.equal(typeof msg.prices[26].exportPrice, 'number');
    assert.deepEqual([msg.source, msg.siteId, msg.resolution, msg.currency, msg.topic, msg.timestamp], ['amber', SITE, 30, 'AUD', SITE, TEST_NOW_S]);
    // Amber's own answer, read alongside: c/kWh ÷ 100.
    const raw = await (await fetch(`${sim.amberUrl}/sites/${SITE}/prices/current?resolution=30`, { headers: { Authorization: `Bearer ${SIM_AMBER_KEY}` } })).json();
    assert.equal(msg.payload, Math.round(raw[0].perKwh * 10000) / 1e6);
    assert.equal(msg.exportPrice, -Math.round(raw[1].perKwh * 10000) / 1e6);
  });

  it('at most once a minute: a msg within the minute sends the last list again without asking', async function () {
    const nodes = await load();
    const out = messagesOf(nodes.out);
    nodes.price.receive({});
    await until(() => out.length === 1);
    sim.control.setClock({ advance: 59 });
    nodes.price.receive({});
    await until(() => out.length === 2);
    assert.equal(amberRequests().length, 1);
    sim.control.setClock({ advance: 1 });
    nodes.price.receive({});
    await until(() => out.length === 3);
    assert.equal(amberRequests().length, 2);
  });

  it('a 429 reaches a Catch node with a red status; nothing is sent on the key until Amber\'s window resets', async function () {
    sim.control.setAmberLimits({ limit: 0, windowS: 300 });
    const nodes = await load();
    const statuses = statusesOf(nodes.price);
    const caught = messagesOf(nodes.caught);
    nodes.price.receive({});
    await until(() => caught.length === 1);
    assert.equal(caught[0].apiError.status, 429);
    assert.equal(caught[0].apiError.name, 'OutsideServiceError', 'Amber\'s error, not the energy API\'s');
    assert.equal(caught[0].apiError.provider, 'Amber');
    assert.match(caught[0].error.message, /rate limit for key …/);
    assert.match(statuses.at(-1).text, /429 TOO_MANY_REQUESTS/);
    assert.equal(statuses.at(-1).fill, 'red');
    sim.control.setAmberLimits({ limit: 50, windowS: 300 });
    sim.control.setClock({ advance: 120 });
    nodes.price.receive({});
    await until(() => caught.length === 2);
    assert.equal(caught[1].apiError.code, 'RATE_LIMITED');
    assert.equal(amberRequests().length, 1, 'the second was not sent: the window reset is 180 s away');
    sim.control.setClock({ advance: 180 });
    const out = messagesOf(nodes.out);
    nodes.price.receive({});
    await until(() => out.length === 1);
    assertNoKey(SIM_AMBER_KEY, loggedText(), caught, out, statuses);
  });

  it('converts other price nodes\' msgs: a Tibber answer on msg.payload becomes msg.prices', async function () {
    const nodes = await load({ source: 'messages', siteId: '' });
    const out = messagesOf(nodes.out);
    const priceInfo = { today: [{ total: 0.2494, startsAt: '2026-07-15T00:00:00.000+02:00' }, { total: 0.2209, startsAt: '2026-07-15T01:00:00.000+02:00' }] };
    nodes.price.receive({ payload: { viewer: { homes: [{ currentSubscription: { priceInfo } }] } } });
    await until(() => out.length === 1);
    assert.equal(out[0].source, 'tibber');
    assert.deepEqual(out[0].prices, [
      { start: Date.UTC(2026, 6, 14, 22) / 1000, end: Date.UTC(2026, 6, 14, 23) / 1000, price: 0.2494 },
      { start: Date.UTC(2026, 6, 14, 23) / 1000, end: Date.UTC(2026, 6, 15, 0) / 1000, price: 0.2209 },
    ]);
    assert.equal(out[0].payload, null, 'the list does not cover now');
    assert.equal(amberRequests().length, 0);
  });

  it('refuses a bad or partial list whole, naming the slot; a msg without prices when it only converts', async function () {
    const nodes = await load({ source: 'messages', siteId: '' });
    const out = messagesOf(nodes.out);
    const caught = messagesOf(nodes.caught);
    nodes.price.receive({ prices: [{ start: TEST_NOW_S, end: TEST_NOW_S + 1800, price: 0.2 }, { start: TEST_NOW_S + 3600, price: 0.3 }] });
    await until(() => caught.length === 1);
    assert.match(caught[0].error.message, /msg\.prices\[1\]: nothing covers .* \(a partial list\)/);
    nodes.price.receive({ payload: 42 });
    await until(() => caught.length === 2);
    assert.match(caught[1].error.message, /msg carries no price list/);
    assert.equal(out.length, 0);
  });

  it('polls at deploy when set to poll, and leaves nothing behind on close', async function () {
    const nodes = await load({ poll: true });
    const out = messagesOf(nodes.out);
    await until(() => out.length === 1);
    assert.equal(amberRequests().length, 1);
    await helper.unload();
    sim.control.setClock({ advance: 3600 });
    // Nothing was left to poll: no timer fires, no request is sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(amberRequests().length, 1);
    assert.equal(out.length, 1);
  });

  it('a node without a site id or with a bad resolution says so at deploy', async function () {
    const nodes = await load({ siteId: '', resolution: 15 });
    const caught = messagesOf(nodes.caught);
    nodes.price.receive({});
    await until(() => caught.length === 1);
    assert.match(caught[0].error.message, /resolution must be 5 or 30/);
    assert.equal(caught[0].apiError.code, 'BAD_CONFIG', 'a setting, not a request to the energy API');
  });
});
