// Fills a data directory with many small objects under one prefix before Store starts (the console's scale
// test): one real blob written through Store's BlobStore and N rows referencing it, inserted through Store's own
// repositories in large transactions (as bench/seed-metadata.mjs does), so 100,000 keys take seconds, not minutes.

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BlobStore } from '../../../src/storage/blobs/blob-store.js';
import { checkSseKeyMatches, loadOrCreateSseKey, lockDataDir } from '../../../src/storage/data-dir.js';
import { MetadataStore } from '../../../src/storage/db/metadata-store.js';

export const manyKey = (prefix: string, i: number): string => `${prefix}obj-${String(i).padStart(6, '0')}.txt`;

export async function seedManyKeys(opts: {
  dataDir: string;
  bucket: string;
  prefix: string;
  count: number;
}): Promise<void> {
  mkdirSync(opts.dataDir, { recursive: true });
  const lock = lockDataDir(opts.dataDir);
  const meta = MetadataStore.open(join(opts.dataDir, 'meta.db'));
  try {
    const masterKey = loadOrCreateSseKey(opts.dataDir, undefined);
    checkSseKeyMatches(meta, masterKey);
    const blobs = new BlobStore({ dataDir: opts.dataDir, masterKey });
    await blobs.init();
    const body = Buffer.from('seeded\n');
    const staged = await blobs.stageBuffer(body);
    await staged.commit();
    const now = Date.now();
    meta.transaction(() =>
      meta.buckets.insert({
        name: opts.bucket,
        createdAt: now,
        region: 'us-east-1',
        versioning: 'Unversioned',
        objectLock: false,
        config: {},
      }),
    );
    const row = {
      bucket: opts.bucket,
      key: '',
      versionId: 'null',
      isLatest: true,
      isDeleteMarker: false,
      size: body.length,
      etag: createHash('md5').update(body).digest('hex'),
      lastModified: now,
      headers: { contentType: 'text/plain' },
      userMeta: {},
      checksumAlgorithm: undefined,
      checksumValue: undefined,
      checksumType: undefined,
      blobId: staged.id,
      partCount: undefined,
      storageClass: 'STANDARD',
    };
    for (let from = 0; from < opts.count; from += 50_000) {
      meta.transaction(() => {
        for (let i = from; i < Math.min(opts.count, from + 50_000); i++)
          meta.objects.insert({ ...row, key: manyKey(opts.prefix, i) });
      });
    }
    while (meta.transaction(() => meta.objectSearch.indexQueued(50_000)) > 0);
    await meta.durable();
  } finally {
    await meta.close();
    lock.release();
  }
}
