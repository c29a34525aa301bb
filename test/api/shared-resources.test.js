'use strict';
const assert = require('node:assert/strict');
const api = require('../../dist/api');
const { sharedBackend } = require('../../dist/nodes/energy-store/shared-backend.js');
const { acquireAmberClient } = require('../../dist/prices/amber-registry.js');

describe('one owner per outside connection (SharedResources)', () => {
  it('gives every user of an id the same resource and closes it once, with its last user', async () => {
    const closed = [];
    const shared = new api.SharedResources((value) => { closed.push(value); });
    let made = 0;
    const a = shared.acquire('db', () => ({ n: ++made }));
    const b = shared.acquire('db', () => ({ n: ++made }));
    assert.equal(a.value, b.value);
    assert.equal(shared.holders('db'), 2);
    await a.release();
    await a.release(); // idempotent: one user cannot release another's hold
    assert.deepEqual(closed, []);
    await b.release();
    assert.deepEqual(closed, [{ n: 1 }]);
    assert.equal(shared.holders('db'), 0);
    const c = shared.acquire('db', () => ({ n: ++made }));
    assert.equal(c.value.n, 2, 'a new user after the last one left gets a new resource');
  });

  it('keeps what belongs to a key\'s client with it and drops it when the client closes', async () => {
    const options = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k-shared-resources-1' };
    const first = api.acquireClient(options);
    const key = Symbol('test');
    const kept = api.clientScoped(first.client, key, () => ({ groups: 1 }));
    const second = api.acquireClient(options);
    assert.equal(second.client, first.client);
    assert.equal(api.clientScoped(second.client, key, () => ({ groups: 2 })), kept);
    await first.release();
    await second.release();
    const third = api.acquireClient(options);
    assert.notEqual(third.client, first.client);
    assert.deepEqual(api.clientScoped(third.client, key, () => ({ groups: 3 })), { groups: 3 });
    await third.release();
  });

  it('energy-store nodes on the same database share one backend, opened once and closed with the last node', async () => {
    const calls = [];
    const backend = {
      name: 'counting',
      open: async () => { calls.push('open'); },
      close: async () => { calls.push('close'); },
      write: async () => ({ rows: 0 }), watermarks: async () => [], readRows: async () => [], readBuckets: async () => [],
      edge: async () => undefined, prune: async () => 0,
    };
    let made = 0;
    const create = () => { made += 1; return backend; };
    const one = sharedBackend('["sqlite","/tmp/a.db"]', create);
    const two = sharedBackend('["sqlite","/tmp/a.db"]', create);
    await Promise.all([one.open(), two.open()]);
    await one.open();
    assert.equal(made, 1);
    assert.deepEqual(calls, ['open']);
    await one.close();
    assert.deepEqual(calls, ['open']);
    await two.close();
    assert.deepEqual(calls, ['open', 'close']);
  });

  it('energy-price nodes on one Amber key share one client', async () => {
    const a = acquireAmberClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'amber-key-12345' });
    const b = acquireAmberClient({ baseUrl: 'http://127.0.0.1:9/v1/', apiKey: 'amber-key-12345' });
    const other = acquireAmberClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'amber-key-67890' });
    assert.equal(a.value, b.value);
    assert.notEqual(a.value, other.value);
    await Promise.all([a.release(), b.release(), other.release()]);
  });
});
