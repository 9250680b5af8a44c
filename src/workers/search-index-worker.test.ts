// The search-index loop over a real database: it works off a queue larger than one batch, then stops cleanly.

import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.js';
import { openServices, type ServiceFixture } from '../../test/helpers/services.js';
import { INDEX_BATCH, ObjectSearchService } from '../services/objects/object-search-service.js';
import { startSearchIndexWorker } from './search-index-worker.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2030-01-01T00:00:00Z');
});
afterEach(async () => {
  await fx.close();
});

it('indexes every queued row, over several batches, and stops when asked', async () => {
  fx.buckets.create('bulk');
  const rows = INDEX_BATCH * 2 + 17;
  fx.meta.transaction(() => {
    for (let i = 0; i < rows; i++) {
      fx.meta.objects.insert({
        bucket: 'bulk',
        key: `file-${i}.dat`,
        versionId: 'null',
        isLatest: true,
        isDeleteMarker: false,
        size: 1,
        etag: 'e',
        lastModified: 0,
        headers: {},
        userMeta: {},
        checksumAlgorithm: undefined,
        checksumValue: undefined,
        checksumType: undefined,
        blobId: undefined,
        partCount: undefined,
        storageClass: 'STANDARD',
      });
    }
  });
  const count = (sql: string) => fx.meta.db.prepare(sql).pluck().get() as number;
  expect(count('SELECT count(*) FROM object_search_queue')).toBe(rows);
  const loop = startSearchIndexWorker({
    service: new ObjectSearchService({ meta: fx.meta }),
    logger: createLogger('silent'),
    intervalMs: 5,
  });
  try {
    for (let waited = 0; count('SELECT count(*) FROM object_search_queue') > 0; waited += 10) {
      expect(waited).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await loop.stop();
  }
  expect(count('SELECT count(*) FROM object_search')).toBe(rows);
});
