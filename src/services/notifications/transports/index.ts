// The transport registry (docs/notifications.md "Targets"): kind -> a lazy import() of transports/<kind>.ts, so a
// kind's client library loads only once a target of that kind exists. Each module exports
// `create<Kind>Transport(config): NotificationTransport`; a kind whose module is missing fails its deliveries with
// the error class "transport unavailable" (they retry, then dead-letter) rather than failing the server.

import type { TargetKind } from '../target-kinds.js';
import type { NotificationTransport } from './transport.js';

export type { NotificationDelivery, NotificationTransport } from './transport.js';

const FACTORY_NAMES: { readonly [K in TargetKind]: string } = {
  webhook: 'createWebhookTransport',
  redis: 'createRedisTransport',
  nats: 'createNatsTransport',
  amqp: 'createAmqpTransport',
  mqtt: 'createMqttTransport',
  postgres: 'createPostgresTransport',
};

type Factory = (config: Record<string, unknown>) => NotificationTransport;

/** Loads the kind's module and builds a transport for `config` (the kind's settings with its secrets). */
export async function createTransport(
  kind: TargetKind,
  config: Record<string, unknown>,
): Promise<NotificationTransport> {
  let mod: Record<string, unknown>;
  try {
    // A computed specifier: each kind's module (and its client library) is loaded on first use only.
    mod = (await import(`./${kind}.js`)) as Record<string, unknown>;
  } catch (err) {
    throw new Error('transport unavailable', { cause: err });
  }
  const factory = mod[FACTORY_NAMES[kind]];
  if (typeof factory !== 'function') throw new Error('transport unavailable');
  return (factory as Factory)(config);
}
