// The admin guards cannot be bypassed by how a request is spelled (ARCHITECTURE "Known pitfalls": /api/Admin/backup).
// Every state-changing admin route family, sent without a token, with a read-only admin's token, and with tokens that
// must not authenticate (expired, tampered, alg none, another secret or audience, no session, the refresh cookie
// alone), under every path trick (case, dot segments, doubled and encoded slashes, %2e, trailing junk, absolute-form
// targets), HEAD for GET, and method-override headers: never a 2xx, never a 5xx, and nothing changes (checked against
// a snapshot of everything the admin API and the S3 plane can show). The same under MOUNT_PATH. Exact-case routing
// of plain requests is http-surface.test.ts's; this file is about the guard.

import { connect } from 'node:net';
import { ListBucketsCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../helpers/admin-flow.js';
import { adminCall } from '../helpers/admin-session.js';
import { hostileTokens, inParallel, pathTricks, sendRaw, type TrickRequest } from '../helpers/admin-tricks.js';
import { sdkClient } from '../helpers/clients.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

type Route = [method: string, path: string, body?: unknown];

interface Fixture {
  server: RunningServer;
  mount: string;
  admin: string;
  adminCookie: string;
  reader: string;
  routes: Route[];
  /** Routes any signed-in admin may call (self-service, reads): only anonymous and forged callers must fail. */
  signedInRoutes: Route[];
}

const JSON_TYPE = { 'content-type': 'application/json' };

async function setUp(server: RunningServer, mount: string): Promise<Fixture> {
  const { token: admin, cookie: adminCookie } = await signIn(server, { mount });
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${server.url}${mount}/api/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body === undefined ? {} : JSON_TYPE) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  const b = '/buckets/victim';
  await call('POST', '/buckets', { name: 'victim' });
  await call('POST', '/buckets', { name: 'empty-victim' });
  await call('PUT', `${b}/tagging`, { tags: [{ key: 'owner', value: 'ops' }] });
  const put = await fetch(`${server.url}${mount}/api/admin${b}/objects/content?key=doc.txt`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/plain' },
    body: 'precious',
  });
  expect(put.status).toBe(200);
  const { uploadId } = (await call('POST', `${b}/uploads`, { key: 'big' })) as { uploadId: string };
  const reader = (
    (await call('POST', '/users', { username: 'reader', role: 'read-only', password: 'Tr1ck-7hree-w0rds' })) as {
      user: { id: string };
    }
  ).user;
  const victimUser = (
    (await call('POST', '/users', { username: 'victim', role: 'read-only', password: 'An0ther-secr3t-phrase' })) as {
      user: { id: string };
    }
  ).user;
  const key = (await call('POST', '/keys', { name: 'victim-key' })) as { accessKeyId: string };
  const readerToken = (await signIn(server, { mount, username: 'reader', password: 'Tr1ck-7hree-w0rds' })).token;
  const zipBody = Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'), 'latin1');
  const octet = (data: Buffer | string) => ({ raw: data });

  const routes: Route[] = [
    ['POST', '/users', { username: 'evil', role: 'full-admin', password: 'evil-password-123' }],
    ['PATCH', `/users/${reader.id}`, { role: 'full-admin' }],
    ['PATCH', `/users/${victimUser.id}`, { role: 'full-admin' }],
    ['DELETE', `/users/${victimUser.id}`],
    ['POST', `/users/${victimUser.id}/reset-password`, {}],
    ['POST', '/keys', { name: 'evil' }],
    ['PATCH', `/keys/${key.accessKeyId}`, { enabled: false }],
    ['DELETE', `/keys/${key.accessKeyId}`],
    ['POST', `/keys/${key.accessKeyId}/rotate`, {}],
    ['POST', '/buckets', { name: 'evil-bucket' }],
    ['DELETE', '/buckets/empty-victim'],
    ['PUT', `${b}/versioning`, { status: 'Enabled' }],
    ['PUT', `${b}/object-lock`, { enabled: true }],
    ['PUT', `${b}/tagging`, { tags: [{ key: 'evil', value: '1' }] }],
    ['DELETE', `${b}/tagging`],
    ['PUT', `${b}/encryption`, { sseAlgorithm: 'AES256' }],
    ['DELETE', `${b}/encryption`],
    ['PUT', `${b}/lifecycle`, { rules: [{ status: 'Enabled', filter: {}, expiration: { days: 1 } }] }],
    ['DELETE', `${b}/lifecycle`],
    [
      'PUT',
      `${b}/cors`,
      { rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] }] },
    ],
    ['DELETE', `${b}/cors`],
    [
      'PUT',
      `${b}/policy`,
      {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::victim/*' }],
      },
    ],
    ['DELETE', `${b}/policy`],
    ['POST', `${b}/objects/delete`, { keys: [{ key: 'doc.txt' }] }],
    ['PUT', `${b}/objects/tagging?key=doc.txt`, { tags: [{ key: 'evil', value: '1' }] }],
    ['DELETE', `${b}/objects/tagging?key=doc.txt`],
    ['PUT', `${b}/objects/retention?key=doc.txt`, { mode: 'GOVERNANCE', retainUntilDate: '2099-01-01T00:00:00Z' }],
    ['PUT', `${b}/objects/legal-hold?key=doc.txt`, { status: 'ON' }],
    ['DELETE', `${b}/objects/content?key=doc.txt`],
    ['PUT', `${b}/objects/content?key=evil.txt`, octet('evil')],
    ['POST', `${b}/objects/presign`, { key: 'doc.txt', method: 'PUT', expiresIn: 60 }],
    ['POST', `${b}/objects/copy`, { key: 'copy.txt', sourceKey: 'doc.txt' }],
    ['POST', `${b}/uploads`, { key: 'evil' }],
    ['DELETE', `${b}/uploads?key=big&uploadId=${uploadId}`],
    ['PUT', `${b}/uploads/part?key=big&uploadId=${uploadId}&partNumber=1`, octet('part')],
    ['POST', `${b}/uploads/complete`, { key: 'big', uploadId, parts: [{ partNumber: 1, etag: 'x' }] }],
    ['POST', '/backup/schedule/run-now', {}],
    ['POST', '/replication/failed/retry', {}],
    ['POST', '/replication/reconcile', {}],
    ['POST', '/integrity/scrub', {}],
    ['POST', '/restore', octet(zipBody)],
    ['POST', `${b}/restore`, octet(zipBody)],
  ];
  const signedInRoutes: Route[] = [
    [
      'POST',
      '/settings/change-password',
      { currentPassword: server.credentials.adminPassword, newPassword: 'a-new-password-456' },
    ],
    ['POST', '/auth/logout', {}],
    ['POST', `/keys/${key.accessKeyId}/simulate`, { action: 's3:GetObject', bucket: 'victim', key: 'doc.txt' }],
    ['GET', '/users'],
    ['GET', '/keys'],
    ['GET', '/audit'],
    ['GET', '/backup'],
    ['GET', `${b}/objects/content?key=doc.txt`],
    ['GET', '/openapi.json'],
    ['GET', '/auth/me'],
    ['GET', `${b}/backup`],
    ['HEAD', '/users'],
    ['HEAD', '/backup'],
    ['HEAD', `${b}/objects/content?key=doc.txt`],
  ];
  return { server, mount, admin, adminCookie, reader: readerToken, routes, signedInRoutes };
}

/** Everything the admin API and the S3 plane show that any of the routes above could change. */
async function snapshot(fx: Fixture): Promise<unknown> {
  const get = async (path: string): Promise<unknown> => {
    const res = await fetch(`${fx.server.url}${fx.mount}/api/admin${path}`, {
      headers: { authorization: `Bearer ${fx.admin}` },
    });
    return { status: res.status, body: await res.text() };
  };
  const b = '/buckets/victim';
  const paths = [
    '/buckets',
    b,
    '/buckets/empty-victim',
    ...['versioning', 'object-lock', 'tagging', 'encryption', 'lifecycle', 'cors', 'policy'].map((c) => `${b}/${c}`),
    `${b}/objects/versions`,
    `${b}/objects/tagging?key=doc.txt`,
    `${b}/objects/legal-hold?key=doc.txt`,
    `${b}/uploads`,
    '/users',
    '/keys',
    '/backup/schedule',
    '/integrity/corrupt',
    '/replication/failed',
  ];
  const admin = Object.fromEntries(await Promise.all(paths.map(async (p) => [p, await get(p)] as const)));
  // The audit log is written in batches (AUDIT_FLUSH_MS): let whatever is buffered land first.
  await new Promise((r) => setTimeout(r, 600));
  const audit = await adminCall({ ...fx.server, url: `${fx.server.url}${fx.mount}` }, fx.admin, {
    method: 'GET',
    path: '/audit?limit=200',
  });
  expect(audit.status).toBe(200);
  const events = (audit.body as { items: Array<{ event: string }> }).items
    .map((e) => e.event)
    .filter((e) => !e.startsWith('auth.'));
  const s3 = sdkClient({ ...fx.server, url: `${fx.server.url}${fx.mount}` });
  const buckets = (await s3.send(new ListBucketsCommand({}))).Buckets?.map((x) => x.Name);
  const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'victim' }));
  s3.destroy();
  return {
    admin,
    events,
    buckets,
    versions: versions.Versions?.map((v) => [v.Key, v.VersionId, v.ETag]),
    markers: versions.DeleteMarkers?.length ?? 0,
  };
}

