// ObjectService versioning and object lock rules against a real database and blob store in a temp directory,
// with an injected clock: the null version's overwrite rules, delete markers, and locked deletes.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { DAY_MS } from '../../core/iso8601.js';
import { BlobStore } from '../../storage/blobs/blob-store.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { BucketService } from '../bucket-service.js';
import { ListingService } from './listing-service.js';
import { ReadPins } from './object-reader.js';
import { ObjectService } from './object-service.js';

let dir: string;
let meta: MetadataStore;
let objects: ObjectService;
let buckets: BucketService;
let listing: ListingService;
let clock: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'object-versioning-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  clock = Date.parse('2030-01-01T00:00:00Z');
  const now = (): number => clock;
  objects = new ObjectService({ meta, blobs, pins: new ReadPins(), now });
  buckets = new BucketService({ meta, region: 'us-east-1', now });
  listing = new ListingService(meta);
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

async function put(
  bucket: string,
  { key, text }: { key: string; text: string },
  extra: Partial<Parameters<ObjectService['put']>[0]> = {},
): Promise<string> {
  const body = Buffer.from(text);
  const row = await objects.put({
    bucket,
    key,
    headers: {},
    userMeta: {},
    body: {
      source: (async function* () {
        yield body;
      })(),
      size: body.length,
    },
    ...extra,
  });
  clock += 1000;
  return row.versionId;
}

function versions(bucket: string): string[] {
  const page = listing.listVersions({
    bucket,
    prefix: '',
    delimiter: '',
    keyMarker: '',
    versionIdMarker: '',
    maxKeys: 1000,
  });
  return page.versions.map(
    (v) =>
      `${v.key}:${v.isDeleteMarker ? 'marker:' : ''}${v.versionId === 'null' ? 'null' : 'id'}${v.isLatest ? '*' : ''}`,
  );
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return undefined;
}

describe('the null version', () => {
  it('an Enabled PUT keeps the null version as noncurrent; a Suspended PUT replaces it wherever it sits', async () => {
    buckets.create('vvv');
    await put('vvv', { key: 'k', text: 'unversioned' });
    buckets.setVersioning('vvv', 'Enabled');
    const enabledId = await put('vvv', { key: 'k', text: 'enabled' });
    expect(versions('vvv')).toEqual(['k:id*', 'k:null']);
    buckets.setVersioning('vvv', 'Suspended');
    expect(await put('vvv', { key: 'k', text: 'suspended' })).toBe('null');
    // The old null version (below the Enabled one) is gone; the new null version is current.
    expect(versions('vvv')).toEqual(['k:null*', 'k:id']);
    expect(objects.open('vvv', 'k', { versionId: enabledId }).row.isLatest).toBe(false);
    // The dropped version's bytes went with it (small bodies are inline blobs): two versions, two inline blobs.
    expect(meta.db.prepare('SELECT COUNT(*) FROM inline_blobs').pluck().get()).toBe(2);
    expect(meta.blobGc.due(Number.MAX_SAFE_INTEGER, 10)).toHaveLength(0);
  });

  it('a Suspended DELETE replaces the null version with a null delete marker and keeps real versions', async () => {
    buckets.create('sss');
    buckets.setVersioning('sss', 'Enabled');
    await put('sss', { key: 'k', text: 'one' });
    buckets.setVersioning('sss', 'Suspended');
    await put('sss', { key: 'k', text: 'null one' });
    expect(objects.delete('sss', 'k')).toEqual({ versionId: 'null', deleteMarker: true });
    expect(versions('sss')).toEqual(['k:marker:null*', 'k:id']);
    // Again: the null marker is replaced, not stacked.
    objects.delete('sss', 'k');
    expect(versions('sss')).toEqual(['k:marker:null*', 'k:id']);
  });

  it('deleting the delete marker by version id restores the previous version', async () => {
    buckets.create('rrr');
    buckets.setVersioning('rrr', 'Enabled');
    const v1 = await put('rrr', { key: 'k', text: 'one' });
    const marker = objects.delete('rrr', 'k');
    expect(marker.deleteMarker).toBe(true);
    expect(code(() => objects.open('rrr', 'k'))).toBe('NoSuchKey');
    expect(code(() => objects.open('rrr', 'k', { versionId: marker.versionId }))).toBe('MethodNotAllowed');
    expect(objects.delete('rrr', 'k', { versionId: marker.versionId })).toEqual({
      versionId: marker.versionId,
      deleteMarker: true,
    });
    expect(objects.open('rrr', 'k').row.versionId).toBe(v1);
  });

  it('refuses malformed version ids and answers NoSuchVersion for unknown well-formed ones', async () => {
    buckets.create('mmm');
    await put('mmm', { key: 'k', text: 'x' });
    expect(code(() => objects.open('mmm', 'k', { versionId: 'nope' }))).toBe('InvalidArgument');
    expect(code(() => objects.open('mmm', 'k', { versionId: '0190a0a0-0000-7000-8000-000000000000' }))).toBe(
      'NoSuchVersion',
    );
    expect(code(() => objects.delete('mmm', 'k', { versionId: 'nope' }))).toBe('InvalidArgument');
    expect(objects.open('mmm', 'k', { versionId: 'null' }).row.versionId).toBe('null');
  });
});

