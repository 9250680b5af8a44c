// The Redis notification transport against a real redis-server (docs/notifications.md "Redis"): list and stream
// formats read back with a real client, failure classes without secrets, and no handles left after close().

import { describe, expect, it } from 'vitest';
import { createTransport } from '../../src/services/notifications/transports/index.js';
import { createRedisTransport } from '../../src/services/notifications/transports/redis.js';
import { freePort } from '../helpers/notification-servers/child-server.js';
import { startRedisServer, useRedisServer } from '../helpers/notification-servers/redis-server.js';
import { delivery, expectFailure, expectNoLeftovers } from '../helpers/notification-servers/transport-checks.js';

const redis = useRedisServer();

describe('Redis transport', () => {
  it('RPUSHes each event body onto the list, in send order', async () => {
    const { port, password, client } = redis.get();
    const t = createRedisTransport({ url: `redis://127.0.0.1:${port}`, password, key: 'events-list', format: 'list' });
    const a = delivery('a.txt');
    const b = delivery('b.txt', 's3:ObjectRemoved:Delete');
    await t.send(a);
    await t.send(b);
    await t.close();
    const c = await client();
    expect(await c.lRange('events-list', 0, -1)).toEqual([a.body, b.body]);
  });

  it('XADDs to the stream with the body and routing fields, in the db the URL names', async () => {
    const { port, password, client } = redis.get();
    const t = createRedisTransport({ url: `redis://127.0.0.1:${port}/3`, password, key: 'events', format: 'stream' });
    const d = delivery('dir/photo 1.jpg');
    await t.send(d);
    await t.close();
    const c = await client();
    await c.select(3);
    const entries = await c.xRange('events', '-', '+');
    expect(entries).toHaveLength(1);
    expect(entries?.[0]?.message).toEqual({
      event: d.body,
      eventName: d.eventName,
      bucket: 'photos',
      key: 'dir/photo 1.jpg',
    });
  });

  it('is what the transport registry builds for a redis target', async () => {
    const { port, password, client } = redis.get();
    const t = await createTransport('redis', {
      url: `redis://127.0.0.1:${port}`,
      password,
      key: 'via-registry',
      format: 'list',
    });
    const d = delivery('r');
    await t.send(d);
    await t.close();
    expect(await (await client()).lRange('via-registry', 0, -1)).toEqual([d.body]);
  });

  it('rejects "auth" for a wrong password, without the password in the error', async () => {
    const { port } = redis.get();
    const password = 'wrong-Secret-7781';
    const t = createRedisTransport({ url: `redis://127.0.0.1:${port}`, password, key: 'k', format: 'list' });
    await expectFailure(t.send(delivery('x')), 'auth', [password]);
    await t.close();
  });

  it('rejects "auth" when the server needs a password and none is configured', async () => {
    const t = createRedisTransport({ url: `redis://127.0.0.1:${redis.get().port}`, key: 'k', format: 'list' });
    await expectFailure(t.send(delivery('x')), 'auth', []);
    await t.close();
  });

  it('rejects "refused" when the key holds another type, and keeps working afterwards', async () => {
    const { port, password, client } = redis.get();
    const c = await client();
    await c.set('a-string', 'x');
    const t = createRedisTransport({ url: `redis://127.0.0.1:${port}`, password, key: 'a-string', format: 'list' });
    await expectFailure(t.send(delivery('x')), 'refused', [password]);
    await c.del('a-string');
    await t.send(delivery('y'));
    expect(await c.lLen('a-string')).toBe(1);
    await t.close();
  });

  it('rejects "unreachable" when nothing listens, without the password', async () => {
    const password = 'down-Secret-1234';
    const t = createRedisTransport({
      url: `redis://127.0.0.1:${await freePort()}`,
      password,
      key: 'k',
      format: 'list',
    });
    await expectFailure(t.send(delivery('x')), 'unreachable', [password]);
    await t.close();
  });

  it('rejects "closed" after close()', async () => {
    const t = createRedisTransport({ url: `redis://127.0.0.1:${redis.get().port}`, key: 'k', format: 'list' });
    await t.close();
    await expectFailure(t.send(delivery('x')), 'closed', []);
  });

  it('leaves no socket or timer open after close(), also after a failed send', async () => {
    const { port, password } = redis.get();
    await expectNoLeftovers(async () => {
      const ok = createRedisTransport({
        url: `redis://127.0.0.1:${port}`,
        password,
        key: 'leak-check',
        format: 'list',
      });
      await ok.send(delivery('x'));
      await ok.close();
      const bad = createRedisTransport({
        url: `redis://127.0.0.1:${port}`,
        password: 'nope',
        key: 'leak-check',
        format: 'list',
      });
      await bad.send(delivery('x')).catch(() => undefined);
      await bad.close();
    });
  });

  it('rejects "unreachable" while its server is gone and delivers again once it is back', async () => {
    const first = await startRedisServer();
    const t = createRedisTransport({
      url: `redis://127.0.0.1:${first.port}`,
      password: first.password,
      key: 'k',
      format: 'list',
    });
    try {
      await t.send(delivery('before'));
      await first.stop();
      await expectFailure(t.send(delivery('while-down')), 'unreachable', [first.password]);
      const second = await startRedisServer({ port: first.port });
      try {
        const d = delivery('after');
        await t.send(d);
        expect(await (await second.client()).lRange('k', 0, -1)).toEqual([d.body]);
      } finally {
        await second.stop();
      }
    } finally {
      await t.close();
    }
  });
});
