// Schema migrations are forward-only and proven on real data: a data directory written by an earlier build of Store
// (schema version 5, test/fixtures/schema5-data.tar.gz, made by test/fixtures/make-schema5-data.mjs from commit
// 2e0fc91) opens under this build, migrates to the latest schema, serves every old object version byte-exact with
// its metadata, tags, lock settings and bucket configuration, honours the old access keys, finishes the old build's
// unfinished multipart upload and accepts new writes; the upgraded data passes a full integrity scrub; a second boot
// changes nothing. A database from a newer release is refused at boot and left untouched.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  GetBucketCorsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  GetObjectCommand,
  GetObjectLegalHoldCommand,
  GetObjectRetentionCommand,
  GetObjectTaggingCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDotenv } from '../../src/config/dotenv.js';
import { MIGRATIONS } from '../../src/storage/db/migrations.js';
import { sdkClient } from '../helpers/clients.js';
import { REPO_ROOT, runServeExpectingExit, tempDir, type RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

interface FixtureObject {
  bucket: string;
  key: string;
  versionId: string | null;
  etag: string;
  size: number;
  sha256: string;
  contentType: string | null;
  metadata: Record<string, string>;
  tagging: string | null;
}
interface Expected {
  schemaVersion: number;
  adminPassword: string;
  buckets: string[];
  objects: FixtureObject[];
  deleteMarker: { bucket: string; key: string; versionId: string };
  lockedVersions: { retained: string; held: string };
  unfinishedUpload: { bucket: string; key: string; uploadId: string; etag: string; size: number; sha256: string };
  keys: {
    reader: { accessKeyId: string; secretAccessKey: string };
    disabled: { accessKeyId: string; secretAccessKey: string };
  };
}

const FIXTURES = join(REPO_ROOT, 'test/fixtures');
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'schema5-expected.json'), 'utf8')) as Expected;
const LATEST = MIGRATIONS.length;

