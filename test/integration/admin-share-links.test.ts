// Share links (docs/admin-api.md "Share links"): each presigned URL is signed by a key created for it alone, never the
// root key. Links are listed (full admins all, read-only admins their own), revoked (the URL then fails at once) and
// expire with the app's key clock (BuildOptions.keyClock, moved by the test, never slept on), after which they are
// deleted. Read-only admins may create download links but not upload links, nor revoke other admins' links.

import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';

let offset = 0;
const keyClock = (): number => Date.now() + offset;
const store = useInProcess({}, { keyClock });

interface Link {
  id: string;
  url: string;
  expiresAt: string;
}
interface Listed {
  id: string;
  bucket: string;
  key: string;
  versionId: string | null;
  method: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

let admin: string;
let reader: string;
let bucket: string;
const as = (token: string) => (method: string, path: string, body?: unknown) =>
  adminCall(store.server, token, { method, path, body });

beforeAll(async () => {
  admin = await adminLogin(store.server);
  const created = await as(admin)('POST', '/users', {
    username: 'reader',
    role: 'read-only',
    password: 'my-first-password-42',
  });
  expect(created.status).toBe(201);
  reader = await adminLogin(store.server, 'reader', 'my-first-password-42');
  bucket = uniqueBucket('share');
  const root = sdkClient(store.server);
  await root.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const key of ['a.txt', 'b*?.txt', 'a.txt.bak'])
    await root.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}` }));
  root.destroy();
});

async function share(token: string, key: string, extra: Record<string, unknown> = {}): Promise<Link> {
  const res = await as(token)('POST', `/buckets/${bucket}/objects/presign`, {
    key,
    method: 'GET',
    expiresIn: 3600,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Link;
}

const list = async (token: string, query = ''): Promise<Listed[]> =>
  ((await as(token)('GET', `/share-links${query}`)).body as { items: Listed[] }).items;

describe('share links', () => {
  it('are signed by a key of their own that reads that one object and nothing else', async () => {
    offset = 0;
    const link = await share(admin, 'b*?.txt');
    const credential = new URL(link.url).searchParams.get('X-Amz-Credential') ?? '';
    expect(credential.startsWith(`${link.id}/`)).toBe(true);
    expect(credential).not.toContain(store.server.credentials.accessKeyId);
    const got = await fetch(link.url);
    expect([got.status, await got.text()]).toEqual([200, 'body of b*?.txt']);
    // The key is not an access key: not listed, not addressable under /keys.
    const keys = (await as(admin)('GET', '/keys')).body as { items: { accessKeyId: string }[] };
    expect(keys.items.map((k) => k.accessKeyId)).not.toContain(link.id);
    expect((await as(admin)('GET', `/keys/${link.id}`)).status).toBe(404);
    // Its policy names the exact object: wildcards in the key are literal.
    const other = await share(admin, 'a.txt');
    const swapped = other.url.replace('/a.txt?', '/a.txt.bak?');
    expect((await fetch(swapped)).status).toBe(403);
  });

  it('are listed with bucket, key, creator and expiry, filtered by object; revoking one makes its URL fail at once', async () => {
    offset = 0;
    const link = await share(admin, 'a.txt');
    expect((await fetch(link.url)).status).toBe(200);
    const mine = await list(admin, `?bucket=${bucket}&key=a.txt`);
    expect(mine.find((l) => l.id === link.id)).toEqual({
      id: link.id,
      bucket,
      key: 'a.txt',
      versionId: null,
      method: 'GET',
      createdBy: 'admin',
      createdAt: expect.any(String),
      expiresAt: link.expiresAt,
    });
    expect(mine.every((l) => l.key === 'a.txt')).toBe(true);
    expect((await as(admin)('DELETE', `/share-links/${link.id}`)).status).toBe(204);
    const refused = await fetch(link.url);
    expect([refused.status, await refused.text()]).toEqual([403, expect.stringContaining('InvalidAccessKeyId')]);
    expect((await list(admin)).map((l) => l.id)).not.toContain(link.id);
    expect((await as(admin)('DELETE', `/share-links/${link.id}`)).status).toBe(404);
  });

  it('stop working when they expire, and expired links are deleted', async () => {
    offset = 0;
    const link = await share(admin, 'a.txt', { expiresIn: 60 });
    expect((await fetch(link.url)).status).toBe(200);
    offset = 59_000;
    expect((await fetch(link.url)).status).toBe(200);
    offset = 60_000;
    expect((await fetch(link.url)).status).toBe(403);
    expect((await list(admin)).map((l) => l.id)).not.toContain(link.id);
    offset = 0;
    // Deleted, not just hidden: turning the clock back does not revive it.
    expect((await fetch(link.url)).status).toBe(403);
  });

  it('are refused for a missing object or version, so a link never points at nothing', async () => {
    offset = 0;
    const res = await as(admin)('POST', `/buckets/${bucket}/objects/presign`, {
      key: 'missing.txt',
      method: 'GET',
      expiresIn: 60,
    });
    expect([res.status, (res.body as { error: string }).error]).toEqual([404, 'NoSuchKey']);
  });
});

describe('a read-only admin', () => {
  it('creates download links, sees only their own, and revokes their own', async () => {
    offset = 0;
    const theirs = await share(admin, 'a.txt');
    const own = await share(reader, 'a.txt');
    expect((await fetch(own.url)).status).toBe(200);
    const seen = await list(reader);
    expect(seen.map((l) => l.id)).toContain(own.id);
    expect(seen.every((l) => l.createdBy === 'reader')).toBe(true);
    expect((await list(admin)).map((l) => l.id)).toEqual(expect.arrayContaining([own.id, theirs.id]));
    expect((await as(reader)('DELETE', `/share-links/${own.id}`)).status).toBe(204);
    expect((await fetch(own.url)).status).toBe(403);
  });

  it("may not revoke another admin's link, nor create an upload link", async () => {
    offset = 0;
    const theirs = await share(admin, 'a.txt');
    const revoke = await as(reader)('DELETE', `/share-links/${theirs.id}`);
    expect([revoke.status, (revoke.body as { error: string }).error]).toEqual([403, 'Forbidden']);
    expect((await fetch(theirs.url)).status).toBe(200);
    const upload = await as(reader)('POST', `/buckets/${bucket}/objects/presign`, {
      key: 'new.txt',
      method: 'PUT',
      expiresIn: 60,
    });
    expect([upload.status, (upload.body as { error: string }).error]).toEqual([403, 'Forbidden']);
    // Everything else stays closed to the role.
    expect((await as(reader)('POST', '/keys', { name: 'nope' })).status).toBe(403);
  });
});
