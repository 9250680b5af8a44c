// Redis notification target (docs/notifications.md "Redis"): each event is RPUSHed onto a list or XADDed to a
// stream. Loaded only through the transport registry's dynamic import, so `redis` loads only when such a target exists.

import type { Static } from '@sinclair/typebox';
import type { RedisTargetConfig } from '../target-kinds.js';
import { createClient, ErrorReply } from '@redis/client';
import { DEFAULT_TIMEOUT_MS, LazyConnection, urlPassword, type TransportOptions } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, TransportError, withTimeout } from './transport-error.js';

/** The settings schema is the target kind's (target-kinds.ts), re-exported beside its transport. */
export { RedisTargetConfig as RedisTransportConfig } from '../target-kinds.js';
export type RedisTransportConfig = Static<typeof RedisTargetConfig>;

/** A node-redis client that fails fast: no reconnects, no offline queue (the outbox retries and paces sends). */
function newClient(config: RedisTransportConfig, timeoutMs: number) {
  return createClient({
    // redis://host:port/db, or rediss:// for TLS (https://github.com/redis/redis-specifications/blob/master/uri/redis.txt).
    url: config.url,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
    username: config.username,
    password: config.password,
    disableOfflineQueue: true,
  });
}
type RedisClient = ReturnType<typeof newClient>;

/**
 * A Redis transport. send() resolves once Redis answered the RPUSH/XADD; it rejects with TransportError
 * 'unreachable', 'auth' (WRONGPASS, NOAUTH, NOPERM), 'refused' (any other Redis error reply, e.g. WRONGTYPE) or
 * 'timeout'.
 */
export function createRedisTransport(config: RedisTransportConfig, opts: TransportOptions = {}): NotificationTransport {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [config.password, urlPassword(config.url)];
  const fail = (err: unknown): TransportError => {
    const message = err instanceof Error ? err.message : '';
    // Redis error replies start with an upper-case error code (https://redis.io/docs/latest/develop/reference/protocol-spec/#simple-errors).
    const code = /^([A-Z]+)\b/.exec(message)?.[1];
    const isAuth = err instanceof ErrorReply && code !== undefined && ['WRONGPASS', 'NOAUTH', 'NOPERM'].includes(code);
    // Anything that is not a reply from Redis (a dropped socket, a closed client) means Redis could not be reached.
    const fallback = isAuth ? 'auth' : err instanceof ErrorReply ? 'refused' : 'unreachable';
    return toTransportError(err, { secrets, fallback });
  };
  const conn = new LazyConnection<RedisClient>(
    async () => {
      const client = newClient(config, timeoutMs);
      // node-redis emits 'error' on every socket failure; without a listener it would crash the process.
      client.on('error', () => void conn.discard(client));
      try {
        await withTimeout(client.connect(), timeoutMs, 'connecting to Redis');
        return client;
      } catch (err) {
        client.destroy();
        throw err;
      }
    },
    async (client) => {
      if (client.isOpen) client.destroy();
    },
  );
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      let client: RedisClient | undefined;
      try {
        client = await conn.get();
        const c = client;
        const command: Promise<unknown> =
          config.format === 'stream'
            ? c.xAdd(config.key, '*', {
                event: delivery.body,
                eventName: delivery.eventName,
                bucket: delivery.bucket,
                key: delivery.key,
              })
            : c.rPush(config.key, delivery.body);
        await withTimeout(command, timeoutMs, 'Redis write');
      } catch (err) {
        const failure = fail(err);
        if (client && failure.failureClass !== 'refused') await conn.discard(client);
        throw failure;
      }
    },
    close: () => conn.close(),
  };
}
