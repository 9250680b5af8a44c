// PostgreSQL notification target (docs/notifications.md "PostgreSQL"), in MinIO's two table formats: "namespace"
// keeps one row per object (upserted, deleted on ObjectRemoved), "access" appends every event with its time. The
// table is created when missing. Loaded only through the transport registry's dynamic import.

import { Type, type Static } from '@sinclair/typebox';
import pg from 'pg';
import { LazyConnection } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, withTimeout, type FailureClass } from './transport-error.js';
import { urlPassword } from './mqtt.js';

/** An unquoted identifier, optionally schema-qualified; it is double-quoted in SQL, so case is kept. */
const TABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?$';

export const PostgresTransportConfig = Type.Object(
  {
    /** postgres://user:password@host:5432/db?sslmode=require (libpq URI syntax). */
    connectionString: Type.String({ minLength: 1, maxLength: 2048, pattern: '^postgres(ql)?://' }),
    table: Type.String({ pattern: TABLE_NAME }),
    format: Type.Union([Type.Literal('namespace'), Type.Literal('access')]),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
  },
  { additionalProperties: false },
);
export type PostgresTransportConfig = Static<typeof PostgresTransportConfig>;

/** Fields that are write-only: never returned by the admin API nor logged (the string carries the password). */
export const POSTGRES_SECRET_FIELDS = ['connectionString'] as const;

const DEFAULT_TIMEOUT_MS = 10_000;

/** `schema.table` as a quoted SQL identifier (the schema pattern above admits no quotes). */
function quoteTable(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/** SQLSTATE classes (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
function classify(err: unknown): FailureClass {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return 'unreachable';
  if (code.startsWith('28')) return 'auth'; // invalid authorization specification, invalid password
  if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return 'unreachable';
  if (code === '57014') return 'timeout'; // query_canceled (statement_timeout)
  return 'refused'; // no such database, permission denied, constraint violations...
}

/** The event time of an AWS event message (Records[0].eventTime), or now for a message without one. */
function eventTime(body: string): Date {
  try {
    const parsed = JSON.parse(body) as { Records?: { eventTime?: unknown }[] };
    const time = parsed.Records?.[0]?.eventTime;
    const date = typeof time === 'string' ? new Date(time) : undefined;
    if (date && !Number.isNaN(date.getTime())) return date;
  } catch {
    // not JSON: fall through to now
  }
  return new Date();
}

/**
 * A PostgreSQL transport. send() resolves once the row change committed; it rejects with TransportError
 * 'unreachable', 'auth', 'refused' (SQL errors such as a missing database or privilege) or 'timeout'.
 */
export function createPostgresTransport(config: PostgresTransportConfig): NotificationTransport {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [urlPassword(config.connectionString), config.connectionString];
  const table = quoteTable(config.table);
  const createSql =
    config.format === 'namespace'
      ? `CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR PRIMARY KEY, value JSONB)`
      : `CREATE TABLE IF NOT EXISTS ${table} (event_time TIMESTAMP WITH TIME ZONE NOT NULL, event_data JSONB)`;
  const conn = new LazyConnection<pg.Client>(
    async () => {
      const client = new pg.Client({
        connectionString: config.connectionString,
        query_timeout: timeoutMs,
        application_name: 'store-notifications',
      });
      // pg emits 'error' when an idle connection breaks; without a listener that would end the process.
      client.on('error', () => void conn.discard(client));
      try {
        await withTimeout(client.connect(), timeoutMs, 'connecting to PostgreSQL');
        await client.query(createSql);
        return client;
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
    },
    (client) => client.end(),
  );
  const write = async (client: pg.Client, delivery: NotificationDelivery): Promise<void> => {
    if (config.format === 'access') {
      await client.query(`INSERT INTO ${table} (event_time, event_data) VALUES ($1, $2)`, [
        eventTime(delivery.body),
        delivery.body,
      ]);
      return;
    }
    // Namespace format keys rows by bucket/key as MinIO does; a test event names no object and writes no row.
    if (!delivery.eventName.startsWith('s3:Object')) return;
    const rowKey = `${delivery.bucket}/${delivery.key}`;
    if (delivery.eventName.startsWith('s3:ObjectRemoved:')) {
      await client.query(`DELETE FROM ${table} WHERE key = $1`, [rowKey]);
    } else {
      await client.query(
        `INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [rowKey, delivery.body],
      );
    }
  };
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      let client: pg.Client | undefined;
      try {
        client = await conn.get();
        await write(client, delivery);
      } catch (err) {
        const failure = toTransportError(err, { secrets, fallback: classify(err) });
        if (client && failure.failureClass !== 'refused') await conn.discard(client);
        throw failure;
      }
    },
    close: () => conn.close(),
  };
}
