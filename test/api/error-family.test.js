'use strict';
const assert = require('node:assert/strict');
const api = require('../../dist/api');
const { errorDetails, shortReason } = require('../../dist/nodes/shared/errors.js');
const { refused, unreachable } = require('../../dist/nodes/energy-store/backends/errors.js');
const { readPrices } = require('../../dist/domain/pricing/normalise.js');
const { buildTariff } = require('../../dist/domain/pricing/tariff.js');

describe('one error family with a common code', () => {
  it('a database failure is the store\'s member, not an EnergyApiError, and flows see it as before', () => {
    const err = refused('PostgreSQL refused: password authentication failed');
    assert.ok(err instanceof api.StoreError);
    assert.ok(err instanceof api.PackageError);
    assert.equal(api.isEnergyApiError(err), false);
    assert.equal(err.side, 'store');
    assert.equal(err.code, 'STORE_REFUSED');
    assert.deepEqual(errorDetails(err), { name: 'StoreError', message: 'PostgreSQL refused: password authentication failed', status: 0, code: 'STORE_REFUSED' });
    assert.equal(shortReason(err), 'store refused');
    assert.equal(shortReason(unreachable('InfluxDB answered 503', 503)), '503 STORE_UNREACHABLE');
  });

  it('a bad price list is a PriceError with a code; its status text is still its message', () => {
    let caught;
    try {
      readPrices([{ start: 0, end: 1800, price: 'cheap' }], { source: 'msg.prices' });
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof api.PriceError);
    assert.equal(caught.code, 'BAD_PRICES');
    assert.equal(caught.side, 'prices');
    assert.equal(errorDetails(caught).code, 'BAD_PRICES');
    assert.equal(errorDetails(caught).message, caught.message);
    assert.equal(shortReason(caught), caught.message.length > 40 ? `${caught.message.slice(0, 39)}…` : caught.message);
  });

  it('a tariff that cannot be built is a ConfigError', () => {
    assert.throws(() => buildTariff({ currency: 'not a currency code!', rows: [] }), (err) => err instanceof api.ConfigError && err.code === 'BAD_CONFIG' && err.side === 'config');
  });

  it('an outside service\'s error (Amber, a forecast source) is its own member, read by flows as the service\'s was', () => {
    const { isAborted } = require('../../dist/nodes/shared/flow-node.js');
    const err = new api.OutsideServiceError({
      provider: 'Solcast', status: 429, code: 'TOO_MANY_REQUESTS', method: 'GET', path: '/rooftop_sites/x/forecasts',
      message: '429: Solcast\'s limit for key …bcdef is reached', rateLimit: { remaining: 0, resetAt: 1800000000 },
    });
    assert.ok(err instanceof api.PackageError);
    assert.equal(api.isEnergyApiError(err), false);
    assert.equal(err.side, 'outside');
    assert.equal(err.sent, true);
    assert.deepEqual(JSON.parse(JSON.stringify(errorDetails(err))), {
      name: 'OutsideServiceError', message: err.message, status: 429, code: 'TOO_MANY_REQUESTS', provider: 'Solcast',
      rateLimit: { remaining: 0, resetAt: 1800000000 }, method: 'GET', path: '/rooftop_sites/x/forecasts',
    });
    assert.equal(shortReason(err), '429 TOO_MANY_REQUESTS');
    const spent = new api.OutsideServiceError({ provider: 'Amber', code: 'RATE_LIMITED', sent: false, message: 'Amber\'s rate limit resets in 60 s' });
    assert.equal(shortReason(spent), 'rate limited');
    assert.equal(isAborted(new api.OutsideServiceError({ provider: 'Amber', code: 'ABORTED', sent: false, message: 'Amber could not be reached: canceled' })), true);
  });

  it('Home Assistant\'s errors are on the outside side too, with their own codes', () => {
    const { HaError } = require('../../dist/ha/websocket.js');
    const err = new HaError('auth_invalid', 'Home Assistant refused the access token …x1y2z');
    assert.ok(err instanceof api.PackageError);
    assert.equal(err.side, 'outside');
    assert.deepEqual(errorDetails(err), { name: 'HaError', message: err.message, code: 'auth_invalid' });
  });

  it('a load the flow switches that did not confirm a command is a LoadError with its own code', () => {
    const err = new api.LoadError('the load did not confirm "on" within 180 s');
    assert.ok(err instanceof api.PackageError);
    assert.equal(err.side, 'load');
    assert.deepEqual(errorDetails(err), { name: 'LoadError', message: err.message, code: 'LOAD_UNCONFIRMED' });
  });

  it('the service\'s errors stay EnergyApiErrors, members of the family with their own fields', () => {
    const err = api.EnergyApiError.invalid('no device id');
    assert.ok(err instanceof api.PackageError);
    assert.equal(err.side, 'service');
    assert.deepEqual(errorDetails(err), err.toJSON());
    assert.equal(errorDetails(err).name, 'EnergyApiError');
    assert.equal(shortReason(err), 'invalid request');
  });
  it('the energy API\'s and an outside service\'s errors share one base: the same request fields, the same toJSON shape', () => {
    const request = {
      status: 429, code: 'TOO_MANY_REQUESTS', message: '429: slow down', apiMessage: 'slow down', method: 'GET', path: '/v3/devices',
      rateLimit: { limit: 2, remaining: 0, resetAt: 1800000000, scope: 'tps' },
    };
    const service = new api.EnergyApiError({ ...request, errors: [{ code: 'X', message: 'broken rule' }] });
    const outside = new api.OutsideServiceError({ ...request, provider: 'Amber' });
    for (const err of [service, outside]) {
      assert.ok(err instanceof api.HttpServiceError);
      assert.ok(api.isHttpServiceError(err));
      assert.equal(err.sent, true);
    }
    const shared = { message: '429: slow down', status: 429, code: 'TOO_MANY_REQUESTS', apiMessage: 'slow down', rateLimit: request.rateLimit, method: 'GET', path: '/v3/devices' };
    assert.deepStrictEqual(service.toJSON(), { name: 'EnergyApiError', ...shared, errors: [{ code: 'X', message: 'broken rule' }] });
    assert.deepStrictEqual(outside.toJSON(), { name: 'OutsideServiceError', ...shared, provider: 'Amber' });
    // The same keys apart from each kind's own field, so a Catch node reads both alike.
    const without = (json, key) => Object.keys(json).filter((k) => k !== key);
    assert.deepStrictEqual(without(service.toJSON(), 'errors'), without(outside.toJSON(), 'provider'));
    // A refusal made here was never sent, and says so in both; the field list of a refused request is kept as before.
    assert.equal(api.EnergyApiError.invalid('no device id').sent, false);
    assert.equal(api.OutsideServiceError.invalid('Amber', 'no key').sent, false);
    assert.deepStrictEqual(api.EnergyApiError.invalid('no device id').toJSON(), {
      name: 'EnergyApiError', message: 'no device id', status: 0, code: 'INVALID_REQUEST', apiMessage: undefined, errors: undefined,
      rateLimit: undefined, method: undefined, path: undefined,
    });
  });
});