function requestFor(
  route: Route,
  { path, headers, method = route[0] }: { path: string; headers: Record<string, string>; method?: string },
): TrickRequest {
  const body = route[2];
  if (body === undefined) return { method, path, headers };
  if (typeof body === 'object' && body !== null && 'raw' in body) {
    return {
      method,
      path,
      headers: { ...headers, 'content-type': 'application/octet-stream' },
      body: (body as { raw: Buffer | string }).raw,
    };
  }
  return { method, path, headers: { ...headers, ...JSON_TYPE }, body: JSON.stringify(body) };
}

/** Sends every request; returns the ones answered with anything but a 4xx, as readable lines. */
async function violations(
  fx: Fixture,
  requests: Array<{ label: string; req: TrickRequest }>,
  allow2xx = false,
): Promise<string[]> {
  const results = await inParallel(
    requests.map(({ label, req }) => async () => {
      const res = await sendRaw(fx.server, req);
      const ok = res.status >= 400 && res.status < 500 ? true : allow2xx && res.status < 300;
      return ok ? undefined : `${label}: ${req.method} ${req.path} -> ${res.status} ${res.text.slice(0, 120)}`;
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

/**
 * The whole matrix for one server. `every` thins the route list for the second (mounted) server: the guard is the
 * same code, what that suite adds is the mount-path tricks.
 */
function guardSuite(mount: string, every = 1): void {
  const store = useStore({
    env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250', ...(mount ? { MOUNT_PATH: mount } : {}) },
  });
  let fx: Fixture;
  let before: unknown;
  beforeAll(async () => {
    fx = await setUp(store.server, mount);
    before = await snapshot(fx);
  });
  afterAll(async () => {
    // The very last check: after every hostile request of this suite, nothing an admin or S3 client can see changed.
    if (fx !== undefined) expect(await snapshot(fx)).toEqual(before);
  });

  it('the controls: the plain routes answer 401 without a token and 403 to the read-only admin; a full admin reads', async () => {
    const [method, path, body] = fx.routes[1] as Route; // the reader promoting itself
    const plain = `${mount}/api/admin${path}`;
    expect((await sendRaw(fx.server, requestFor([method, path, body], { path: plain, headers: {} }))).status).toBe(401);
    const forbidden = await sendRaw(
      fx.server,
      requestFor([method, path, body], { path: plain, headers: { authorization: `Bearer ${fx.reader}` } }),
    );
    expect({ status: forbidden.status, body: JSON.parse(forbidden.text) as unknown }).toMatchObject({
      status: 403,
      body: { error: 'Forbidden' },
    });
    expect(
      (
        await sendRaw(fx.server, {
          method: 'GET',
          path: `${mount}/api/admin/users`,
          headers: { authorization: `Bearer ${fx.reader}` },
        })
      ).status,
    ).toBe(200);
  });

  it('no path trick lets an anonymous caller or a read-only admin change anything', async () => {
    const requests = fx.routes
      .filter((_, i) => i % every === 0)
      .flatMap((route) =>
        pathTricks(mount, `/api/admin${route[1]}`, fx.server.port).flatMap((path) => [
          { label: 'no token', req: requestFor(route, { path, headers: {} }) },
          { label: 'read-only', req: requestFor(route, { path, headers: { authorization: `Bearer ${fx.reader}` } }) },
        ]),
      );
    expect(requests.length).toBeGreaterThan(1000 / every);
    expect(await violations(fx, requests)).toEqual([]);
  });

  it('no forged, expired or misplaced credential authenticates, on the plain path or a tricked one', async () => {
    const tokens = await hostileTokens(fx.server, fx.admin);
    const credentials: Array<[string, Record<string, string>]> = [
      ...Object.entries(tokens).map(([name, token]): [string, Record<string, string>] => [
        name,
        { authorization: `Bearer ${token}` },
      ]),
      ['refresh cookie only', { cookie: `store_refresh=${fx.adminCookie}` }],
      ['token in the query', {}],
      [
        'basic auth',
        { authorization: `Basic ${Buffer.from(`admin:${fx.server.credentials.adminPassword}`).toString('base64')}` },
      ],
      ['two bearer tokens', { authorization: `Bearer ${tokens['garbled'] as string}, Bearer ${fx.admin}` }],
    ];
    const requests = [...fx.routes, ...fx.signedInRoutes]
      .filter((_, i) => i % every === 0)
      .flatMap((route) => {
        const tricks = pathTricks(mount, `/api/admin${route[1]}`, fx.server.port);
        return credentials.flatMap(([label, headers]) =>
          [tricks[0], tricks[1], tricks[11], tricks[18]].map((path) => {
            const target =
              label === 'token in the query'
                ? `${path as string}${(path as string).includes('?') ? '&' : '?'}access_token=${fx.admin}&token=${fx.admin}`
                : (path as string);
            return { label, req: requestFor(route, { path: target, headers: headers }) };
          }),
        );
      });
    expect(await violations(fx, requests)).toEqual([]);
  });

  it('without a token, no trick reaches even the read and self-service routes (HEAD for GET included)', async () => {
    const requests = fx.signedInRoutes.flatMap((route) =>
      pathTricks(mount, `/api/admin${route[1]}`, fx.server.port).map((path) => ({
        label: 'no token',
        req: requestFor(route, { path, headers: {} }),
      })),
    );
    expect(await violations(fx, requests)).toEqual([]);
  });

  it('method-override headers do not turn an allowed read into a write', async () => {
    const overrides = ['x-http-method-override', 'x-method-override', 'x-http-method'];
    const requests = fx.routes.flatMap((route) =>
      overrides.flatMap((header) =>
        ['GET', 'HEAD', 'POST'].flatMap((carrier) => [
          {
            label: `read-only ${header}`,
            req: requestFor(route, {
              path: `${mount}/api/admin${route[1]}`,
              headers: { authorization: `Bearer ${fx.reader}`, [header]: route[0] },
              method: carrier,
            }),
          },
          {
            label: `no token ${header}`,
            req: requestFor(route, {
              path: `${mount}/api/admin${route[1]}`,
              headers: { [header]: route[0] },
              method: carrier,
            }),
          },
        ]),
      ),
    );
    // A GET the read-only admin may make anyway can answer 200: the snapshot proves no write happened.
    const bad = await violations(
      fx,
      requests.filter((r) => r.label.startsWith('read-only')),
      true,
    );
    expect(bad).toEqual([]);
    expect(
      await violations(
        fx,
        requests.filter((r) => r.label.startsWith('no token')),
      ),
    ).toEqual([]);
  });

  it('a lower-case or unknown method is refused before any route', async () => {
    const answers = await Promise.all(
      ['delete', 'Post', 'PROPPATCH', 'MOVE'].map(
        (method) =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(fx.server.port, '127.0.0.1', () => {
              socket.write(
                `${method} ${mount}/api/admin/buckets/empty-victim HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.reader}\r\nConnection: close\r\n\r\n`,
              );
            });
            let out = '';
            socket.on('data', (d: Buffer) => {
              out += d.toString('latin1');
            });
            socket.on('close', () => resolve(out.split('\r\n')[0] ?? ''));
            socket.on('error', reject);
          }),
      ),
    );
    for (const statusLine of answers) expect(statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
  });
}

describe('admin guards at the root mount', () => guardSuite(''));
describe('admin guards under MOUNT_PATH=/storage', () => guardSuite('/storage', 3));
