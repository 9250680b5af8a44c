// Secrets never leak. One full run with every secret configured (root secret, admin password and its hash, JWT
// secret, STORE_SSE_KEY, KEY_ENCRYPTION_SECRET, METRICS_TOKEN, WEBHOOK_SECRET and the webhook URL's password, the
// replication credentials, scoped keys' secrets, session tokens), a replication target that answers 500 to
// everything, a webhook receiver that answers 500, and a scheduled backup pushed to that failing target. Every log
// line (debug level), every S3 and admin response gathered on the way (errors, status, settings, audit, keys, users,
// OpenAPI, the metrics scrape) is searched for every secret, raw and in its base64, base64url, hex and URL-encoded
// forms. The only answers allowed to hold a secret are the ones that hand it out (a key's creation and rotation,
// a sign-in's token and cookie).

import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSecret as strongSecret } from '../../src/cli/init.js';
import { presignUrl } from '../../src/sigv4/sign.js';
import { signIn } from '../helpers/admin-flow.js';
import { sdkClient } from '../helpers/clients.js';
import { startFailingTarget, waitFor } from '../helpers/replication.js';
import { tempDir } from '../helpers/server.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

/** One answer seen by a client: its label, and everything in it (status line, headers, body). */
interface Seen {
  label: string;
  text: string;
  /** Secrets this answer is the one place to hand out. */
  mayHold: string[];
}

const seen: Seen[] = [];
const secrets = new Map<string, string>();
const sseKeyBytes = randomBytes(32);
/** A random value of `n` characters (base64url); `strongSecret` for what the boot checks (at least 32 characters). */
const randomSecret = (n: number): string => randomBytes(n).toString('base64url').slice(0, n);

function record(
  label: string,
  { status, headers, body }: { status: number; headers: Headers | Record<string, unknown>; body: string },
  mayHold: string[] = [],
): void {
  const headerText = headers instanceof Headers ? JSON.stringify([...headers.entries()]) : JSON.stringify(headers);
  seen.push({ label, text: `${status}\n${headerText}\n${body}`, mayHold });
}

/** An admin call whose whole answer is recorded. */
async function admin(
  token: string | undefined,
  { method, path, body }: { method: string; path: string; body?: unknown },
  mayHold: (b: Record<string, unknown>) => string[] = () => [],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${store.server.url}/api/admin${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON (the backup archive): recorded as text
  }
  record(`${method} /api/admin${path}`, { status: res.status, headers: res.headers, body: text }, mayHold(parsed));
  return { status: res.status, body: parsed };
}

/** Every form a secret could be written in. */
function forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [
    ...new Set([
      value,
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('hex'),
      encodeURIComponent(value),
    ]),
  ];
}

const webhookSecret = strongSecret(36);
const hookPassword = randomSecret(24);
const receiver = useWebhookReceiver(webhookSecret);
let failing: Awaited<ReturnType<typeof startFailingTarget>>;
beforeAll(async () => {
  failing = await startFailingTarget();
  receiver.respond = () => ({ status: 500 });
});
afterAll(() => failing?.stop());

const store = useStore(() => {
  const target = { ...failing.target, secretAccessKey: strongSecret(36) };
  return {
    env: {
      LOG_LEVEL: 'debug',
      STORE_SSE_KEY: sseKeyBytes.toString('base64'),
      KEY_ENCRYPTION_SECRET: strongSecret(36),
      METRICS_MODE: 'token',
      METRICS_TOKEN: strongSecret(36),
      WEBHOOK_URL: receiver.url.replace('http://', `http://hook-user:${hookPassword}@`),
      WEBHOOK_SECRET: webhookSecret,
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_MAX_ATTEMPTS: '2',
      STORE_REPLICATION_ENABLED: 'true',
      STORE_REPLICATION_ENDPOINT: target.url,
      STORE_REPLICATION_BUCKET: target.bucket,
      STORE_REPLICATION_ACCESS_KEY_ID: target.accessKeyId,
      STORE_REPLICATION_SECRET_ACCESS_KEY: target.secretAccessKey,
      STORE_REPLICATION_REGION: 'us-east-1',
      STORE_REPLICATION_DRAIN_INTERVAL_MS: '100',
      STORE_REPLICATION_RETRY_BASE_MS: '50',
      STORE_REPLICATION_MAX_ATTEMPTS: '2',
      STORE_SCHEDULED_BACKUP_ENABLED: 'true',
      STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
      STORE_SCHEDULED_BACKUP_CRON: '0 0 1 1 *',
      STORE_SCHEDULED_BACKUP_DIR: tempDir('store-leak-backups-'),
      STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: 'true',
      STORE_TRUSTED_PROXIES: '127.0.0.1',
      AUDIT_FLUSH_MS: '250',
    },
  };
});

