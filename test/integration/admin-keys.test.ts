// The /api/admin/keys routes against the real server: create (secret shown once), list, get, update, rotate, revoke,
// effective permissions, simulate; validation naming the field; audit records without secrets; and the boot refusal
// when KEY_ENCRYPTION_SECRET no longer opens the stored keys.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { runServeExpectingExit } from '../helpers/server.js';
import { startStore, useStore } from '../helpers/store.js';

const store = useStore();

interface KeyBody {
  accessKeyId: string;
  name: string;
  secretAccessKey?: string;
  enabled: boolean;
  permissions: unknown;
  createdAt: string;
  lastUsedAt: string | null;
}

const call = (method: string, path: string, body?: unknown) => store.adminCall(method, path, body);
const photos = { scope: { bucket: 'media', prefix: 'photos/' } };

async function createKey(body: Record<string, unknown>): Promise<KeyBody> {
  const res = await call('POST', '/keys', body);
  expect(res.status).toBe(201);
  return res.body as KeyBody;
}

describe('creating and reading keys', () => {
  it('answers the secret once, at creation, and never in list or get', async () => {
    const created = await createKey({ name: 'uploader', description: 'CI uploads', permissions: photos });
    expect(created).toMatchObject({ name: 'uploader', enabled: true, permissions: photos, lastUsedAt: null });
    expect(created.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(created.secretAccessKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(Date.parse(created.createdAt)).not.toBeNaN();

    const one = await call('GET', `/keys/${created.accessKeyId}`);
    const list = await call('GET', '/keys');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ accessKeyId: created.accessKeyId, description: 'CI uploads', createdBy: 'admin' });
    expect((list.body as { items: KeyBody[] }).items.map((k) => k.accessKeyId)).toContain(created.accessKeyId);
    for (const res of [one, list]) {
      expect(JSON.stringify(res.body)).not.toContain(created.secretAccessKey);
      expect(JSON.stringify(res.body)).not.toContain('secretAccessKey');
    }
  });

  it('names the field of invalid input and answers MalformedPolicy for a bad policy', async () => {
    const missing = await call('POST', '/keys', { description: 'no name' });
    expect(missing).toMatchObject({ status: 400, body: { error: 'ValidationError', statusCode: 400 } });
    expect((missing.body as { message: string }).message).toContain('name');

    const both = await call('POST', '/keys', { name: 'k', permissions: { ...photos, policy: {} } });
    expect(both).toMatchObject({ status: 400, body: { error: 'ValidationError' } });
    expect((both.body as { message: string }).message).toContain('permissions');

    const bucket = await call('POST', '/keys', { name: 'k', permissions: { scope: { bucket: 'Not_A_Bucket' } } });
    expect((bucket.body as { message: string }).message).toContain('permissions.scope.bucket');

    const action = await call('POST', '/keys', {
      name: 'k',
      permissions: { scope: { bucket: 'media', actions: ['Everything'] } },
    });
    expect(action).toMatchObject({ status: 400, body: { error: 'ValidationError' } });

    const principal = { Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: '*' }] };
    expect(await call('POST', '/keys', { name: 'k', permissions: { policy: principal } })).toMatchObject({
      status: 400,
      body: { error: 'MalformedPolicy', statusCode: 400 },
    });
    expect(await call('POST', '/keys', { name: 'k', permissions: { policy: '{"Statement": [' } })).toMatchObject({
      status: 400,
      body: { error: 'MalformedPolicy' },
    });
  });

  it('answers 404 for an unknown key and 400 for a malformed id', async () => {
    const unknown = 'NOSUCHKEY00000000000';
    for (const [method, path] of [
      ['GET', `/keys/${unknown}`],
      ['PATCH', `/keys/${unknown}`],
      ['POST', `/keys/${unknown}/rotate`],
      ['DELETE', `/keys/${unknown}`],
      ['GET', `/keys/${unknown}/permissions`],
      ['POST', `/keys/${unknown}/simulate`],
    ] as const) {
      const body =
        method === 'PATCH'
          ? { name: 'x' }
          : path.endsWith('simulate')
            ? { action: 's3:GetObject', bucket: 'media', key: 'a' }
            : undefined;
      expect({ path, method, ...(await call(method, path, body)) }).toMatchObject({
        status: 404,
        body: { error: 'NotFound' },
      });
    }
    const bad = await call('GET', '/keys/lowercase-id');
    expect(bad).toMatchObject({ status: 400, body: { error: 'ValidationError' } });
    expect((bad.body as { message: string }).message).toContain('id');
  });

  it('refuses every key route without a valid token', async () => {
    const id = (await createKey({ name: 'guarded' })).accessKeyId;
    for (const [method, path] of [
      ['GET', '/keys'],
      ['POST', '/keys'],
      ['GET', `/keys/${id}`],
      ['PATCH', `/keys/${id}`],
      ['POST', `/keys/${id}/rotate`],
      ['DELETE', `/keys/${id}`],
      ['GET', `/keys/${id}/permissions`],
      ['POST', `/keys/${id}/simulate`],
    ] as const) {
      for (const bad of [undefined, 'abc.def.ghi']) {
        const res = await adminCall(store.server, bad, {
          method: method,
          path: path,
          body: method === 'GET' || method === 'DELETE' ? undefined : {},
        });
        expect({ method, path, status: res.status, error: (res.body as { error?: string }).error }).toEqual({
          method,
          path,
          status: 401,
          error: 'Unauthorized',
        });
      }
    }
    expect((await call('GET', `/keys/${id}`)).status).toBe(200);
  });
});