/** The fixture unpacked into a fresh temp directory, and the environment its `.env` gives, relocated there. */
function unpackFixture(): { dataDir: string; env: Record<string, string> } {
  const root = tempDir('store-upgrade-');
  execFileSync('tar', ['-xzf', join(FIXTURES, 'schema5-data.tar.gz'), '-C', root]);
  const dotenv = parseDotenv(readFileSync(join(root, '.env'), 'utf8'));
  const dataDir = join(root, 'data');
  return { dataDir, env: { ...dotenv, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' } };
}

/** user_version and the schema's DDL, read from a closed or running data directory. */
function schemaOf(dataDir: string): { version: number; ddl: string[] } {
  const db = new BetterSqlite3(join(dataDir, 'meta.db'), { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const ddl = db
      .prepare(`SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
      .pluck()
      .all() as string[];
    return { version, ddl };
  } finally {
    db.close();
  }
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const migratedLines = (server: RunningServer): Array<Record<string, unknown>> =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'metadata schema migrated');

describe('a data directory from schema version 5', () => {
  let fixture: { dataDir: string; env: Record<string, string> };
  let schemaAfterFirstBoot: { version: number; ddl: string[] };
  beforeAll(() => {
    fixture = unpackFixture();
    expect(schemaOf(fixture.dataDir).version).toBe(EXPECTED.schemaVersion);
  });
  afterAll(() => {
    if (fixture !== undefined) rmSync(join(fixture.dataDir, '..'), { recursive: true, force: true });
  });
  // The fixture's own keys and admin password: its .env sets them.
  const store = useStore(() => ({
    dataDir: fixture.dataDir,
    env: { ...fixture.env, STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100' },
    credentials: {
      accessKeyId: fixture.env['ROOT_ACCESS_KEY_ID'],
      secretAccessKey: fixture.env['ROOT_SECRET_ACCESS_KEY'],
      adminPassword: EXPECTED.adminPassword,
    },
  }));

  beforeAll(() => {
    schemaAfterFirstBoot = schemaOf(fixture.dataDir);
  });

  it('is migrated to the latest schema at boot, and the log says from which version', async () => {
    expect(schemaAfterFirstBoot.version).toBe(LATEST);
    await expect.poll(() => migratedLines(store.server)).toHaveLength(1);
    expect(migratedLines(store.server)[0]).toMatchObject({ fromVersion: EXPECTED.schemaVersion, toVersion: LATEST });
  });

  it('serves every object version the old build wrote, byte-exact, with its ETag, type, metadata and tags', async () => {
    for (const o of EXPECTED.objects) {
      const versionId = o.versionId ?? undefined;
      const got = await store.s3.send(new GetObjectCommand({ Bucket: o.bucket, Key: o.key, VersionId: versionId }));
      const body = await got.Body!.transformToByteArray();
      const what = `${o.bucket}/${o.key}@${o.versionId}`;
      expect({ size: body.length, sha256: sha256(body), etag: got.ETag }, what).toEqual({
        size: o.size,
        sha256: o.sha256,
        etag: o.etag,
      });
      if (o.contentType) expect(got.ContentType, what).toBe(o.contentType);
      expect(got.Metadata ?? {}, what).toEqual(o.metadata);
      const tags = await store.s3.send(
        new GetObjectTaggingCommand({ Bucket: o.bucket, Key: o.key, VersionId: versionId }),
      );
      expect(
        new URLSearchParams((tags.TagSet ?? []).map((t): [string, string] => [t.Key ?? '', t.Value ?? ''])).toString(),
        what,
      ).toBe(o.tagging ?? '');
    }
  });

  it('keeps the version history and the delete marker on top', async () => {
    const { bucket, key, versionId } = EXPECTED.deleteMarker;
    const list = await store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
    expect(list.DeleteMarkers?.map((m) => [m.VersionId, m.IsLatest])).toEqual([[versionId, true]]);
    const written = EXPECTED.objects
      .filter((o) => o.bucket === bucket && o.key === key)
      .map((o) => o.versionId)
      .reverse();
    expect(list.Versions?.map((v) => v.VersionId)).toEqual(written); // newest first
    await expect(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
  });

  it('keeps bucket configuration, retention and legal hold', async () => {
    const plain = EXPECTED.buckets[0] as string;
    expect((await store.s3.send(new GetBucketTaggingCommand({ Bucket: plain }))).TagSet).toEqual([
      { Key: 'team', Value: 'ops' },
    ]);
    expect((await store.s3.send(new GetBucketCorsCommand({ Bucket: plain }))).CORSRules?.[0]?.AllowedOrigins).toEqual([
      'https://app.example.com',
    ]);
    expect(
      (await store.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: plain }))).Rules?.[0],
    ).toMatchObject({ ID: 'tmp-expiry', Expiration: { Days: 30 } });
    const locked = 'legacy-locked';
    const retention = await store.s3.send(
      new GetObjectRetentionCommand({
        Bucket: locked,
        Key: 'contract.pdf',
        VersionId: EXPECTED.lockedVersions.retained,
      }),
    );
    expect(retention.Retention).toMatchObject({
      Mode: 'GOVERNANCE',
      RetainUntilDate: new Date('2099-01-01T00:00:00Z'),
    });
    await expect(
      store.s3.send(
        new DeleteObjectCommand({ Bucket: locked, Key: 'contract.pdf', VersionId: EXPECTED.lockedVersions.retained }),
      ),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    const hold = await store.s3.send(
      new GetObjectLegalHoldCommand({ Bucket: locked, Key: 'evidence.txt', VersionId: EXPECTED.lockedVersions.held }),
    );
    expect(hold.LegalHold?.Status).toBe('ON');
  });

  it('honours the scoped access keys the old build issued (secrets sealed under the same root secret)', async () => {
    const reader = sdkClient(store.server, EXPECTED.keys.reader);
    const got = await reader.send(new GetObjectCommand({ Bucket: 'legacy-plain', Key: 'nested/ünïcødé key (1).txt' }));
    expect((await got.Body!.transformToByteArray()).length).toBe(20_000);
    await expect(reader.send(new GetObjectCommand({ Bucket: 'legacy-plain', Key: 'small.txt' }))).rejects.toMatchObject(
      { name: 'AccessDenied' },
    );
    await expect(
      reader.send(new PutObjectCommand({ Bucket: 'legacy-plain', Key: 'nested/new', Body: 'x' })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    const disabled = sdkClient(store.server, EXPECTED.keys.disabled);
    await expect(
      disabled.send(new GetObjectCommand({ Bucket: 'legacy-plain', Key: 'small.txt' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  });

  it('completes the multipart upload the old build left unfinished', async () => {
    const u = EXPECTED.unfinishedUpload;
    const uploads = await store.s3.send(new ListMultipartUploadsCommand({ Bucket: u.bucket }));
    expect(uploads.Uploads?.map((x) => x.UploadId)).toEqual([u.uploadId]);
    const parts = await store.s3.send(new ListPartsCommand({ Bucket: u.bucket, Key: u.key, UploadId: u.uploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([[1, u.etag, u.size]]);
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: u.bucket,
        Key: u.key,
        UploadId: u.uploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: u.etag }] },
      }),
    );
    const body = await (
      await store.s3.send(new GetObjectCommand({ Bucket: u.bucket, Key: u.key }))
    ).Body!.transformToByteArray();
    expect(sha256(body)).toBe(u.sha256);
  });

  it('accepts new writes beside the old data, in old and new buckets', async () => {
    await store.s3.send(
      new PutObjectCommand({ Bucket: 'legacy-versioned', Key: 'doc.txt', Body: 'written after the upgrade\n' }),
    );
    const latest = await store.s3.send(new GetObjectCommand({ Bucket: 'legacy-versioned', Key: 'doc.txt' }));
    expect(await latest.Body!.transformToString()).toBe('written after the upgrade\n');
    const big = Buffer.alloc(200_000, 7);
    await store.s3.send(new PutObjectCommand({ Bucket: 'legacy-plain', Key: 'after-upgrade.bin', Body: big }));
    expect(
      sha256(
        await (
          await store.s3.send(new GetObjectCommand({ Bucket: 'legacy-plain', Key: 'after-upgrade.bin' }))
        ).Body!.transformToByteArray(),
      ),
    ).toBe(sha256(big));
  });

  it('signs the old admin in, and backfills what later schemas added: usage counters, the search index', async () => {
    const buckets = (await store.adminCall('GET', '/buckets')).body as {
      buckets: Array<{ name: string; objectCount: number }>;
    };
    const current = (bucket: string): number =>
      new Set(EXPECTED.objects.filter((o) => o.bucket === bucket).map((o) => o.key)).size;
    // legacy-plain: its objects plus the upload completed and the object written above; legacy-versioned: doc.txt is
    // current again (written above) beside kept.txt.
    expect(Object.fromEntries(buckets.buckets.map((b) => [b.name, b.objectCount]))).toMatchObject({
      'legacy-plain': current('legacy-plain') + 2,
      'legacy-versioned': 2,
      'legacy-locked': current('legacy-locked'),
    });
    await expect
      .poll(
        async () => {
          const found = (await store.adminCall('GET', `/objects/search?q=${encodeURIComponent('ünïcødé')}`)).body as {
            items: Array<{ key: string }>;
          };
          return found.items.map((i) => i.key);
        },
        { timeout: 15_000 },
      )
      .toEqual(['nested/ünïcødé key (1).txt']);
  });

  it('passes a full integrity scrub: every old blob and inline row decrypts and matches its digest', async () => {
    expect((await store.adminCall('POST', '/integrity/scrub')).status).toBe(202);
    let status: { counts: Record<string, number>; currentPass: unknown } = { counts: {}, currentPass: {} };
    await expect
      .poll(
        async () => {
          status = (await store.adminCall('GET', '/integrity')).body as typeof status;
          return status.currentPass;
        },
        { timeout: 30_000 },
      )
      .toBeNull();
    // Every version but the delete marker: the fixture's, the completed upload, and the two written above.
    expect(status.counts).toMatchObject({ corrupt: 0, ok: EXPECTED.objects.length + 3 });
  });

  it('boots a second time without migrating or changing the schema', async () => {
    await store.restart();
    const first = EXPECTED.objects[0] as FixtureObject;
    const got = await store.s3.send(new GetObjectCommand({ Bucket: first.bucket, Key: first.key }));
    expect(sha256(await got.Body!.transformToByteArray())).toBe(first.sha256);
    expect(migratedLines(store.server)).toEqual([]);
    expect(schemaOf(fixture.dataDir)).toEqual(schemaAfterFirstBoot);
  });
});

describe('a data directory from a newer release', () => {
  it('is refused at boot with a clear message, and left as it was', async () => {
    const { dataDir, env } = unpackFixture();
    const db = new BetterSqlite3(join(dataDir, 'meta.db'));
    db.pragma(`user_version = ${LATEST + 1}`);
    db.close();
    const before = sha256(readFileSync(join(dataDir, 'meta.db')));
    const { code, output } = await runServeExpectingExit(env);
    expect(code).toBe(73);
    expect(output).toContain(
      `store: refusing to start, ${join(dataDir, 'meta.db')} has schema version ${LATEST + 1}, newer than this build's ${LATEST}`,
    );
    expect(output).toContain('Migrations only go forward');
    expect(sha256(readFileSync(join(dataDir, 'meta.db')))).toBe(before);
    expect(schemaOf(dataDir).version).toBe(LATEST + 1);
  });
});
