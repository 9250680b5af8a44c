// PostgreSQL notification target (docs/notifications.md "PostgreSQL"), in MinIO's two table formats: "namespace"
// keeps one row per object (upserted, deleted on ObjectRemoved), "access" appends every event with its time. The
// table is created when missing. Loaded only through the transport registry's dynamic import.

import type { Static } from '@sinclair/typebox';
import type { PostgresTargetConfig } from '../target-kinds.js';
import pg from 'pg';
import { DEFAULT_TIMEOUT_MS, LazyConnection, type TransportOptions } from './lazy-connection.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { toTransportError, withTimeout, type FailureClass } from './transport-error.js';

/** The settings schema is the target kind's (target-kinds.ts), re-exported beside its transport. */
export { PostgresTargetConfig as PostgresTransportConfig } from '../target-kinds.js';
export type PostgresTransportConfig = Static<typeof PostgresTargetConfig>;

/** The table as a quoted SQL identifier (the settings pattern admits letters, digits and _ only), so case is kept. */
function quoteTable(table: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(table)) throw new TypeError('invalid table name');
  return `"${table}"`;
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
export function createPostgresTransport(
  config: PostgresTransportConfig,
  opts: TransportOptions = {},
): NotificationTransport {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secrets = [config.password];
  const table = quoteTable(config.table);
  const createSql =
    config.format === 'namespace'
      ? `CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR PRIMARY KEY, value JSONB)`
      : `CREATE TABLE IF NOT EXISTS ${table} (event_time TIMESTAMP WITH TIME ZONE NOT NULL, event_data JSONB)`;
  const conn = new LazyConnection<pg.Client>(
    async () => {
      const client = new pg.Client({
        host: config.host,
        port: config.port ?? 5432,
        database: config.database,
        user: config.user,
        password: config.password,
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
    const name = delivery.eventName.replace(/^s3:/, '');
    if (name === 'TestEvent') return;
    const rowKey = `${delivery.bucket}/${delivery.key}`;
    // An expiration removes the current version just as a DELETE does (docs/notifications.md "PostgreSQL").
    if (name.startsWith('ObjectRemoved:') || name.startsWith('LifecycleExpiration:')) {
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
