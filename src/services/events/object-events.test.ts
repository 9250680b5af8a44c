// Every emission point of the object service against a real database and blob store: the event type, the fields
// from the committed row, the versionId rule, one event per committed change (none for a no-op), and the outbox
// row committing or rolling back with the change it describes.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectEvent } from '../../core/object-event.js';
import { BlobStore } from '../../storage/blobs/blob-store.js';
import { LifecycleRepo } from '../../storage/db/lifecycle-repo.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { WebhookOutboxRepo } from '../../storage/db/webhook-outbox-repo.js';
import { BucketService } from '../bucket-service.js';
import { LifecycleService } from '../lifecycle-service.js';
import { MultipartService } from '../objects/multipart-service.js';
import { ReadPins } from '../objects/object-reader.js';
import { ObjectService } from '../objects/object-service.js';
import type { EventSink } from './event-sink.js';
import { WebhookService } from './webhook-service.js';

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2030-01-01T00:00:00Z');

let dir: string;
let meta: MetadataStore;
let clock: number;
let buckets: BucketService;
let objects: ObjectService;
let multipart: MultipartService;
let outbox: WebhookService;
let repo: WebhookOutboxRepo;
/** What the sink saw: 'in:' inside the transaction, 'after:' once committed. */
let seen: { phase: 'in' | 'after'; event: ObjectEvent }[];
/** Makes the next inTransaction call throw after writing the outbox row (a failure late in the commit). */
let failInTransaction = false;

