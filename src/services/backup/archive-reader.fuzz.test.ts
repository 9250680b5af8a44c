// Properties of the restore archive reader on hostile files: random bytes, truncations and mutations of real archives,
// and zips whose end-of-central-directory record lies, all end in AppError InvalidArchive or in entries that read back
// exactly their declared size, within a time limit, with every file descriptor closed; a whole restore of a mutated
// archive leaves nothing in DATA_DIR/tmp and no staged blob behind.
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import { NO_EVENTS } from '../events/event-sink.js';
import { ArchiveReader, type RestoreLimits } from './archive-reader.js';
import { RestoreService } from './restore-service.js';
import { expectCodeIn, mutate, mutationArb, outcomeOfAsync, within } from '../../../test/helpers/fuzz.js';
import { openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { zip } from '../../../test/helpers/zip-craft.js';

const HANG_MS = 5000;
const LIMITS: RestoreLimits = {
  maxTotalBytes: 1024 * 1024,
  maxEntryBytes: 256 * 1024,
  maxEntries: 20,
  maxManifestBytes: 8192,
};
const FIXTURE = readFileSync(join(import.meta.dirname, '../../../test/fixtures/v1-backup.zip'));
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-zipfuzz-'));
let base: Buffer;
let counter = 0;

const openFds = (): number => readdirSync('/proc/self/fd').length;

/** Opens the archive, reads every entry whole, closes it: the reader's whole life on one hostile file. */
async function readAll(bytes: Buffer): Promise<number> {
  const path = join(dir, `a${counter++}.zip`);
  writeFileSync(path, bytes);
  try {
    const reader = await ArchiveReader.open(path, LIMITS);
    try {
      let total = 0;
      for (const name of [...reader.names()]) {
        let seen = 0;
        for await (const chunk of await reader.open(name)) seen += (chunk as Buffer).length;
        expect(seen).toBe(reader.sizeOf(name));
        total += seen;
      }
      return total;
    } finally {
      reader.close();
    }
  } finally {
    rmSync(path, { force: true });
  }
}

/** A zip's end-of-central-directory record with any field values (entry counts, sizes, offsets). */
const eocdArb = fc
  .record({
    disk: fc.integer({ min: 0, max: 0xffff }),
    cdDisk: fc.integer({ min: 0, max: 0xffff }),
    entriesHere: fc.integer({ min: 0, max: 0xffff }),
    entries: fc.integer({ min: 0, max: 0xffff }),
    cdSize: fc.nat(),
    cdOffset: fc.nat(),
    comment: fc.uint8Array({ maxLength: 20 }),
  })
  .map((e) => {
    const rec = Buffer.alloc(22);
    rec.writeUInt32LE(0x06054b50, 0);
    rec.writeUInt16LE(e.disk, 4);
    rec.writeUInt16LE(e.cdDisk, 6);
    rec.writeUInt16LE(e.entriesHere, 8);
    rec.writeUInt16LE(e.entries, 10);
    rec.writeUInt32LE(e.cdSize >>> 0, 12);
    rec.writeUInt32LE(e.cdOffset >>> 0, 16);
    rec.writeUInt16LE(e.comment.length, 20);
    return Buffer.concat([rec, e.comment]);
  });

const hostileArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 4 }).map((edits) => mutate(base, edits)) },
  {
    weight: 2,
    arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }).map((edits) => mutate(FIXTURE, edits)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.uint8Array({ maxLength: 300 }), eocdArb).map(([junk, eocd]) => Buffer.concat([junk, eocd])),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), eocdArb)
      .map(([cut, eocd]) => Buffer.concat([base.subarray(0, cut % base.length), eocd])),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)) },
);

beforeAll(async () => {
  base = await zip([
    ['manifest.json', Buffer.from(JSON.stringify({ version: 2, hello: 'x'.repeat(300) })), { compress: true }],
    ['data/a', Buffer.alloc(3000, 7)],
    ['data/b', Buffer.from('bytes '.repeat(500)), { compress: true }],
    ['index/000001.jsonl', Buffer.from('{}\n')],
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ArchiveReader on hostile files', () => {
  it('the unmodified archives read back whole', async () => {
    expect(await readAll(base)).toBe(3000 + 3000 + 3 + JSON.stringify({ version: 2, hello: 'x'.repeat(300) }).length);
    expect(await readAll(FIXTURE)).toBeGreaterThan(20_000);
  });

  it('any mutation, truncation or lying directory: InvalidArchive or exact entries, never a hang, crash or open file', async () => {
    const before = openFds();
    await fc.assert(
      fc.asyncProperty(hostileArb, async (bytes) => {
        expectCodeIn(await outcomeOfAsync(() => within(readAll(bytes), HANG_MS, 'reading the archive')), [
          'InvalidArchive',
        ]);
      }),
      { numRuns: 300 },
    );
    // yauzl closes its descriptor asynchronously once the last stream is gone.
    for (let i = 0; i < 50 && openFds() > before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBeLessThanOrEqual(before);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('RestoreService on mutated archives', () => {
  let fx: ServiceFixture;
  beforeAll(async () => {
    fx = await openServices('2026-03-01T00:00:00Z');
  });
  afterAll(async () => fx.close());

  const blobFiles = (): string[] =>
    readdirSync(join(fx.dir, 'blobs'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();

  it('every failed restore leaves DATA_DIR/tmp empty and adds no blob; the error is a client error', async () => {
    const restores = new RestoreService({
      meta: fx.meta,
      blobs: fx.blobs,
      events: NO_EVENTS,
      dataDir: fx.dir,
      region: 'us-east-1',
      logger: createLogger('fatal'),
      limits: LIMITS,
    });
    await restores.restore({ kind: 'instance' }, { body: Readable.from([FIXTURE]) });
    const before = openFds();
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (edits) => {
        const blobs = blobFiles();
        const outcome = await outcomeOfAsync(() =>
          within(
            restores.restore({ kind: 'instance' }, { body: Readable.from([mutate(FIXTURE, edits)]) }),
            HANG_MS,
            'the restore',
          ),
        );
        expectCodeIn(outcome, ['InvalidArchive', 'MissingRequestBodyError']);
        expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
        // A refused archive changes nothing; an accepted one (a mutation of bytes nobody reads) replaces the blobs.
        if (!outcome.ok) expect(blobFiles()).toEqual(blobs);
      }),
      { numRuns: 60 },
    );
    for (let i = 0; i < 50 && openFds() > before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBeLessThanOrEqual(before);
  });
});