describe('object lock', () => {
  function lockBucket(name: string, days?: number): void {
    buckets.create(name, { objectLock: true });
    if (days !== undefined) {
      buckets.enableObjectLock(name, (config) => ({
        ...config,
        objectLock: { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days } },
      }));
    }
  }

  it('applies the default retention to new versions and lets it lapse with time', async () => {
    lockBucket('ddd', 1);
    const id = await put('ddd', { key: 'k', text: 'x' });
    const row = objects.open('ddd', 'k').row;
    expect(row.retention?.mode).toBe('GOVERNANCE');
    expect(Date.parse(row.retention?.retainUntilDate ?? '')).toBe(clock - 1000 + DAY_MS);
    expect(code(() => objects.delete('ddd', 'k', { versionId: id }))).toBe('AccessDenied');
    expect(objects.delete('ddd', 'k', { versionId: id, bypassGovernance: true }).versionId).toBe(id);
    const later = await put('ddd', { key: 'k', text: 'y' });
    clock += 2 * DAY_MS;
    expect(objects.delete('ddd', 'k', { versionId: later }).versionId).toBe(later);
  });

  it('COMPLIANCE blocks even with bypass; a legal hold blocks until it is removed', async () => {
    lockBucket('ccc');
    const until = new Date(clock + DAY_MS).toISOString();
    const compliant = await put(
      'ccc',
      { key: 'a', text: 'x' },
      { lock: { retention: { mode: 'COMPLIANCE', retainUntilDate: until } } },
    );
    expect(code(() => objects.delete('ccc', 'a', { versionId: compliant, bypassGovernance: true }))).toBe(
      'AccessDenied',
    );
    const held = await put('ccc', { key: 'b', text: 'x' }, { lock: { legalHold: 'ON' } });
    expect(code(() => objects.delete('ccc', 'b', { versionId: held, bypassGovernance: true }))).toBe('AccessDenied');
    objects.lock.putLegalHold({ bucket: 'ccc', key: 'b', versionId: held }, 'OFF');
    expect(objects.delete('ccc', 'b', { versionId: held }).versionId).toBe(held);
    // A DELETE without a version id only adds a delete marker, which the lock allows.
    expect(objects.delete('ccc', 'a').deleteMarker).toBe(true);
  });

  it('refuses lock settings on a bucket without object lock, before reading the body', async () => {
    buckets.create('plain');
    await expect(put('plain', { key: 'k', text: 'x' }, { lock: { legalHold: 'OFF' } })).rejects.toMatchObject({
      code: 'InvalidRequest',
    });
  });
});
