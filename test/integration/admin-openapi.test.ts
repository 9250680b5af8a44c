// The generated OpenAPI document, and what it lets us prove about every route at once: it passes a real validator,
// every operation documents the statuses the plane can answer, every non-public operation is 401 without a valid
// token, and every state-changing operation is 403 for a read-only admin unless it is on the self-service list below.
// A new route therefore cannot forget the gate. Also /version, and the login limit without a trusted proxy.

import { execFileSync } from 'node:child_process';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { REPO_ROOT } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

/** The only state-changing operations a read-only admin may call: on their own account. */
const SELF_SERVICE = ['POST /api/admin/auth/logout', 'POST /api/admin/settings/change-password'];
/** POSTs that change nothing (questions with a body): open to read-only admins too. */
/** Grants of the caller's own (share links): open to read-only admins, the route refusing what needs a full admin. */
const OWN_GRANTS = ['POST /api/admin/buckets/{name}/objects/presign', 'DELETE /api/admin/share-links/{id}'];
const READS_ONLY = ['POST /api/admin/keys/{id}/simulate', 'POST /api/admin/buckets/{name}/objects/zip'];
/** The only operations without a token (SPEC "Authentication": health, ready, login, refresh). */
const PUBLIC = [
  'GET /api/admin/health',
  'GET /api/admin/ready',
  'POST /api/admin/auth/login',
  'POST /api/admin/auth/refresh',
];
/** GETs whose credential is a one-time ticket in the path (a download link an authenticated call issued). */
const TICKET = ['GET /api/admin/downloads/{ticket}'];
const WRITES = new Set(['post', 'put', 'patch', 'delete']);

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, unknown>;
  parameters?: { in: string }[];
  requestBody?: unknown;
  'x-public'?: boolean;
  'x-self-service'?: boolean;
  'x-reads-only'?: boolean;
  'x-own-grants'?: boolean;
  'x-ticket'?: boolean;
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const store = useStore();
let admin: string;
let reader: string;
let doc: Doc;

function operations(): { method: string; path: string; name: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method, path, name: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** The path with every {param} replaced by a dummy value, below the server root. */
const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, 'dummy-value');

async function send(method: string, path: string, token: string | undefined): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const res = await fetch(`${store.server.url}${concrete(path)}`, {
    method: method.toUpperCase(),
    headers,
    body: WRITES.has(method) ? '{}' : undefined,
  });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  admin = await store.admin();
  const created = await adminCall(store.server, admin, {
    method: 'POST',
    path: '/users',
    body: { username: 'reader', role: 'read-only', password: 'quiet-observer-42' },
  });
  expect(created.status).toBe(201);
  reader = await adminLogin(store.server, 'reader', 'quiet-observer-42');
  const res = await adminCall(store.server, admin, { method: 'GET', path: '/openapi.json' });
  expect(res.status).toBe(200);
  doc = res.body as Doc;
});

