// The NATS notification transport against a real nats-server (docs/notifications.md "NATS"): plain publish read by a
// subscriber, JetStream publish awaiting the stream's ack, failure classes without secrets, no handles after close().

import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { createNatsTransport, STREAM_LOOKUP_TTL_MS } from '../../src/services/notifications/transports/nats.js';
import { freePort } from '../helpers/notification-servers/child-server.js';
import { startNatsServer, useNatsServer } from '../helpers/notification-servers/nats-server.js';
import { delivery, expectFailure, expectNoLeftovers } from '../helpers/notification-servers/transport-checks.js';

const USER = { user: 'store', pass: 'nats-Secret-4242' };

/** Subscribes to `subject` and resolves with the first `n` message bodies. */
async function collect(nc: NatsConnection, subject: string, n: number): Promise<() => Promise<string[]>> {
  const sub = nc.subscribe(subject, { max: n });
  await nc.flush(); // the server knows the subscription before anything is published
  return async () => {
    const bodies: string[] = [];
    for await (const m of sub) bodies.push(m.string());
    return bodies;
  };
}

describe('NATS transport with user and password', () => {
  const nats = useNatsServer(USER);
  const url = (): string => `nats://127.0.0.1:${nats.get().port}`;

  it('publishes each event on the subject when no stream captures it; a subscriber reads them in order', async () => {
    const read = await collect(await nats.get().client(), 'store.plain', 2);
    const t = createNatsTransport({
      url: url(),
      subject: 'store.plain',
      username: USER.user,
      password: USER.pass,
    });
    const a = delivery('a');
    const b = delivery('b');
    await t.send(a);
    await t.send(b);
    await t.close();
    expect(await read()).toEqual([a.body, b.body]);
  });

  it('publishes through JetStream when a stream captures the subject, and waits for its ack', async () => {
    const jsm = await jetstreamManager(await nats.get().client());
    // Room for one message and refuse the rest: only a JetStream publish (not a plain one) sees the refusal.
    await jsm.streams.add({ name: 'EVENTS', subjects: ['store.js'], max_msgs: 1, discard: DiscardPolicy.New });
    const t = createNatsTransport({
      url: url(),
      subject: 'store.js',
      username: USER.user,
      password: USER.pass,
    });
    const d = delivery('in-stream');
    await t.send(d);
    const stored = await jsm.streams.getMessage('EVENTS', { seq: 1 });
    expect(stored?.string()).toBe(d.body);
    await expectFailure(t.send(delivery('over-limit')), 'refused', [USER.pass]);
    await t.close();
  });

  it('publishes plainly with jetStream: false, even where a stream captures the subject', async () => {
    const jsm = await jetstreamManager(await nats.get().client());
    await jsm.streams.add({ name: 'PLAIN', subjects: ['store.nojs'], max_msgs: 1, discard: DiscardPolicy.New });
    const t = createNatsTransport({
      url: url(),
      subject: 'store.nojs',
      jetStream: false,
      username: USER.user,
      password: USER.pass,
    });
    await t.send(delivery('stored'));
    await t.send(delivery('dropped-by-the-full-stream-unnoticed')); // no ack asked for, so no refusal seen
    expect((await jsm.streams.info('PLAIN')).state.messages).toBe(1);
    await t.close();
  });

  it('asks again whether a stream exists once the lookup is older than its TTL', async () => {
    let clock = 0;
    const t = createNatsTransport(
      { url: url(), subject: 'store.late', username: USER.user, password: USER.pass },
      { now: () => clock },
    );
    await t.send(delivery('before-stream'));
    const jsm = await jetstreamManager(await nats.get().client());
    await jsm.streams.add({ name: 'LATE', subjects: ['store.late'], max_msgs: 1, discard: DiscardPolicy.New });
    await t.send(delivery('fills-the-stream')); // still the cached "no stream": a plain publish
    await t.send(delivery('plain-publish-dropped-by-the-full-stream')); // resolves: plain publishes get no ack
    clock += STREAM_LOOKUP_TTL_MS;
    await expectFailure(t.send(delivery('now-via-jetstream')), 'refused', []);
    await t.close();
  });

  it('rejects "auth" for a wrong password, without the password in the error', async () => {
    const password = 'wrong-Nats-Secret-99';
    const t = createNatsTransport({ url: url(), subject: 's', username: USER.user, password });
    await expectFailure(t.send(delivery('x')), 'auth', [password, USER.pass]);
    await t.close();
  });

  it('leaves no socket or timer open after close(), also after a failed send', async () => {
    await expectNoLeftovers(async () => {
      const ok = createNatsTransport({ url: url(), subject: 'leak', username: USER.user, password: USER.pass });
      await ok.send(delivery('x'));
      await ok.close();
      const bad = createNatsTransport({ url: url(), subject: 'leak', username: USER.user, password: 'nope' });
      await bad.send(delivery('x')).catch(() => undefined);
      await bad.close();
    });
  });
});

describe('NATS transport with a token', () => {
  const nats = useNatsServer({ token: 'nats-Token-5150' });

  it('delivers with the right token and rejects "auth" with a wrong one, naming neither', async () => {
    const url = `nats://127.0.0.1:${nats.get().port}`;
    const read = await collect(await nats.get().client(), 'store.token', 1);
    const ok = createNatsTransport({ url, subject: 'store.token', token: 'nats-Token-5150' });
    const d = delivery('t');
    await ok.send(d);
    await ok.close();
    expect(await read()).toEqual([d.body]);
    const bad = createNatsTransport({ url, subject: 'store.token', token: 'bad-Token-0001' });
    await expectFailure(bad.send(d), 'auth', ['bad-Token-0001', 'nats-Token-5150']);
    await bad.close();
  });
});

describe('NATS transport without a server', () => {
  it('rejects "unreachable" while its server is gone and delivers again once it is back', async () => {
    const first = await startNatsServer(USER);
    const url = `nats://127.0.0.1:${first.port}`;
    const t = createNatsTransport({ url, subject: 'store.back', username: USER.user, password: USER.pass });
    try {
      await t.send(delivery('before'));
      await first.stop();
      await expectFailure(t.send(delivery('while-down')), 'unreachable', [USER.pass]);
      const second = await startNatsServer(USER, { port: first.port });
      try {
        const read = await collect(await second.client(), 'store.back', 1);
        const d = delivery('after');
        await t.send(d);
        expect(await read()).toEqual([d.body]);
      } finally {
        await second.stop();
      }
    } finally {
      await t.close();
    }
  });

  it('rejects "unreachable" when nothing listens, without the secret', async () => {
    const t = createNatsTransport({
      url: `nats://127.0.0.1:${await freePort()}`,
      subject: 's',
      token: 'gone-Token-77',
    });
    await expectFailure(t.send(delivery('x')), 'unreachable', ['gone-Token-77']);
    await t.close();
  });
});
