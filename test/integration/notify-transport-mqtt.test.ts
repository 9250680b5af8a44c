// The MQTT notification transport against a real mosquitto (docs/notifications.md "MQTT"): QoS 1 publishes read
// back by a QoS 1 subscriber, failure classes without secrets, and no handles left after close().

import { describe, expect, it } from 'vitest';
import type { MqttClient } from 'mqtt';
import { createMqttTransport } from '../../src/services/notifications/transports/mqtt.js';
import { freePort } from '../helpers/notification-servers/child-server.js';
import { useMosquitto } from '../helpers/notification-servers/mosquitto-server.js';
import { delivery, expectFailure, expectNoLeftovers } from '../helpers/notification-servers/transport-checks.js';

const broker = useMosquitto();

type Received = { body: string; qos: number }[];

/** Subscribes with QoS 1; `done` resolves with the first `n` messages (body and QoS), or rejects after 10 s. */
async function collect(c: MqttClient, topic: string, n: number): Promise<{ done: Promise<Received> }> {
  const got: { body: string; qos: number }[] = [];
  const done = new Promise<Received>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`got ${got.length} of ${n} messages on ${topic}`)), 10_000);
    c.on('message', (t, payload, packet) => {
      if (t !== topic) return;
      got.push({ body: payload.toString('utf8'), qos: packet.qos });
      if (got.length === n) {
        clearTimeout(timer);
        resolve(got);
      }
    });
  });
  await c.subscribeAsync(topic, { qos: 1 }); // resolves on SUBACK: the broker routes to us from now on
  return { done };
}

describe('MQTT transport', () => {
  const url = (): string => `mqtt://127.0.0.1:${broker.get().port}`;

  it('publishes each event with QoS 1; a QoS 1 subscriber receives them in order', async () => {
    const { username, password, client } = broker.get();
    const received = await collect(await client(), 'store/events', 2);
    const t = createMqttTransport({ url: url(), topic: 'store/events', username, password });
    const a = delivery('a');
    const b = delivery('b', 's3:ObjectRemoved:Delete');
    await t.send(a);
    await t.send(b);
    await t.close();
    expect(await received.done).toEqual([
      { body: a.body, qos: 1 },
      { body: b.body, qos: 1 },
    ]);
  });

  it('publishes with QoS 0 when configured so', async () => {
    const { username, password, client } = broker.get();
    const received = await collect(await client(), 'store/qos0', 1);
    const t = createMqttTransport({ url: url(), topic: 'store/qos0', qos: 0, username, password });
    const d = delivery('q0');
    await t.send(d);
    expect(await received.done).toEqual([{ body: d.body, qos: 0 }]);
    await t.close();
  });

  it('takes credentials from the URL too, and keeps them out of errors', async () => {
    const { username, password, client, port } = broker.get();
    const received = await collect(await client(), 'store/url', 1);
    const t = createMqttTransport({ url: `mqtt://${username}:${password}@127.0.0.1:${port}`, topic: 'store/url' });
    const d = delivery('u');
    await t.send(d);
    await t.close();
    expect((await received.done)[0]?.body).toBe(d.body);
    const wrong = 'url-Wrong-Secret-8';
    const bad = createMqttTransport({ url: `mqtt://${username}:${wrong}@127.0.0.1:${port}`, topic: 'store/url' });
    await expectFailure(bad.send(d), 'auth', [wrong]);
    await bad.close();
  });

  it('rejects "auth" for a wrong password and for no credentials, without the password', async () => {
    const { username } = broker.get();
    const password = 'wrong-Mqtt-Secret-2718';
    const t = createMqttTransport({ url: url(), topic: 't', username, password });
    await expectFailure(t.send(delivery('x')), 'auth', [password]);
    await t.close();
    const anonymous = createMqttTransport({ url: url(), topic: 't' });
    await expectFailure(anonymous.send(delivery('x')), 'auth', []);
    await anonymous.close();
  });

  it('rejects "unreachable" when nothing listens, without the password', async () => {
    const password = 'down-Mqtt-Secret-1';
    const t = createMqttTransport({ url: `mqtt://127.0.0.1:${await freePort()}`, topic: 't', username: 'u', password });
    await expectFailure(t.send(delivery('x')), 'unreachable', [password]);
    await t.close();
  });

  it('leaves no socket or timer open after close(), also after a failed send', async () => {
    const { username, password } = broker.get();
    await expectNoLeftovers(async () => {
      const ok = createMqttTransport({ url: url(), topic: 'leak', username, password });
      await ok.send(delivery('x'));
      await ok.close();
      const bad = createMqttTransport({ url: url(), topic: 'leak', username, password: 'nope' });
      await bad.send(delivery('x')).catch(() => undefined);
      await bad.close();
    });
  });
});
