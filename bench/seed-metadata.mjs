// @ts-check
// Fills a Store data directory with N objects fast, before Store starts, for the scale run (`--objects=N`):
// one real 4 KiB blob written through Store's own BlobStore, and N object rows that all reference it, inserted
// through Store's own ObjectsRepo in large transactions. Usage: node bench/seed-metadata.mjs <dataDir> <bucket> <n>
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS_PER_TRANSACTION = 50_000;
/** Objects per prefix `k/NNNNNNN/`: a delimiter listing of `k/` sees n / KEYS_PER_PREFIX common prefixes. */
const KEYS_PER_PREFIX = 100;
export const SEED_OBJECT_SIZE = 4096;

/** The key of seeded object i (zero-padded so key order is numeric order). @param {number} i */
export const seededKey = (i) =>
  `k/${String(Math.floor(i / KEYS_PER_PREFIX)).padStart(7, '0')}/obj-${String(i).padStart(7, '0')}`;

/** The plaintext every seeded object holds: deterministic, so a reader can verify GETs. */
export function seededBody() {
  const body = Buffer.alloc(SEED_OBJECT_SIZE);
  // A fixed-seed fill keeps it reproducible without storing it: sha256 chained over a counter.
  for (let at = 0, i = 0; at < body.length; i++) at += createHash('sha256').update(`seed:${i}`).digest().copy(body, at);
  return body;
}

/**
 * Seeds `count` objects into `bucket` (created, unversioned) in the data directory. The server must not be
 * running on it (the directory lock is taken). Returns the seconds it took.
 * @param {{ dataDir: string, bucket: string, count: number, log?: (msg: string) => void }} opts
 */
export async function seedMetadata({ dataDir, bucket, count, log = () => {} }) {
  const dist = new URL('../dist/storage/', import.meta.url);
  const { MetadataStore } = await import(new URL('db/metadata-store.js', dist).href);
  const { BlobStore } = await import(new URL('blobs/blob-store.js', dist).href);
  const { lockDataDir, loadOrCreateSseKey, checkSseKeyMatches } = await import(new URL('data-dir.js', dist).href);
  const started = performance.now();
  const lock = lockDataDir(dataDir);
  const meta = MetadataStore.open(path.join(dataDir, 'meta.db'));
  try {
    const masterKey = loadOrCreateSseKey(dataDir, undefined);
    checkSseKeyMatches(meta, masterKey);
    const blobs = new BlobStore({ dataDir, masterKey });
    await blobs.init();
    const body = seededBody();
    const staged = await blobs.stageBuffer(body);
    await staged.commit();
    const etag = createHash('md5').update(body).digest('hex');
    const now = Date.now();
    meta.transaction(() =>
      meta.buckets.insert({
        name: bucket,
        createdAt: now,
        region: 'us-east-1',
        versioning: 'Unversioned',
        objectLock: false,
        config: {},
      }),
    );
    const row = {
      bucket,
      key: '',
      versionId: 'null',
      isLatest: true,
      isDeleteMarker: false,
      size: SEED_OBJECT_SIZE,
      etag,
      lastModified: now,
      headers: { contentType: 'application/octet-stream' },
      userMeta: {},
      checksumAlgorithm: undefined,
      checksumValue: undefined,
      checksumType: undefined,
      blobId: staged.id,
      partCount: undefined,
      storageClass: 'STANDARD',
    };
    // Bulk-load pragmas for this connection only: Store reopens with its own settings. The final durable() and
    // close() checkpoint-free WAL fsync make every row durable before Store starts.
    meta.db.pragma('cache_size = -262144');
    for (let from = 0; from < count; from += ROWS_PER_TRANSACTION) {
      const to = Math.min(count, from + ROWS_PER_TRANSACTION);
      meta.transaction(() => {
        for (let i = from; i < to; i++) meta.objects.insert({ ...row, key: seededKey(i) });
      });
      if (to % 200_000 === 0 || to === count)
        log(`seeded ${to.toLocaleString('en-US')} objects (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    // Index the rows the search triggers queued, so the Store under test does not spend its first seconds doing it.
    while (meta.transaction(() => meta.objectSearch.indexQueued(ROWS_PER_TRANSACTION)) > 0);
    log(`indexed for search (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    meta.db.pragma('wal_checkpoint(TRUNCATE)');
    await meta.durable();
  } finally {
    await meta.close();
    lock.release();
  }
  return (performance.now() - started) / 1000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dataDir, bucket, n] = process.argv.slice(2);
  if (!dataDir || !bucket || !Number.isInteger(Number(n))) {
    process.stderr.write('usage: node bench/seed-metadata.mjs <dataDir> <bucket> <count>\n');
    process.exit(2);
  }
  const seconds = await seedMetadata({ dataDir, bucket, count: Number(n), log: (m) => process.stderr.write(`${m}\n`) });
  process.stderr.write(`done in ${seconds.toFixed(1)} s\n`);
}