beforeAll(() => {
  for (const name of [
    'ROOT_SECRET_ACCESS_KEY',
    'JWT_SECRET',
    'ADMIN_PASSWORD_HASH',
    'STORE_SSE_KEY',
    'KEY_ENCRYPTION_SECRET',
    'METRICS_TOKEN',
    'WEBHOOK_SECRET',
    'STORE_REPLICATION_SECRET_ACCESS_KEY',
  ]) {
    secrets.set(name, store.server.env[name] as string);
  }
  secrets.set('admin password', store.server.credentials.adminPassword);
  secrets.set('webhook URL password', hookPassword);
  secrets.set('SSE key bytes (hex)', sseKeyBytes.toString('hex'));
  secrets.set('SSE key bytes (base64url)', sseKeyBytes.toString('base64url'));
});

describe('a full run with every secret configured and every remote failing', () => {
  it('exercises the S3 plane, the admin API, replication, webhooks, backups and metrics', async () => {
    const s3: S3Client = sdkClient(store.server);
    await s3.send(new CreateBucketCommand({ Bucket: 'leaky' }));
    await s3.send(new PutObjectCommand({ Bucket: 'leaky', Key: 'a.txt', Body: 'hello' }));
    await s3.send(new PutObjectCommand({ Bucket: 'leaky', Key: 'big.bin', Body: randomBytes(200_000) }));
    await (await s3.send(new GetObjectCommand({ Bucket: 'leaky', Key: 'a.txt' }))).Body?.transformToString();
    s3.destroy();
    const presigned = presignUrl({
      method: 'GET',
      url: new URL(`${store.server.url}/leaky/a.txt`),
      accessKeyId: store.server.credentials.accessKeyId,
      secretAccessKey: store.server.credentials.secretAccessKey,
      region: 'us-east-1',
      expiresSeconds: 60,
    });
    secrets.set('a presigned URL signature', presigned.searchParams.get('X-Amz-Signature') as string);
    const shared = await fetch(presigned);
    record('presigned GET', { status: shared.status, headers: shared.headers, body: await shared.text() });

    // S3 failures: a wrong secret, a tampered presigned URL, anonymous, unknown key; their error bodies are recorded.
    for (const [label, opts] of [
      ['wrong secret', { method: 'GET', path: '/leaky/a.txt', sign: { secretAccessKey: randomSecret(30) } }],
      ['unknown key', { method: 'GET', path: '/', sign: { accessKeyId: 'AKUNKNOWNKEY00000000' } }],
      ['anonymous', { method: 'GET', path: '/leaky/a.txt' }],
      [
        'tampered presigned',
        { method: 'GET', path: `${presigned.pathname}${presigned.search.replace(/Signature=./, 'Signature=0')}` },
      ],
    ] as const) {
      const res = await rawRequest(store.server, opts);
      record(`S3 ${label}`, { status: res.status, headers: res.headers, body: res.text });
    }

    // Admin: a failed sign-in (its password must not be logged), then a session.
    const wrongPassword = randomSecret(20);
    secrets.set('a mistyped admin password', wrongPassword);
    const failed = await fetch(`${store.server.url}/api/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.18.0.9' },
      body: JSON.stringify({ username: 'admin', password: wrongPassword }),
    });
    record('failed login', { status: failed.status, headers: failed.headers, body: await failed.text() });
    const session = await signIn(store.server);
    secrets.set('admin access token', session.token);
    secrets.set('admin refresh cookie', session.cookie);
    const t = session.token;

    // Credentials a client puts in a query string (the server ignores them) never reach the access log.
    const queryApiKey = randomSecret(30);
    secrets.set('an API key in a query string', queryApiKey);
    await admin(undefined, { method: 'GET', path: `/buckets?access_token=${encodeURIComponent(t)}` });
    await admin(t, { method: 'GET', path: `/buckets?api_key=${queryApiKey}&limit=5` });
    await admin(t, { method: 'GET', path: `/audit?x=${encodeURIComponent(t)}` });

    const userPassword = randomSecret(20);
    const newPassword = randomSecret(20);
    secrets.set('a new user password', userPassword);
    secrets.set('a changed password', newPassword);
    await admin(t, {
      method: 'POST',
      path: '/users',
      body: { username: 'operator', role: 'read-only', password: userPassword },
    });
    const operator = await signIn(store.server, { username: 'operator', password: userPassword });
    await admin(operator.token, {
      method: 'POST',
      path: '/settings/change-password',
      body: { currentPassword: userPassword, newPassword },
    });
    await admin(operator.token, {
      method: 'POST',
      path: '/settings/change-password',
      body: { currentPassword: userPassword, newPassword: randomSecret(20) },
    });

    const created = await admin(
      t,
      { method: 'POST', path: '/keys', body: { name: 'ci', permissions: { scope: { bucket: 'leaky' } } } },
      (b) => [String(b['secretAccessKey'])],
    );
    const keyId = String(created.body['accessKeyId']);
    const keySecret = String(created.body['secretAccessKey']);
    expect(keySecret.length).toBeGreaterThan(20);
    secrets.set('scoped key secret', keySecret);
    const scoped = sdkClient(store.server, { accessKeyId: keyId, secretAccessKey: keySecret });
    await scoped.send(new PutObjectCommand({ Bucket: 'leaky', Key: 'by-key.txt', Body: 'x' }));
    await scoped.send(new ListBucketsCommand({})).catch(() => undefined);
    scoped.destroy();
    const rotated = await admin(t, { method: 'POST', path: `/keys/${keyId}/rotate`, body: {} }, (b) => [
      String(b['secretAccessKey']),
    ]);
    secrets.set('rotated key secret', String(rotated.body['secretAccessKey']));

    // Let the failing remotes fail: replication dead-letters, webhook deliveries give up, the pushed backup fails.
    await admin(t, { method: 'POST', path: '/backup/schedule/run-now', body: {} });
    await waitFor('replication to dead-letter', async () => {
      const status = await admin(t, { method: 'GET', path: '/replication/status' });
      return ((status.body['outbox'] as { failed: number } | undefined)?.failed ?? 0) > 0;
    });
    // Dead-lettered, not merely attempted twice: two requests may be the first attempts of two events.
    await waitFor('a webhook delivery to fail for good', async () => {
      const status = await admin(t, { method: 'GET', path: '/webhooks/status' });
      return ((status.body['counts'] as { failed: number } | undefined)?.failed ?? 0) > 0;
    });
    await waitFor(
      'the scheduled backup run to finish',
      async () => {
        const schedule = await admin(t, { method: 'GET', path: '/backup/schedule' });
        return schedule.body['lastRun'] !== null && schedule.body['running'] === false;
      },
      { timeoutMs: 30_000 },
    );

    for (const path of [
      '/auth/me',
      '/users',
      '/keys',
      `/keys/${keyId}`,
      `/keys/${keyId}/permissions`,
      '/audit?limit=200',
      '/audit/catalog',
      '/version',
      '/openapi.json',
      '/replication/status',
      '/replication/failed',
      '/tiering/status',
      '/webhooks/status',
      '/backup/schedule',
      '/integrity',
      '/integrity/corrupt',
      '/analytics/storage',
      '/analytics/buckets',
      '/analytics/requests',
      '/buckets',
      '/buckets/leaky',
      '/buckets/leaky/objects',
      '/buckets/leaky/objects/info?key=a.txt',
      '/health',
      '/ready',
    ]) {
      await admin(t, { method: 'GET', path });
    }
    await admin(t, { method: 'POST', path: '/replication/failed/retry', body: {} });
    await admin(t, { method: 'POST', path: '/replication/reconcile', body: {} });
    await admin(t, { method: 'POST', path: '/integrity/scrub', body: {} });
    await admin(t, { method: 'GET', path: '/backup' });
    // Admin failures: no token, a bad token, bad input, unknown routes.
    await admin(undefined, { method: 'GET', path: '/users' });
    await admin(`${t}x`, { method: 'GET', path: '/keys' });
    await admin(t, { method: 'POST', path: '/keys', body: { name: '' } });
    await admin(t, { method: 'PUT', path: '/buckets/leaky/policy', body: { Statement: 'nope' } });
    await admin(t, { method: 'GET', path: '/nope' });

    const scrapes: Array<[string, string]> = [
      ['metrics scrape', `Bearer ${store.server.env['METRICS_TOKEN'] as string}`],
      ['metrics wrong token', `Bearer ${randomSecret(40)}`],
      ['metrics no token', ''],
    ];
    for (const [label, authorization] of scrapes) {
      const res = await fetch(`${store.server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      record(label, { status: res.status, headers: res.headers, body: await res.text() });
    }
    expect(seen.find((s) => s.label === 'metrics scrape')?.text).toMatch(/^200\n/);
    await admin(t, { method: 'POST', path: '/auth/logout', body: {} });
    await new Promise((r) => setTimeout(r, 500)); // the audit batch and the log stream
  }, 120_000);

  it('no secret appears in any answer (except where it is handed out) or in any log line', async () => {
    const stopped = await store.stop();
    expect(stopped).toBe(0);
    const log = store.server.output();
    expect(log.split('\n').length).toBeGreaterThan(50);
    // The run did go through the failure paths this test is about.
    expect(log).toContain('replication intent dead-lettered');
    expect(log).toContain('webhook delivery failed for good');
    expect(log).toContain('"msg":"reconcile of a bucket failed"');
    const leaks: string[] = [];
    for (const [name, value] of secrets) {
      expect(value.length, name).toBeGreaterThanOrEqual(16);
      for (const form of forms(value)) {
        if (log.includes(form)) leaks.push(`${name} in the server's output`);
        for (const s of seen)
          if (s.text.includes(form) && !s.mayHold.includes(value)) leaks.push(`${name} in the answer to ${s.label}`);
      }
    }
    expect([...new Set(leaks)]).toEqual([]);
    expect(seen.length).toBeGreaterThan(40);
  });
});