beforeEach(async () => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'object-events-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  clock = T0;
  const now = (): number => clock;
  repo = new WebhookOutboxRepo(meta.db);
  outbox = new WebhookService({
    repo,
    durable: () => meta.durable(),
    logger,
    userAgent: 'test',
    now,
    target: {
      url: 'https://h.example/',
      secret: 'x',
      events: ['object.created', 'object.deleted', 'multipart.completed'],
      maxAttempts: 3,
      timeoutMs: 1000,
    },
  });
  seen = [];
  failInTransaction = false;
  const sink: EventSink = {
    inTransaction: (event) => {
      outbox.enqueue(event);
      seen.push({ phase: 'in', event });
      if (failInTransaction) throw new Error('late failure inside the commit');
    },
    afterCommit: (event) => seen.push({ phase: 'after', event }),
  };
  buckets = new BucketService({ meta, region: 'us-east-1', now });
  objects = new ObjectService({ meta, blobs, pins: new ReadPins(), now, events: sink });
  multipart = new MultipartService({ meta, blobs, objects, now });
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const body = (text: string) => {
  const bytes = Buffer.from(text);
  return {
    source: (async function* () {
      yield bytes;
    })(),
    size: bytes.length,
  };
};

async function put(bucket: string, key: string, text = 'hello'): Promise<string> {
  const row = await objects.put({ bucket, key, body: body(text), headers: {}, userMeta: {} });
  clock += 1000;
  return row.versionId;
}

/** The committed events (afterCommit), and a check that each was first seen inside its transaction. */
function committed(): ObjectEvent[] {
  const after = seen.filter((s) => s.phase === 'after').map((s) => s.event);
  const inside = seen.filter((s) => s.phase === 'in').map((s) => s.event);
  expect(inside).toEqual(after);
  return after;
}

function outboxBodies(): unknown[] {
  return repo.due(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 10_000).map((r) => JSON.parse(r.body) as unknown);
}

const MD5_HELLO = '5d41402abc4b2a76b9719d911017c592';

describe('object.created', () => {
  it('comes from a PUT with the committed row: no versionId in an unversioned bucket', async () => {
    buckets.create('bkt');
    await put('bkt', 'a/key.txt');
    expect(committed()).toEqual([
      {
        type: 'object.created',
        bucket: 'bkt',
        key: 'a/key.txt',
        size: 5,
        etag: MD5_HELLO,
        eventTime: '2030-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('carries the new versionId in a versioning-Enabled bucket, none in a Suspended one', async () => {
    buckets.create('ver');
    buckets.setVersioning('ver', 'Enabled');
    const id = await put('ver', 'k');
    buckets.setVersioning('ver', 'Suspended');
    await put('ver', 'k');
    const [enabled, suspended] = committed();
    expect(enabled).toMatchObject({ type: 'object.created', versionId: id });
    expect(id).not.toBe('null');
    expect(suspended).not.toHaveProperty('versionId');
  });

  it('comes from a CopyObject, describing the new object', async () => {
    buckets.create('bkt');
    await put('bkt', 'src', 'copy me');
    seen = [];
    await objects.copy({
      bucket: 'bkt',
      key: 'dst',
      source: { bucket: 'bkt', key: 'src' },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
    });
    expect(committed()).toEqual([expect.objectContaining({ type: 'object.created', key: 'dst', size: 7 })]);
  });

  it('is not emitted for a write that does not commit (a failed condition)', async () => {
    buckets.create('bkt');
    await put('bkt', 'k');
    seen = [];
    await expect(
      objects.put({
        bucket: 'bkt',
        key: 'k',
        body: body('x'),
        headers: {},
        userMeta: {},
        conditions: { ifNoneMatch: '*' },
      }),
    ).rejects.toMatchObject({ code: 'PreconditionFailed' });
    expect(seen).toEqual([]);
    expect(outboxBodies()).toHaveLength(1);
  });
});

describe('multipart.completed', () => {
  it('is the only event of a CompleteMultipartUpload (not object.created)', async () => {
    buckets.create('ver');
    buckets.setVersioning('ver', 'Enabled');
    const upload = multipart.create({ bucket: 'ver', key: 'big', headers: {}, userMeta: {} });
    const part = await multipart.uploadPart({
      bucket: 'ver',
      key: 'big',
      uploadId: upload.uploadId,
      partNumber: 1,
      body: body('part one'),
    });
    const row = await multipart.complete({
      bucket: 'ver',
      key: 'big',
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: part.etag, checksums: {} }],
    });
    expect(committed()).toEqual([
      {
        type: 'multipart.completed',
        bucket: 'ver',
        key: 'big',
        size: 8,
        etag: row.etag,
        versionId: row.versionId,
        eventTime: '2030-01-01T00:00:00.000Z',
      },
    ]);
    expect(row.etag).toMatch(/-1$/);
  });
});

describe('object.deleted', () => {
  it('reports the removed object (size 0, its ETag) for a delete in an unversioned bucket, and nothing for a missing key', async () => {
    buckets.create('bkt');
    await put('bkt', 'k');
    seen = [];
    objects.delete('bkt', 'k');
    objects.delete('bkt', 'k');
    objects.delete('bkt', 'never-there');
    expect(committed()).toEqual([
      {
        type: 'object.deleted',
        bucket: 'bkt',
        key: 'k',
        size: 0,
        etag: MD5_HELLO,
        eventTime: '2030-01-01T00:00:01.000Z',
      },
    ]);
  });

  it('reports the delete marker (empty ETag, its versionId) in an Enabled bucket, even for a missing key as S3 adds one', async () => {
    buckets.create('ver');
    buckets.setVersioning('ver', 'Enabled');
    await put('ver', 'k');
    seen = [];
    const first = objects.delete('ver', 'k');
    const second = objects.delete('ver', 'ghost');
    expect(committed()).toEqual([
      {
        type: 'object.deleted',
        bucket: 'ver',
        key: 'k',
        size: 0,
        etag: '',
        versionId: first.versionId,
        eventTime: '2030-01-01T00:00:01.000Z',
      },
      {
        type: 'object.deleted',
        bucket: 'ver',
        key: 'ghost',
        size: 0,
        etag: '',
        versionId: second.versionId,
        eventTime: '2030-01-01T00:00:01.000Z',
      },
    ]);
  });

  it('reports one event for a Suspended delete (the null marker), without versionId', async () => {
    buckets.create('sus');
    buckets.setVersioning('sus', 'Suspended');
    await put('sus', 'k');
    seen = [];
    objects.delete('sus', 'k');
    expect(committed()).toEqual([
      { type: 'object.deleted', bucket: 'sus', key: 'k', size: 0, etag: '', eventTime: '2030-01-01T00:00:01.000Z' },
    ]);
  });

  it('reports a version removed by id (its ETag and id) and a delete marker removed by id; nothing for an unknown id', async () => {
    buckets.create('ver');
    buckets.setVersioning('ver', 'Enabled');
    const id = await put('ver', 'k');
    const marker = objects.delete('ver', 'k');
    seen = [];
    objects.delete('ver', 'k', { versionId: marker.versionId });
    objects.delete('ver', 'k', { versionId: id });
    objects.delete('ver', 'k', { versionId: '01900000-0000-7000-8000-000000000000' });
    expect(committed().map((e) => [e.etag, e.versionId])).toEqual([
      ['', marker.versionId],
      [MD5_HELLO, id],
    ]);
  });

  it('is emitted by lifecycle expiration, which deletes through the same service', async () => {
    buckets.create('bkt');
    buckets.putConfig('bkt', 'lifecycle', {
      rules: [{ id: 'r', status: 'Enabled', filter: {}, expiration: { days: 1 } }],
    });
    await put('bkt', 'old');
    seen = [];
    clock = T0 + 3 * 86_400_000;
    const lifecycle = new LifecycleService({ repo: new LifecycleRepo(meta.db), objects, multipart });
    const result = await lifecycle.runOnce(new Date(clock));
    expect(result.expired).toBe(1);
    expect(committed()).toEqual([expect.objectContaining({ type: 'object.deleted', key: 'old', etag: MD5_HELLO })]);
  });
});

describe('the outbox row commits with the change', () => {
  it('writes one row per committed event, body in the spec field order', async () => {
    buckets.create('ver');
    buckets.setVersioning('ver', 'Enabled');
    await put('ver', 'k');
    objects.delete('ver', 'k');
    const rows = repo.due(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 10);
    expect(rows.map((r) => r.eventType)).toEqual(['object.created', 'object.deleted']);
    expect(Object.keys(JSON.parse(rows[0]!.body) as object)).toEqual([
      'type',
      'bucket',
      'key',
      'size',
      'etag',
      'versionId',
      'eventTime',
    ]);
    expect(new Set(rows.map((r) => r.deliveryId)).size).toBe(2);
    expect(rows.every((r) => /^[0-9a-f-]{36}$/.test(r.deliveryId))).toBe(true);
  });

  it('rolls back with a PUT that fails inside its transaction: no object, no row', async () => {
    buckets.create('bkt');
    failInTransaction = true;
    await expect(put('bkt', 'k')).rejects.toThrow('late failure');
    expect(outboxBodies()).toEqual([]);
    expect(() => objects.open('bkt', 'k')).toThrow();
    expect(seen.filter((s) => s.phase === 'after')).toEqual([]);
  });

  it('rolls back with a delete that fails inside its transaction: the object stays, no row', async () => {
    buckets.create('bkt');
    await put('bkt', 'k');
    failInTransaction = true;
    expect(() => objects.delete('bkt', 'k')).toThrow('late failure');
    expect(objects.open('bkt', 'k').row.key).toBe('k');
    expect(outboxBodies()).toHaveLength(1);
  });

  it('rolls back when the enclosing transaction throws after the row was written', () => {
    meta.transaction(() =>
      outbox.enqueue({ type: 'object.created', bucket: 'bkt', key: 'kept', size: 1, etag: 'e', eventTime: 'x' }),
    );
    expect(() =>
      meta.transaction(() => {
        outbox.enqueue({ type: 'object.created', bucket: 'bkt', key: 'lost', size: 1, etag: 'e', eventTime: 'x' });
        throw new Error('rollback');
      }),
    ).toThrow('rollback');
    expect(outboxBodies()).toEqual([expect.objectContaining({ key: 'kept' })]);
  });
});
