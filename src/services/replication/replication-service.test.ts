// ReplicationService and ReconcileService over a real MetadataStore and BlobStore, against an in-memory remote
// (the integration tests use real targets): intents in the committing transaction, collapse of bursts, a change
// during an apply, backoff and dead-lettering, the boot reset of in-flight rows, and the paged reconcile walk.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRemote } from '../../../test/helpers/memory-remote.js';
import { BlobStore } from '../../storage/blobs/blob-store.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { ReplicationJobsRepo } from '../../storage/db/replication-jobs-repo.js';
import { ReplicationOutboxRepo } from '../../storage/db/replication-outbox-repo.js';
import { BucketService } from '../bucket-service.js';
import { NO_EVENTS } from '../events/event-sink.js';
import { ReadPins } from '../objects/object-reader.js';
import { ObjectService } from '../objects/object-service.js';
import { ReconcileService, differs } from './reconcile-service.js';
import { RemoteError } from './remote-store.js';
import { ReplicationService } from './replication-service.js';
import { ReplicationEventSink } from './replication-sink.js';

const logger = pino({ level: 'silent' });

let dir: string;
let meta: MetadataStore;
let objects: ObjectService;
let remote: MemoryRemote;
let replication: ReplicationService;
let outbox: ReplicationOutboxRepo;
let now = 1_000_000;

function build(opts: { maxAttempts?: number } = {}): void {
  replication = new ReplicationService({
    meta,
    outbox,
    objects,
    remote,
    enabled: true,
    maxAttempts: opts.maxAttempts ?? 3,
    batchKeys: 10,
    retryBaseMs: 1000,
    logger,
    now: () => now,
    random: () => 0.5,
  });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'store-repl-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  outbox = new ReplicationOutboxRepo(meta.db);
  remote = new MemoryRemote();
  const events = new ReplicationEventSink(NO_EVENTS, {
    recordChange: (b, k, kind) => replication.recordChange(b, k, kind),
  });
  objects = new ObjectService({ meta, blobs, pins: new ReadPins(), events });
  build();
  new BucketService({ meta, region: 'us-east-1' }).create('bkt');
});
afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (key: string, body: string, tags?: { key: string; value: string }[]): Promise<unknown> =>
  objects.put({
    bucket: 'bkt',
    key,
    body: { source: Readable.from([Buffer.from(body)]), size: body.length },
    headers: {},
    userMeta: { m: '1' },
    tags,
  });
const signal = new AbortController().signal;

describe('replication drain', () => {
  it('collapses a burst to one key into one put of its last state, and mirrors deletes', async () => {
    for (let i = 0; i < 5; i++) await put('k', `v${i}`);
    await put('other', 'x');
    expect(outbox.counts()).toEqual({ pending: 2, inflight: 0, failed: 0 });
    const r = await replication.drainOnce(signal);
    expect(r).toEqual({ claimed: 2, applied: 2, failed: 0 });
    expect(remote.puts).toBe(2);
    expect(remote.objects.get('bkt/k')?.body.toString()).toBe('v4');
    expect(remote.objects.get('bkt/k')?.metadata).toEqual({ m: '1' });
    objects.delete('bkt', 'k');
    await replication.drainOnce(signal);
    expect(remote.objects.has('bkt/k')).toBe(false);
    expect(outbox.counts()).toEqual({ pending: 0, inflight: 0, failed: 0 });
  });

  it('keeps a key pending when it changed again while its previous state was being sent', async () => {
    await put('k', 'first');
    remote.onPut = () => {
      remote.onPut = undefined;
      void put('k', 'second');
    };
    await replication.drainOnce(signal);
    await new Promise((r) => setTimeout(r, 20));
    expect(outbox.counts().pending).toBe(1);
    await replication.drainOnce(signal);
    expect(remote.objects.get('bkt/k')?.body.toString()).toBe('second');
    expect(outbox.counts().pending).toBe(0);
  });

  it('sends a tag-only change as PutObjectTagging, and the whole object when the remote lacks it', async () => {
    await put('k', 'body', [{ key: 'a', value: '1' }]);
    await replication.drainOnce(signal);
    const puts = remote.puts;
    objects.tagging.put({ bucket: 'bkt', key: 'k' }, [{ key: 'a', value: '2' }]);
    await replication.drainOnce(signal);
    expect(remote.puts).toBe(puts);
    expect(remote.objects.get('bkt/k')?.tags).toEqual([{ key: 'a', value: '2' }]);
    remote.objects.clear();
    objects.tagging.delete({ bucket: 'bkt', key: 'k' });
    await replication.drainOnce(signal);
    expect(remote.objects.get('bkt/k')).toMatchObject({ tags: [] });
  });

  it('backs off, dead-letters at the cap, and retries on request', async () => {
    await put('k', 'v');
    remote.failWith = new RemoteError('unreachable');
    await replication.drainOnce(signal);
    expect(outbox.counts()).toEqual({ pending: 1, inflight: 0, failed: 0 });
    // Not due yet: full jitter with random 0.5 waits half the 1 s window.
    expect((await replication.drainOnce(signal)).claimed).toBe(0);
    now += 500;
    await replication.drainOnce(signal);
    now += 1000;
    await replication.drainOnce(signal);
    expect(outbox.counts()).toEqual({ pending: 0, inflight: 0, failed: 1 });
    expect(replication.status().lastDrain?.errorClass).toBe('unreachable');
    expect(replication.failedPage(0, 10).items).toMatchObject([
      { bucket: 'bkt', key: 'k', attempts: 3, lastError: 'unreachable' },
    ]);
    remote.failWith = undefined;
    expect(replication.retryFailed()).toBe(1);
    await replication.drainOnce(signal);
    expect(remote.objects.get('bkt/k')?.body.toString()).toBe('v');
  });

  it('makes intents in flight at a stop pending again at the next start', async () => {
    await put('k', 'v');
    outbox.markInflight(outbox.due(now, 10));
    expect(outbox.counts().inflight).toBe(1);
    build();
    expect(outbox.counts()).toEqual({ pending: 1, inflight: 0, failed: 0 });
  });

  it('records nothing when replication is off', async () => {
    replication = new ReplicationService({
      meta,
      outbox,
      objects,
      remote,
      enabled: false,
      maxAttempts: 3,
      batchKeys: 10,
      retryBaseMs: 1,
      logger,
    });
    await put('k', 'v');
    expect(outbox.counts()).toEqual({ pending: 0, inflight: 0, failed: 0 });
    expect((await replication.drainOnce(signal)).claimed).toBe(0);
  });
});

