// Integrity through the real server: blobs damaged on disk (a flipped byte early and deep in an object, a truncated
// file, a deleted file) and an inline object damaged in the database are never served as wrong bytes (a 500 before
// the headers, or a cut connection mid-body), are marked corrupt by the GET, found again by a manual scrub, listed
// by the API and counted in the gauges; the scrub is audited and refused while one runs; a disabled scrubber has no
// gauges but runs a manual pass; with a repair source a corrupt object is repaired and reads back intact.

import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import BetterSqlite3 from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { blobPath, FakeRepairSource, fileOffset, flipByte } from '../helpers/integrity.js';
import { parseSamples, scrape, valueOf } from '../helpers/metrics-scrape.js';
import type { RunningServer } from '../helpers/server.js';
import { signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

/** One object per 100 ms tick: a pass over a few objects lasts long enough to be seen running. */
const FAST = {
  STORE_INTEGRITY_SCRUB_ENABLED: 'true',
  STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100',
  STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: '1',
  METRICS_MODE: 'public',
  AUDIT_FLUSH_MS: '250',
};

interface RawGet {
  status: number;
  received: Buffer;
  /** True when the connection ended before Content-Length bytes arrived. */
  cut: boolean;
  body: string;
}

/** A signed GET over a raw socket: what the client really receives, cut connections included. */
function rawGet(server: RunningServer, path: string): Promise<RawGet> {
  const headers = signedHeaders(server, { method: 'GET', path });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      const finish = (cut: boolean): void => {
        const received = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, received, cut, body: received.toString('utf8') });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish(Number(res.headers['content-length']) !== Buffer.concat(chunks).length));
      res.on('error', () => finish(true));
      res.on('aborted', () => finish(true));
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitFor<T>(
  what: string,
  { read, done }: { read: () => Promise<T>; done: (value: T) => boolean },
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Status = {
  counts: Record<string, number>;
  currentPass: unknown;
  lastFullPass: { objectsChecked: number } | null;
  enabled: boolean;
};

async function scrubToEnd(server: RunningServer, token: string): Promise<Status> {
  const started = await adminCall(server, token, { method: 'POST', path: '/integrity/scrub' });
  expect(started.status).toBe(202);
  return waitFor('the pass to end', {
    read: async () => (await adminCall(server, token, { method: 'GET', path: '/integrity' })).body as Status,
    done: (s) => s.currentPass === null,
  });
}

function blobIdOf(dataDir: string, bucket: string, key: string): string {
  const db = new BetterSqlite3(join(dataDir, 'meta.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT blob_id FROM objects WHERE bucket = ? AND key = ? AND is_latest = 1')
      .pluck()
      .get(bucket, key) as string;
  } finally {
    db.close();
  }
}

describe('corrupt objects through the real server', () => {
  const store = useStore({ env: { ...FAST, METRICS_MODE: 'public' } });
  const bucket = uniqueBucket('integrity');
  const data: Record<string, Buffer> = {
    'flip-early': randomBytes(300_000),
    'flip-late': randomBytes(3 * 1024 * 1024),
    trunc: randomBytes(300_000),
    gone: randomBytes(300_000),
    tiny: randomBytes(1000),
    intact: randomBytes(300_000),
  };

  beforeAll(async () => {
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const [key, body] of Object.entries(data))
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    // The enabled scrubber starts a scheduled pass at boot, which may still be running (409) or may have passed
    // before the writes: wait for it, then run passes until every object has been checked once.
    let first: Status | undefined;
    for (let i = 0; i < 5 && first?.counts['unchecked'] !== 0; i++) {
      const started = await store.adminCall('POST', '/integrity/scrub');
      expect([202, 409]).toContain(started.status);
      first = await waitFor('the pass to end', {
        read: async () => (await store.adminCall('GET', '/integrity')).body as Status,
        done: (st) => st.currentPass === null,
      });
    }
    expect(first?.counts).toEqual({ ok: 6, corrupt: 0, unchecked: 0 });
    await store.stop();
    // Damage, with the server down (the inline row is in its database).
    const dir = store.dataDir;
    await flipByte(blobPath(dir, blobIdOf(dir, bucket, 'flip-early')), fileOffset(1000));
    await flipByte(blobPath(dir, blobIdOf(dir, bucket, 'flip-late')), fileOffset(2_600_000));
    await truncate(blobPath(dir, blobIdOf(dir, bucket, 'trunc')), 100_000);
    await rm(blobPath(dir, blobIdOf(dir, bucket, 'gone')));
    const db = new BetterSqlite3(join(dir, 'meta.db'));
    const tinyId = blobIdOf(dir, bucket, 'tiny');
    const sealed = db.prepare('SELECT sealed FROM inline_blobs WHERE blob_id = ?').pluck().get(tinyId) as Buffer;
    sealed[500] = (sealed[500] as number) ^ 0x40;
    db.prepare('UPDATE inline_blobs SET sealed = ? WHERE blob_id = ?').run(sealed, tinyId);
    db.close();
    await store.restart();
  }, 120_000);

  it('answers 500 before any header when the damage is found on open or in the first read', async () => {
    for (const key of ['flip-early', 'trunc', 'gone', 'tiny']) {
      const res = await rawGet(store.server, `/${bucket}/${key}`);
      expect({ key, status: res.status }).toEqual({ key, status: 500 });
      expect(res.body).toContain('<Code>InternalError</Code>');
      expect(res.received.includes((data[key] as Buffer).subarray(0, 64))).toBe(false);
    }
    await expect(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'gone' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 500 },
    });
    // Each is an internal error: counted, and logged once with its request id and stack.
    const samples = parseSamples((await scrape(store.server)).text);
    const counted = valueOf(samples, 'store_internal_errors_total', { surface: 's3' }) ?? 0;
    const logged = store.server
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"S3 request failed"'));
    expect(counted).toBeGreaterThanOrEqual(5);
    expect(logged.length).toBe(counted);
    for (const line of logged) {
      expect(line).toMatch(/"reqId":"[0-9a-f-]{36}"/);
      expect(line).toContain('"stack":');
    }
  });

  it('cuts the connection mid-body at damage deep in an object: a correct prefix, never a wrong byte', async () => {
    const res = await rawGet(store.server, `/${bucket}/flip-late`);
    expect(res.status).toBe(200);
    expect(res.cut).toBe(true);
    expect(res.received.length).toBeLessThan(2_600_000);
    expect(res.received.equals((data['flip-late'] as Buffer).subarray(0, res.received.length))).toBe(true);
  });

  it('still serves intact objects, and ranges before the damage', async () => {
    const intact = await rawGet(store.server, `/${bucket}/intact`);
    expect(intact.status).toBe(200);
    expect(intact.received.equals(data['intact'] as Buffer)).toBe(true);
  });

  it('the GETs marked what they found corrupt, and the log says so', async () => {
    const list = await store.adminCall('GET', '/integrity/corrupt');
    expect(list.status).toBe(200);
    const items = (list.body as { items: { key: string; reason: string; versionId: string; bucket: string }[] }).items;
    expect(items.map((i) => [i.key, i.reason]).sort()).toEqual([
      ['flip-early', 'tampered'],
      ['flip-late', 'tampered'],
      ['gone', 'missing'],
      ['tiny', 'tampered'],
      ['trunc', 'truncated'],
    ]);
    expect(items[0]).toMatchObject({ bucket, versionId: 'null' });
    expect(store.server.output()).toContain('a read found an object version corrupt; marked corrupt');
  });

  it('the admin raw download of a corrupt object is a 500 envelope', async () => {
    const res = await fetch(`${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=gone`, {
      headers: { authorization: `Bearer ${await store.admin()}` },
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'InternalError', statusCode: 500 });
  });

  it('a manual scrub finds them all, is refused while it runs, is audited, and the gauges count them', async () => {
    const started = await store.adminCall('POST', '/integrity/scrub');
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ started: true, pass: { trigger: 'manual', objectsTotal: 6 } });
    const again = await store.adminCall('POST', '/integrity/scrub');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'Conflict', statusCode: 409 });
    const status = await waitFor('the pass to end', {
      read: async () => (await store.adminCall('GET', '/integrity')).body as Status,
      done: (s) => s.currentPass === null,
    });
    expect(status.counts).toEqual({ ok: 1, corrupt: 5, unchecked: 0 });
    expect(status.lastFullPass).toMatchObject({ trigger: 'manual', objectsChecked: 6, corruptFound: 5 });
    const samples = parseSamples((await scrape(store.server)).text);
    const gauge = (status: string) =>
      samples.find((s) => s.name === 'store_integrity_objects' && s.labels['status'] === status)?.value;
    await waitFor('the gauges', {
      read: async () => parseSamples((await scrape(store.server)).text),
      done: (all) =>
        all.some((s) => s.name === 'store_integrity_objects' && s.labels['status'] === 'corrupt' && s.value === 5),
    });
    expect(gauge('ok')).toBeDefined();
    const lastRun =
      parseSamples((await scrape(store.server)).text).find((s) => s.name === 'store_integrity_last_run_timestamp')
        ?.value ?? 0;
    expect(lastRun).toBeGreaterThan(Date.now() / 1000 - 600);
    const audit = await waitFor('the audit record', {
      read: async () =>
        (await store.adminCall('GET', '/audit?event=integrity.scrub_started')).body as { items: unknown[] },
      done: (b) => b.items.length > 0,
    });
    expect(audit.items[0]).toMatchObject({ event: 'integrity.scrub_started', subject: 'admin' });
  });

  it('refuses a bad cursor by name and pages the list', async () => {
    const bad = await store.adminCall('GET', '/integrity/corrupt?cursor=nope!');
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toMatch(/^cursor: /);
    // Well-formed base64url of the wrong shape, and page sizes out of range, are refused by name too.
    const wrongShape = await store.adminCall(
      'GET',
      `/integrity/corrupt?cursor=${Buffer.from('{"d":1}').toString('base64url')}`,
    );
    expect(wrongShape.body).toMatchObject({ error: 'ValidationError', message: expect.stringMatching(/^cursor: /) });
    for (const limit of [0, 201]) {
      const res = await store.adminCall('GET', `/integrity/corrupt?limit=${limit}`);
      expect(res.body).toMatchObject({
        error: 'ValidationError',
        statusCode: 400,
        message: expect.stringContaining('limit'),
      });
    }
    const first = (await store.adminCall('GET', '/integrity/corrupt?limit=2')).body as {
      items: { key: string }[];
      nextCursor: string;
    };
    const second = (await store.adminCall('GET', `/integrity/corrupt?limit=10&cursor=${first.nextCursor}`)).body as {
      items: { key: string }[];
      nextCursor: string | null;
    };
    expect(first.items).toHaveLength(2);
    expect(second.items).toHaveLength(3);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((i) => i.key)).size).toBe(5);
  });
});