describe('changing keys', () => {
  it('updates only the fields given; permissions null removes them', async () => {
    const key = await createKey({ name: 'editable', permissions: photos });
    const renamed = await call('PATCH', `/keys/${key.accessKeyId}`, { name: 'renamed', enabled: false });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'renamed', enabled: false, permissions: photos } });
    const cleared = await call('PATCH', `/keys/${key.accessKeyId}`, { permissions: null });
    expect(cleared).toMatchObject({ status: 200, body: { permissions: null } });
    expect(await call('PATCH', `/keys/${key.accessKeyId}`, {})).toMatchObject({
      status: 400,
      body: { error: 'ValidationError' },
    });
  });

  it('rotates: a new secret, shown once', async () => {
    const key = await createKey({ name: 'rotating' });
    const rotated = await call('POST', `/keys/${key.accessKeyId}/rotate`);
    expect(rotated.status).toBe(200);
    const secret = (rotated.body as KeyBody).secretAccessKey;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(secret).not.toBe(key.secretAccessKey);
    expect(JSON.stringify((await call('GET', `/keys/${key.accessKeyId}`)).body)).not.toContain(secret);
  });

  it('revokes with 204; the key is gone', async () => {
    const key = await createKey({ name: 'doomed' });
    const res = await call('DELETE', `/keys/${key.accessKeyId}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await call('GET', `/keys/${key.accessKeyId}`)).status).toBe(404);
  });
});

describe('effective permissions and simulation', () => {
  it('shows the policy compiled from a scope', async () => {
    const key = await createKey({
      name: 'scoped',
      permissions: { scope: { bucket: 'media', prefix: 'photos/', actions: ['GetObject'] } },
    });
    const res = await call('GET', `/keys/${key.accessKeyId}/permissions`);
    expect(res).toMatchObject({ status: 200, body: { accessKeyId: key.accessKeyId, form: 'scope' } });
    const policy = (res.body as { policy: { Statement: { Sid: string; Action: unknown; Resource: unknown }[] } })
      .policy;
    expect(policy.Statement.map((s) => s.Sid)).toEqual(['ScopeBucketLocation', 'ScopeObjects']);
    expect(policy.Statement[1]).toMatchObject({ Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::media/photos/*' });
    const none = await createKey({ name: 'none' });
    expect((await call('GET', `/keys/${none.accessKeyId}/permissions`)).body).toEqual({
      accessKeyId: none.accessKeyId,
      form: 'none',
      policy: null,
    });
  });

  it('simulates an action and names the deciding statement', async () => {
    const policy = {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'ReadAll', Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::media/*' },
        { Sid: 'NotSecrets', Effect: 'Deny', Action: 's3:GetObject', Resource: 'arn:aws:s3:::media/secret/*' },
      ],
    };
    const key = await createKey({ name: 'inline', permissions: { policy } });
    expect(key.permissions).toEqual({ policy });
    expect((await call('GET', `/keys/${key.accessKeyId}/permissions`)).body).toEqual({
      accessKeyId: key.accessKeyId,
      form: 'policy',
      policy,
    });
    const sim = (body: unknown) => call('POST', `/keys/${key.accessKeyId}/simulate`, body);
    expect(await sim({ action: 's3:GetObject', bucket: 'media', key: 'a.txt' })).toMatchObject({
      status: 200,
      body: { decision: 'allow', reason: 'allowed', statement: { source: 'key', sid: 'ReadAll', index: 0 } },
    });
    expect((await sim({ action: 's3:GetObject', bucket: 'media', key: 'secret/x' })).body).toEqual({
      decision: 'deny',
      reason: 'explicit-deny',
      statement: { source: 'key', sid: 'NotSecrets', index: 1 },
    });
    expect((await sim({ action: 's3:PutObject', bucket: 'media', key: 'a.txt' })).body).toEqual({
      decision: 'deny',
      reason: 'implicit-deny',
    });
    expect((await sim({ action: 's3:ListAllMyBuckets' })).body).toEqual({ decision: 'deny', reason: 'implicit-deny' });
    const bad = await sim({ action: 's3:Nope', bucket: 'media' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'ValidationError' } });
    expect((bad.body as { message: string }).message).toMatch(/^action/);
  });
});

describe('audit and logs', () => {
  it('records key.created/updated/rotated/revoked with the id and name, and never a secret', async () => {
    const key = await createKey({ name: 'audited' });
    await call('PATCH', `/keys/${key.accessKeyId}`, { description: 'x' });
    const rotated = (await call('POST', `/keys/${key.accessKeyId}/rotate`)).body as KeyBody;
    await call('DELETE', `/keys/${key.accessKeyId}`);
    await new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously
    const records = store.server
      .output()
      .split('\n')
      .filter((l) => l.includes('"audit":true') && l.includes(key.accessKeyId))
      .map((l) => JSON.parse(l) as { event: string; subject: string; details: Record<string, unknown> });
    expect(records.map((r) => r.event)).toEqual(['key.created', 'key.updated', 'key.rotated', 'key.revoked']);
    for (const r of records)
      expect(r).toMatchObject({ subject: 'admin', details: { accessKeyId: key.accessKeyId, name: 'audited' } });
    expect(Object.keys(records[0]?.details ?? {}).sort()).toEqual(['accessKeyId', 'name']);
    expect(store.server.output()).not.toContain(key.secretAccessKey);
    expect(store.server.output()).not.toContain(rotated.secretAccessKey);
  });
});

describe('the key-encryption secret', () => {
  it('refuses to boot with a KEY_ENCRYPTION_SECRET that cannot open the stored keys, and boots again with the right one', async () => {
    const first = await startStore();
    expect((await first.adminCall('POST', '/keys', { name: 'sealed' })).status).toBe(201);
    await first.stop();
    // The default is the root secret: setting KEY_ENCRYPTION_SECRET to anything else now refuses to start.
    const refused = await runServeExpectingExit({
      ...first.server.env,
      KEY_ENCRYPTION_SECRET: randomBytes(32).toString('base64url'),
    });
    expect(refused.code).toBe(73);
    expect(refused.output).toContain('KEY_ENCRYPTION_SECRET');
    // The same secret given explicitly is the same key.
    await first.restart({ KEY_ENCRYPTION_SECRET: first.server.env['ROOT_SECRET_ACCESS_KEY'] ?? '' });
    const list = await first.adminCall('GET', '/keys');
    expect((list.body as { items: KeyBody[] }).items.map((k) => k.name)).toEqual(['sealed']);
  });
});
