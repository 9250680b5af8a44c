// The AMQP 0-9-1 notification transport against a real RabbitMQ (docs/notifications.md "AMQP"): persistent messages
// confirmed by the broker and read back from a queue, unroutable and missing-exchange refusals, failure classes
// without the password, and no handles left after close(). One broker for the whole file: it boots slowly.

import { describe, expect, it } from 'vitest';
import { createAmqpTransport } from '../../src/services/notifications/transports/amqp.js';
import { freePort } from '../helpers/notification-servers/child-server.js';
import { useRabbitMq } from '../helpers/notification-servers/rabbitmq-server.js';
import { delivery, expectFailure, expectNoLeftovers } from '../helpers/notification-servers/transport-checks.js';

const broker = useRabbitMq();

function settings(exchange: string, routingKey: string) {
  const { port, username, password } = broker.get();
  return { url: `amqp://127.0.0.1:${port}`, username, password, exchange, routingKey };
}

describe('AMQP transport', () => {
  it('publishes persistent JSON messages to an exchange with the routing key; a queue bound to it gets them in order', async () => {
    const ch = await (await broker.get().client()).createChannel();
    await ch.assertExchange('store-events', 'direct', { durable: true });
    await ch.assertQueue('photos-events', { durable: true });
    await ch.bindQueue('photos-events', 'store-events', 'photos');
    const t = createAmqpTransport(settings('store-events', 'photos'));
    const a = delivery('a');
    const b = delivery('b', 'ObjectRemoved:Delete');
    await t.send(a);
    await t.send(b);
    await t.close();
    const first = await ch.get('photos-events', { noAck: true });
    const second = await ch.get('photos-events', { noAck: true });
    expect(first && first.content.toString('utf8')).toBe(a.body);
    expect(second && second.content.toString('utf8')).toBe(b.body);
    expect(first && first.properties.deliveryMode).toBe(2); // persistent
    expect(first && first.properties.contentType).toBe('application/json');
    expect(await ch.get('photos-events', { noAck: true })).toBe(false);
  });

  it('publishes to a queue through the default exchange ("" and the queue name as routing key)', async () => {
    const ch = await (await broker.get().client()).createChannel();
    await ch.assertQueue('direct-to-queue', { durable: true });
    const t = createAmqpTransport(settings('', 'direct-to-queue'));
    const d = delivery('q');
    await t.send(d);
    await t.close();
    const got = await ch.get('direct-to-queue', { noAck: true });
    expect(got && got.content.toString('utf8')).toBe(d.body);
  });

  it('rejects "refused" for an unroutable message and for a missing exchange, then delivers again', async () => {
    const ch = await (await broker.get().client()).createChannel();
    await ch.assertExchange('routed', 'direct', { durable: true });
    const unroutable = createAmqpTransport(settings('routed', 'nobody-listens'));
    await expectFailure(unroutable.send(delivery('x')), 'refused', [broker.get().password]);
    await unroutable.close();
    const missing = createAmqpTransport(settings('no-such-exchange', 'k'));
    await expectFailure(missing.send(delivery('x')), 'refused', [broker.get().password]);
    await ch.assertExchange('no-such-exchange', 'fanout', { durable: true });
    await ch.assertQueue('late-queue', { durable: true });
    await ch.bindQueue('late-queue', 'no-such-exchange', '');
    const d = delivery('after');
    await missing.send(d); // the closed channel was replaced
    await missing.close();
    const got = await ch.get('late-queue', { noAck: true });
    expect(got && got.content.toString('utf8')).toBe(d.body);
  });

  it('rejects "auth" for a wrong password, without the password in the error', async () => {
    const password = 'wrong-Amqp-Secret-1414';
    const t = createAmqpTransport({ ...settings('', 'q'), password });
    await expectFailure(t.send(delivery('x')), 'auth', [password, broker.get().password]);
    await t.close();
  });

  it('rejects "unreachable" when nothing listens, without the password', async () => {
    const password = 'down-Amqp-Secret-1';
    const t = createAmqpTransport({ ...settings('', 'q'), url: `amqp://127.0.0.1:${await freePort()}`, password });
    await expectFailure(t.send(delivery('x')), 'unreachable', [password]);
    await t.close();
  });

  it('leaves no socket or timer open after close(), also after a failed send', async () => {
    const ch = await (await broker.get().client()).createChannel();
    await ch.assertQueue('leak-check', { durable: false });
    await expectNoLeftovers(async () => {
      const ok = createAmqpTransport(settings('', 'leak-check'));
      await ok.send(delivery('x'));
      await ok.close();
      const bad = createAmqpTransport({ ...settings('', 'leak-check'), password: 'nope' });
      await bad.send(delivery('x')).catch(() => undefined);
      await bad.close();
    });
  });
});