describe('a disabled scrubber', () => {
  const store = useStore({ env: { METRICS_MODE: 'public', STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100' } });

  it('exports no integrity gauges, starts no pass by itself, but runs a manual one', async () => {
    const text = (await scrape(store.server)).text;
    expect(text).not.toContain('store_integrity_');
    const bucket = await store.bucket('idle');
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: 'hello' }));
    const before = (await store.adminCall('GET', '/integrity')).body as Status & { nextPassAt: unknown };
    expect(before).toMatchObject({
      enabled: false,
      counts: { ok: 0, corrupt: 0, unchecked: 1 },
      currentPass: null,
      lastFullPass: null,
      nextPassAt: null,
    });
    const status = await scrubToEnd(store.server, await store.admin());
    expect(status.counts).toEqual({ ok: 1, corrupt: 0, unchecked: 0 });
    expect((await scrape(store.server)).text).not.toContain('store_integrity_');
  });
});

describe('repair from a replica (in-process fake source)', () => {
  const source = new FakeRepairSource();
  const app = useInProcess(
    { STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100', AUDIT_FLUSH_MS: '250' },
    { integrityRepairSource: source },
  );

  it('repairs a flipped blob from the good copy, audits it, and the object reads back intact', async () => {
    const s3 = sdkClient(app.server);
    const bucket = uniqueBucket('repair');
    const body = randomBytes(500_000);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'doc', Body: body }));
    source.set({ bucket, key: 'doc', versionId: 'null' }, body);
    const blobId = blobIdOf(app.server.dataDir, bucket, 'doc');
    await flipByte(blobPath(app.server.dataDir, blobId), fileOffset(400_000));
    const token = await adminLogin(app.server);
    const status = await scrubToEnd(app.server, token);
    expect(status.counts).toEqual({ ok: 1, corrupt: 0, unchecked: 0 });
    expect(status.lastFullPass).toMatchObject({ corruptFound: 1, repaired: 1 });
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'doc' }));
    expect(
      Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()).equals(
        body,
      ),
    ).toBe(true);
    expect(blobIdOf(app.server.dataDir, bucket, 'doc')).not.toBe(blobId);
    const audit = await waitFor('the repair audit', {
      read: async () =>
        (await adminCall(app.server, token, { method: 'GET', path: '/audit?event=integrity.object_repaired' }))
          .body as { items: unknown[] },
      done: (b) => b.items.length > 0,
    });
    expect(audit.items[0]).toMatchObject({
      subject: 'integrity-scrubber',
      bucket,
      details: { key: 'doc', versionId: 'null', size: 500_000 },
    });
    expect(
      ((await adminCall(app.server, token, { method: 'GET', path: '/integrity' })).body as { repairAvailable: boolean })
        .repairAvailable,
    ).toBe(true);
  });
});
