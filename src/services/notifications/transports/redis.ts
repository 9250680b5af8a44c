// Redis notification target (docs/notifications.md "Redis"): each event is RPUSHed onto a list or XADDed to a
// stream. Loaded only through the transport registry's dynamic import, so `redis` loads only when such a target exists.

import { Type, type Static } from '@sinclair/typebox';
import { createClient, ErrorReply } from '@redis/client';
import { LazyConnection } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, TransportError, withTimeout } from './transport-error.js';

export const RedisTransportConfig = Type.Object(
  {
    /** host:port, or [ipv6]:port; the port defaults to 6379. */
    address: Type.String({ minLength: 1, maxLength: 300 }),
    /** The list or stream key. */
    key: Type.String({ minLength: 1, maxLength: 1024 }),
    format: Type.Optional(Type.Union([Type.Literal('list'), Type.Literal('stream')], { default: 'list' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    db: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    tls: Type.Optional(Type.Boolean()),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
  },
  { additionalProperties: false },
);
export type RedisTransportConfig = Static<typeof RedisTransportConfig>;

/** Fields that are write-only: never returned by the admin API nor logged. */
export const REDIS_SECRET_FIELDS = ['password'] as const;

const DEFAULT_TIMEOUT_MS = 10_000;

/** Splits `host:port` / `[v6]:port` / `host`; throws TypeError on a malformed address. */
export function parseHostPort(address: string, defaultPort: number): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(address.trim());
  const host = m?.[1] ?? m?.[2];
  const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
  if (!host || port < 1 || port > 65_535) throw new TypeError(`not a host:port address: ${address}`);
  return { host, port };
}

type RedisClient = ReturnType<typeof createClient>;

/**
 * A Redis transport. send() resolves once Redis answered the RPUSH/XADD; it rejects with TransportError
 * 'unreachable', 'auth' (WRONGPASS, NOAUTH, NOPERM), 'refused' (any other Redis error reply, e.g. WRONGTYPE) or
 * 'timeout'.
 */
export function createRedisTransport(config: RedisTransportConfig): NotificationTransport {
  const { host, port } = parseHostPort(config.address, 6379);
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [config.password];
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
      const client = createClient({
        socket: { host, port, tls: config.tls === true, connectTimeout: timeoutMs, reconnectStrategy: false },
        username: config.username,
        password: config.password,
        database: config.db,
        // Fail a send at once while disconnected instead of queueing it in memory: the outbox retries it.
        disableOfflineQueue: true,
      });
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
        const command =
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
