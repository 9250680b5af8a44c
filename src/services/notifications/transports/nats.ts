// NATS notification target (docs/notifications.md "NATS"): each event is published on a subject, through JetStream
// (resolving on the stream's ack) when a stream captures that subject, as a plain publish flushed to the server
// otherwise. Loaded only through the transport registry's dynamic import.

import { jetstream, JetStreamApiError } from '@nats-io/jetstream';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import type { Static } from '@sinclair/typebox';
import type { NatsTargetConfig } from '../target-kinds.js';
import { DEFAULT_TIMEOUT_MS, LazyConnection, urlPassword, type TransportOptions } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, withTimeout, type FailureClass } from './transport-error.js';

/** The settings schema is the target kind's (target-kinds.ts), re-exported beside its transport. */
export { NatsTargetConfig as NatsTransportConfig } from '../target-kinds.js';
export type NatsTransportConfig = Static<typeof NatsTargetConfig>;

/** How long a "does a stream capture the subject" answer is trusted before asking the server again. */
export const STREAM_LOOKUP_TTL_MS = 30_000;

/** The error's class: NATS's own error types first, then Node's network codes. */
function classify(err: unknown): FailureClass {
  if (err instanceof errors.AuthorizationError || err instanceof errors.UserAuthenticationExpiredError) return 'auth';
  if (err instanceof errors.PermissionViolationError) return 'auth';
  if (err instanceof errors.TimeoutError) return 'timeout';
  if (err instanceof errors.RequestError && err.isNoResponders()) return 'refused';
  if (err instanceof errors.ClosedConnectionError || err instanceof errors.ConnectionError) return 'unreachable';
  if (err instanceof JetStreamApiError) return 'refused';
  return 'protocol';
}

/**
 * Whether a JetStream stream captures `subject` ($JS.API.STREAM.NAMES, https://docs.nats.io/reference/reference-protocols/nats_api_reference).
 * A server without JetStream has no responder for the API: that is "no stream", not a failure.
 */
async function hasStream(nc: NatsConnection, subject: string, timeoutMs: number): Promise<boolean> {
  try {
    const reply = await nc.request('$JS.API.STREAM.NAMES', JSON.stringify({ subject }), { timeout: timeoutMs });
    const names = reply.json<{ streams?: string[] | null }>();
    return Array.isArray(names.streams) && names.streams.length > 0;
  } catch (err) {
    if (err instanceof errors.RequestError && err.isNoResponders()) return false;
    throw err;
  }
}

/**
 * A NATS transport. send() resolves on the JetStream ack, or once a plain publish was flushed to the server; it
 * rejects with TransportError 'unreachable', 'auth', 'refused' (the stream refused the message or vanished),
 * 'timeout' or 'protocol'.
 */
export function createNatsTransport(config: NatsTransportConfig, opts: TransportOptions = {}): NotificationTransport {
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [config.password, config.token, urlPassword(config.url)];
  let lookup: { isJetStream: boolean; at: number; nc: NatsConnection } | undefined;
  const conn = new LazyConnection<NatsConnection>(
    async () => {
      const nc = await connect({
        servers: config.url,
        user: config.username,
        pass: config.password,
        token: config.token,
        timeout: timeoutMs,
        // The outbox retries and paces failed sends; a connection that drops is reopened by the next send.
        reconnect: false,
        name: 'store-notifications',
      });
      void nc.closed().then(() => conn.discard(nc));
      return nc;
    },
    async (nc) => {
      if (!nc.isClosed()) await nc.close();
    },
  );
  const isJetStream = async (nc: NatsConnection): Promise<boolean> => {
    // jetStream: false means plain publishes only, even where a stream captures the subject.
    if (config.jetStream === false) return false;
    if (lookup && lookup.nc === nc && now() - lookup.at < STREAM_LOOKUP_TTL_MS) return lookup.isJetStream;
    const found = await hasStream(nc, config.subject, timeoutMs);
    lookup = { isJetStream: found, at: now(), nc };
    return found;
  };
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      let nc: NatsConnection | undefined;
      try {
        nc = await withTimeout(conn.get(), timeoutMs, 'connecting to NATS');
        if (await isJetStream(nc)) {
          await jetstream(nc, { timeout: timeoutMs }).publish(config.subject, delivery.body);
        } else {
          nc.publish(config.subject, delivery.body);
          // A PING/PONG round trip: the server has read the PUB before it answers.
          await withTimeout(nc.flush(), timeoutMs, 'NATS flush');
        }
      } catch (err) {
        const failure = toTransportError(err, { secrets, fallback: classify(err) });
        // Ask again whether a stream exists next time: it may have been deleted (no responders) or created.
        lookup = undefined;
        if (nc && failure.failureClass !== 'refused') await conn.discard(nc);
        throw failure;
      }
    },
    close: () => conn.close(),
  };
}
