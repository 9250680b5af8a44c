// AMQP 0-9-1 notification target (docs/notifications.md "AMQP"): each event is published to an exchange with a
// routing key, persistent and mandatory, on a confirm channel; send() resolves on the broker's ack. Loaded only
// through the transport registry's dynamic import.

import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { connect, type ChannelModel, type ConfirmChannel, type Options } from 'amqplib';
import type { AmqpTargetConfig } from '../target-kinds.js';
import { DEFAULT_TIMEOUT_MS, LazyConnection, urlPassword, type TransportOptions } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, TransportError, withTimeout, type FailureClass } from './transport-error.js';

/** The settings schema is the target kind's (target-kinds.ts), re-exported beside its transport. */
export { AmqpTargetConfig as AmqpTransportConfig } from '../target-kinds.js';
export type AmqpTransportConfig = Static<typeof AmqpTargetConfig>;

interface AmqpSession {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** messageIds the broker returned as unroutable (basic.return precedes the ack of the same message). */
  returned: Set<string>;
  /** Why the server closed the channel or connection, if it did. */
  closedBy?: Error;
}

/** amqp://host:port/vhost (https://www.rabbitmq.com/docs/uri-spec) with the credentials given apart. */
function connectOptions(config: AmqpTransportConfig): Options.Connect {
  const url = new URL(config.url);
  const isTls = url.protocol === 'amqps:';
  if (!isTls && url.protocol !== 'amqp:') throw new TransportError('protocol', 'the URL must be amqp:// or amqps://');
  const vhost = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : '/';
  return {
    protocol: isTls ? 'amqps' : 'amqp',
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : isTls ? 5671 : 5672,
    vhost,
    username: config.username ?? (url.username ? decodeURIComponent(url.username) : 'guest'),
    password: config.password ?? (url.password ? decodeURIComponent(url.password) : 'guest'),
  };
}

/**
 * AMQP reply codes (AMQP 0-9-1 section 1.9 "Constants"): 403 access-refused is an auth failure, 404 (no such
 * exchange), 406 and 312 (unroutable) are refusals. A handshake refusal carries the reply text only.
 */
function classify(err: unknown): FailureClass {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : '';
  if (code === 403 || message.includes('(ACCESS-REFUSED)')) return 'auth';
  if (typeof code === 'number' && code >= 300) return 'refused';
  return 'unreachable';
}

/**
 * An AMQP transport. send() resolves once the broker confirmed the message (publisher confirms); it rejects with
 * TransportError 'unreachable', 'auth', 'refused' (no such exchange, unroutable, nacked) or 'timeout'.
 */
export function createAmqpTransport(config: AmqpTransportConfig, opts: TransportOptions = {}): NotificationTransport {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [config.password, urlPassword(config.url)];
  const conn: LazyConnection<AmqpSession> = new LazyConnection<AmqpSession>(
    async () => {
      const model = await connect(connectOptions(config), { timeout: timeoutMs, noDelay: true });
      try {
        const channel = await model.createConfirmChannel();
        const session: AmqpSession = { model, channel, returned: new Set() };
        const lost = (err?: Error): void => {
          session.closedBy ??= err;
          void conn.discard(session);
        };
        // Without 'error' listeners a server-side channel or connection close would throw out of an emitter.
        model.on('error', lost);
        model.on('close', lost);
        channel.on('error', lost);
        channel.on('close', () => lost());
        channel.on('return', (msg: { properties: { messageId?: unknown } }) => {
          if (typeof msg.properties.messageId === 'string') session.returned.add(msg.properties.messageId);
        });
        return session;
      } catch (err) {
        await model.close().catch(() => undefined);
        throw err;
      }
    },
    async (session) => {
      await session.model.close().catch(() => undefined);
    },
  );
  const publish = (session: AmqpSession, delivery: NotificationDelivery): Promise<void> =>
    new Promise((resolve, reject) => {
      const messageId = randomUUID();
      const options: Options.Publish = {
        persistent: true,
        // Mandatory: a message no queue receives comes back (basic.return) and the send fails, not silently lost.
        mandatory: true,
        contentType: 'application/json',
        messageId,
        type: delivery.eventName,
        timestamp: Math.floor(Date.now() / 1000),
      };
      session.channel.publish(config.exchange, config.routingKey, Buffer.from(delivery.body), options, (err) => {
        const wasReturned = session.returned.delete(messageId);
        if (err) reject(session.closedBy ?? (err instanceof Error ? err : new Error('message nacked by the broker')));
        else if (wasReturned)
          reject(new TransportError('refused', 'unroutable: no queue is bound for the routing key'));
        else resolve();
      });
    });
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      let session: AmqpSession | undefined;
      try {
        session = await withTimeout(conn.get(), timeoutMs, 'connecting to the AMQP broker');
        await withTimeout(publish(session, delivery), timeoutMs, 'AMQP publisher confirm');
      } catch (err) {
        const failure = toTransportError(err, { secrets, fallback: classify(err) });
        if (session && failure.failureClass !== 'refused') await conn.discard(session);
        throw failure;
      }
    },
    close: () => conn.close(),
  };
}