describe('the OpenAPI document', () => {
  it('needs a token', async () => {
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/openapi.json' })).status).toBe(401);
    expect((await adminCall(store.server, reader, { method: 'GET', path: '/openapi.json' })).status).toBe(200);
  });

  it('passes a real OpenAPI validator', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('covers the routes of this group', () => {
    const names = operations().map((o) => o.name);
    for (const name of [
      'POST /api/admin/auth/login',
      'POST /api/admin/auth/refresh',
      'POST /api/admin/auth/logout',
      'GET /api/admin/auth/me',
      'GET /api/admin/users',
      'POST /api/admin/users',
      'GET /api/admin/users/{id}',
      'PATCH /api/admin/users/{id}',
      'POST /api/admin/users/{id}/reset-password',
      'DELETE /api/admin/users/{id}',
      'POST /api/admin/settings/change-password',
      'GET /api/admin/audit',
      'GET /api/admin/audit/catalog',
      'GET /api/admin/version',
      'GET /api/admin/openapi.json',
      'GET /api/admin/workers',
    ])
      expect(names).toContain(name);
  });

  it('gives every operation an id, a summary and a tag, and documents the statuses the plane can answer', () => {
    const ids = new Set<string>();
    for (const { name, method, op } of operations()) {
      expect(op.operationId, name).toBeTruthy();
      expect(ids.has(op.operationId as string), `${name}: duplicate operationId`).toBe(false);
      ids.add(op.operationId as string);
      expect(op.summary, name).toBeTruthy();
      expect(op.tags?.length, name).toBeGreaterThan(0);
      const statuses = Object.keys(op.responses);
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${name}: no success status`,
      ).toBe(true);
      if (!op['x-public']) expect(statuses, name).toContain('401');
      if (WRITES.has(method) && !op['x-public'] && !op['x-self-service'] && !op['x-reads-only'])
        expect(statuses, name).toContain('403');
      if (op.parameters?.length || op.requestBody) expect(statuses, name).toContain('400');
      if (!name.endsWith('/health') && !name.endsWith('/ready')) expect(statuses, name).toContain('429');
    }
  });

  it('marks exactly the public, self-service, reads-only and ticket operations the spec allows', () => {
    expect(
      operations()
        .filter((o) => o.op['x-public'])
        .map((o) => o.name)
        .sort(),
    ).toEqual([...PUBLIC].sort());
    expect(
      operations()
        .filter((o) => o.op['x-self-service'])
        .map((o) => o.name)
        .sort(),
    ).toEqual([...SELF_SERVICE].sort());
    expect(
      operations()
        .filter((o) => o.op['x-reads-only'])
        .map((o) => o.name)
        .sort(),
    ).toEqual([...READS_ONLY].sort());
    expect(
      operations()
        .filter((o) => o.op['x-own-grants'])
        .map((o) => o.name)
        .sort(),
    ).toEqual([...OWN_GRANTS].sort());
    expect(
      operations()
        .filter((o) => o.op['x-ticket'])
        .map((o) => o.name)
        .sort(),
    ).toEqual([...TICKET].sort());
  });
});

describe('every operation in the document', () => {
  it('answers 401 without a token and with a bad one, unless public', async () => {
    const forged = `${admin.slice(0, -4)}AAAA`;
    for (const { name, method, path } of operations()) {
      if (PUBLIC.includes(name)) continue;
      expect(await send(method, path, undefined), `${name} without a token`).toBe(401);
      expect(await send(method, path, forged), `${name} with a forged token`).toBe(401);
    }
  });

  it('lets a read-only admin ask the reads-only questions', async () => {
    for (const name of READS_ONLY) {
      const op = operations().find((o) => o.name === name);
      expect(op, name).toBeDefined();
      if (op) expect(await send(op.method, op.path, reader), name).not.toBe(403);
    }
  });

  it('answers 403 to a read-only admin for every state-changing operation not on the self-service list', async () => {
    const exempt = [...PUBLIC, ...SELF_SERVICE, ...READS_ONLY, ...OWN_GRANTS, ...TICKET];
    const writes = operations().filter((o) => WRITES.has(o.method) && !exempt.includes(o.name));
    expect(writes.length).toBeGreaterThanOrEqual(4);
    for (const { name, method, path } of writes) expect(await send(method, path, reader), name).toBe(403);
    // The control: the same requests from a full admin get past the gate (whatever the handler then says).
    for (const { name, method, path } of writes) expect(await send(method, path, admin), name).not.toBe(403);
  });
});

describe('GET /version', () => {
  it('answers the package version, the git commit and the Node version', async () => {
    const res = await adminCall(store.server, reader, { method: 'GET', path: '/version' });
    expect(res.status).toBe(200);
    let head = 'unknown';
    try {
      head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
    } catch {
      // no git on this machine: the server cannot know either
    }
    expect(res.body).toEqual({ version: '0.1.0', build: head, node: process.version });
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/version' })).status).toBe(401);
  });
});

describe('GET /workers', () => {
  it('lists every background worker in start order, the ones this configuration runs running', async () => {
    const res = await adminCall(store.server, reader, { method: 'GET', path: '/workers' });
    expect(res.status).toBe(200);
    const workers = (res.body as { workers: { name: string; enabled: boolean; running: boolean }[] }).workers;
    expect(workers.map((w) => w.name)).toEqual([
      'blob-gc',
      'lifecycle',
      'audit-flush',
      'usage-rollup',
      'request-analytics',
      'integrity',
      'search-index',
      'webhooks',
      'replication-tiering',
      'backup-schedule',
    ]);
    // No WEBHOOK_URL, no remote target, no backup schedule here: those are off; the rest run.
    const off = new Set(['webhooks', 'replication-tiering', 'backup-schedule']);
    for (const w of workers)
      expect(w, w.name).toEqual({ name: w.name, enabled: !off.has(w.name), running: !off.has(w.name) });
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/workers' })).status).toBe(401);
  });
});

describe('the login limit without a trusted proxy', () => {
  // Last in this file: it uses up loopback's login budget for a minute.
  it('ignores X-Forwarded-For, so rotating it does not dodge the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${store.server.url}/api/admin/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ username: 'admin', password: 'wrong-password' }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.json()).toMatchObject({ error: 'TooManyRequests', statusCode: 429 });
      } else {
        await res.arrayBuffer();
      }
    }
    // Two sign-ins in beforeAll plus three failures fill the five; the sixth attempt is refused.
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });
});
