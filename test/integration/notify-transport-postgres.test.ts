// The PostgreSQL notification transport against a real server (docs/notifications.md "PostgreSQL"): the namespace
// and access table formats read back with SELECT, the table created when missing, failure classes without the
// password, and no handles left after close().

import { describe, expect, it } from 'vitest';
import { createPostgresTransport } from '../../src/services/notifications/transports/postgres.js';
import { freePort } from '../helpers/notification-servers/child-server.js';
import { usePostgres } from '../helpers/notification-servers/postgres-server.js';
import { delivery, expectFailure, expectNoLeftovers } from '../helpers/notification-servers/transport-checks.js';

const server = usePostgres();

function settings(table: string, format: 'namespace' | 'access') {
  const { port, user, password, database } = server.get();
  return { host: '127.0.0.1', port, user, password, database, table, format };
}

describe('PostgreSQL transport', () => {
  it('namespace format: creates the table, upserts one row per bucket/key, deletes it on ObjectRemoved', async () => {
    const t = createPostgresTransport(settings('ns_events', 'namespace'));
    const first = delivery('a.txt', 'ObjectCreated:Put');
    const second = delivery('a.txt', 'ObjectCreated:Copy');
    const other = delivery('dir/b c.txt', 'ObjectCreated:Put');
    await t.send(first);
    await t.send(second);
    await t.send(other);
    await t.send(delivery('gone.txt', 'ObjectCreated:Put'));
    await t.send(delivery('gone.txt', 'ObjectRemoved:Delete'));
    await t.send(delivery('expired.txt', 'ObjectCreated:Put'));
    await t.send(delivery('expired.txt', 'LifecycleExpiration:Delete'));
    await t.send({
      body: '{"Service":"Amazon S3","Event":"s3:TestEvent"}',
      key: '',
      eventName: 's3:TestEvent',
      bucket: 'photos',
    });
    await t.close();
    const c = await server.get().client();
    const { rows } = await c.query<{ key: string; value: unknown }>('SELECT key, value FROM ns_events ORDER BY key');
    expect(rows).toEqual([
      { key: 'photos/a.txt', value: JSON.parse(second.body) },
      { key: 'photos/dir/b c.txt', value: JSON.parse(other.body) },
    ]);
  });

  it('access format: appends every event with its event time, test events included', async () => {
    const t = createPostgresTransport(settings('AccessLog', 'access'));
    const a = delivery('a', 'ObjectCreated:Put');
    const b = delivery('a', 'ObjectRemoved:Delete');
    const test = { Service: 'Amazon S3', Event: 's3:TestEvent', Time: '2026-02-01T00:00:00.000Z', Bucket: 'photos' };
    await t.send(a);
    await t.send(b);
    await t.send({ body: JSON.stringify(test), key: '', eventName: 's3:TestEvent', bucket: 'photos' });
    await t.close();
    const c = await server.get().client();
    const { rows } = await c.query<{ event_time: Date; event_data: { Records?: { eventTime: string }[] } }>(
      'SELECT event_time, event_data FROM "AccessLog" ORDER BY event_time',
    );
    expect(rows.map((r) => r.event_data)).toEqual([JSON.parse(a.body), JSON.parse(b.body), test]);
    const records = rows.slice(0, 2);
    expect(records.map((r) => r.event_time.toISOString())).toEqual(
      records.map((r) => r.event_data.Records?.[0]?.eventTime),
    );
  });

  it('rejects "auth" for a wrong password, without the password in the error', async () => {
    const password = 'wrong-Pg-Secret-5772';
    const t = createPostgresTransport({ ...settings('t', 'access'), password });
    await expectFailure(t.send(delivery('x')), 'auth', [password, server.get().password]);
    await t.close();
  });

  it('rejects "refused" for a database that does not exist', async () => {
    const t = createPostgresTransport({ ...settings('t', 'access'), database: 'no_such_db' });
    await expectFailure(t.send(delivery('x')), 'refused', [server.get().password]);
    await t.close();
  });

  it('rejects "unreachable" when nothing listens, without the password', async () => {
    const password = 'down-Pg-Secret-1';
    const t = createPostgresTransport({ ...settings('t', 'access'), port: await freePort(), password });
    await expectFailure(t.send(delivery('x')), 'unreachable', [password]);
    await t.close();
  });

  it('leaves no socket or timer open after close(), also after a failed send', async () => {
    await expectNoLeftovers(async () => {
      const ok = createPostgresTransport(settings('leak_check', 'access'));
      await ok.send(delivery('x'));
      await ok.close();
      const bad = createPostgresTransport({ ...settings('leak_check', 'access'), password: 'nope' });
      await bad.send(delivery('x')).catch(() => undefined);
      await bad.close();
    });
  });
});
