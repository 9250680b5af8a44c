// MQTT notification target (docs/notifications.md "MQTT"): each event is published on a topic with QoS 1 (the
// default), and send() resolves on the broker's PUBACK; with QoS 0 once the packet is written to the socket. Loaded
// only through the transport registry's dynamic import.

import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { MqttTargetConfig } from '../target-kinds.js';
import { connectAsync, ErrorWithReasonCode, type MqttClient } from 'mqtt';
import { DEFAULT_TIMEOUT_MS, LazyConnection, urlPassword, type TransportOptions } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, withTimeout, type FailureClass } from './transport-error.js';

/** The settings schema is the target kind's (target-kinds.ts), re-exported beside its transport. */
export { MqttTargetConfig as MqttTransportConfig } from '../target-kinds.js';
export type MqttTransportConfig = Static<typeof MqttTargetConfig>;

/**
 * CONNACK refusals: 4 and 5 are MQTT 3.1.1's bad credentials and not authorized; 134 and 135 are MQTT 5's
 * (https://docs.oasis-open.org/mqtt/mqtt/v3.1.1/os/mqtt-v3.1.1-os.html#_Table_3.1_-, MQTT 5 section 3.2.2.2).
 */
function classify(err: unknown): FailureClass {
  if (err instanceof ErrorWithReasonCode) return [4, 5, 134, 135].includes(err.code) ? 'auth' : 'refused';
  return 'unreachable';
}

/**
 * An MQTT transport. send() resolves on PUBACK (QoS 1) or once written (QoS 0); it rejects with TransportError
 * 'unreachable', 'auth', 'refused' (the broker refused the connection or the publish) or 'timeout'.
 */
export function createMqttTransport(config: MqttTransportConfig, opts: TransportOptions = {}): NotificationTransport {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const qos = config.qos ?? 1;
  const secrets = [config.password, urlPassword(config.url)];
  const conn = new LazyConnection<MqttClient>(
    async () => {
      // allowRetries false: a refused or dropped first connection rejects instead of waiting for a reconnect.
      const client = await connectAsync(
        config.url,
        {
          username: config.username,
          password: config.password,
          clientId: `store-notify-${randomBytes(6).toString('hex')}`,
          clean: true,
          connectTimeout: timeoutMs,
          // The outbox retries and paces failed sends; a dropped connection is reopened by the next send.
          reconnectPeriod: 0,
        },
        false,
      );
      client.on('error', () => void conn.discard(client));
      client.on('close', () => void conn.discard(client));
      return client;
    },
    async (client) => {
      // force: do not wait for in-flight QoS 1 messages; their send() calls reject and the outbox resends them.
      await client.endAsync(true);
    },
  );
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      let client: MqttClient | undefined;
      try {
        // connectTimeout bounds the connect: a broker that never sends CONNACK closes the client, rejecting here.
        client = await conn.get();
        await withTimeout(client.publishAsync(config.topic, delivery.body, { qos }), timeoutMs, 'MQTT publish');
      } catch (err) {
        const failure = toTransportError(err, { secrets, fallback: classify(err) });
        if (client) await conn.discard(client);
        throw failure;
      }
    },
    close: () => conn.close(),
  };
}