describe('reconcile', () => {
  it('walks local and remote a page at a time and enqueues what is missing, different or extra', async () => {
    for (let i = 0; i < 9; i++) await put(`k${i}`, `body ${i}`);
    await replication.drainOnce(signal);
    expect(remote.objects.size).toBe(9);
    remote.objects.delete('bkt/k0');
    remote.objects.delete('bkt/k8');
    (remote.objects.get('bkt/k4') as { body: Buffer }).body = Buffer.from('BODY 4'); // same size, other bytes
    remote.objects.set('bkt/zz-extra', { body: Buffer.from('x'), tags: [], metadata: {} });
    const jobs = new ReplicationJobsRepo(meta.db);
    const reconcile = new ReconcileService({
      meta,
      jobs,
      outbox,
      remote,
      enabled: true,
      logger,
      pageSize: 2,
      now: () => now,
    });
    const job = reconcile.start('bkt');
    expect(job.state).toBe('running');
    expect(() => reconcile.start()).toThrow(expect.objectContaining({ code: 'Conflict' }));
    for (let i = 0; i < 100 && reconcile.get(job.id).state === 'running'; i++)
      await new Promise((r) => setTimeout(r, 10));
    const done = reconcile.get(job.id);
    expect(done).toMatchObject({ state: 'completed', enqueued: 4, errors: 0 });
    expect(done.scanned).toBe(10);
    await replication.drainOnce(signal);
    expect([...remote.objects.keys()].sort()).toEqual(Array.from({ length: 9 }, (_, i) => `bkt/k${i}`));
    expect(remote.objects.get('bkt/k4')?.body.toString()).toBe('body 4');
  });

  it('counts a bucket whose listing fails as an error and still reconciles the others', async () => {
    new BucketService({ meta, region: 'us-east-1' }).create('other');
    await put('k', 'body');
    await objects.put({
      bucket: 'other',
      key: 'o',
      body: { source: Readable.from([Buffer.from('x')]), size: 1 },
      headers: {},
      userMeta: {},
    });
    await replication.drainOnce(signal);
    remote.objects.clear();
    remote.failListing = 'bkt/';
    const reconcile = new ReconcileService({
      meta,
      jobs: new ReplicationJobsRepo(meta.db),
      outbox,
      remote,
      enabled: true,
      logger,
      now: () => now,
    });
    const job = reconcile.start();
    for (let i = 0; i < 100 && reconcile.get(job.id).state === 'running'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(reconcile.get(job.id)).toMatchObject({ state: 'completed', enqueued: 1, errors: 1 });
    await replication.drainOnce(signal);
    expect([...remote.objects.keys()]).toEqual(['other/o']);
  });

  it('marks a job a restart interrupted as failed', () => {
    const jobs = new ReplicationJobsRepo(meta.db);
    jobs.insert({ id: 'j1', kind: 'reconcile', bucket: undefined }, now);
    new ReconcileService({ meta, jobs, outbox, remote, enabled: true, logger });
    expect(jobs.find('j1')).toMatchObject({ state: 'failed', error: 'interrupted by a restart' });
  });

  it('compares ETags only when both are plain MD5s', () => {
    const md5 = 'a'.repeat(32);
    expect(differs({ size: 1, etag: md5 }, { size: 2, etag: md5 })).toBe(true);
    expect(differs({ size: 1, etag: md5 }, { size: 1, etag: 'b'.repeat(32) })).toBe(true);
    expect(differs({ size: 1, etag: `${md5}-3` }, { size: 1, etag: 'b'.repeat(32) })).toBe(false);
    expect(differs({ size: 1, etag: md5 }, { size: 1, etag: `${'b'.repeat(32)}-2` })).toBe(false);
  });
});
