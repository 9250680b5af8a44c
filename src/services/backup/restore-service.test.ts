// RestoreService's intake over real services in a temp directory: the upload limit while bytes arrive (without
// destroying the request, so the error can still be answered), the free-space checks, and nothing left in tmp/.

import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { BlobStore, type StagedBlob } from '../../storage/blobs/blob-store.js';
import { createLogger } from '../../observability/logger.js';
import { NO_EVENTS } from '../events/event-sink.js';
import type { FreeBytes } from '../free-space.js';
import { RestoreService } from './restore-service.js';

const MiB = 1024 * 1024;
let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-03-01T00:00:00Z');
});
afterEach(async () => {
  await fx.close();
});

function service(freeBytes?: FreeBytes, maxTotalBytes = MiB, blobs: BlobStore = fx.blobs): RestoreService {
  return new RestoreService({
    meta: fx.meta,
    blobs,
    events: NO_EVENTS,
    dataDir: fx.dir,
    region: 'us-east-1',
    logger: createLogger('fatal'),
    limits: { maxTotalBytes, maxEntryBytes: MiB, maxEntries: 10, maxManifestBytes: 4096 },
    ...(freeBytes ? { freeBytes } : {}),
  });
}

/** A request-like stream that keeps producing 64 KiB chunks while it is read, up to `total`. */
function upload(total: number): PassThrough & { sent: () => number } {
  const body = new PassThrough();
  let sent = 0;
  const pump = (): void => {
    while (sent < total) {
      sent += 64 * 1024;
      if (!body.write(Buffer.alloc(64 * 1024, 1))) {
        body.once('drain', pump);
        return;
      }
    }
    body.end();
  };
  pump();
  return Object.assign(body, { sent: () => sent });
}

describe('RestoreService intake', () => {
  it('refuses an upload over RESTORE_MAX_TOTAL_BYTES as it arrives, pausing (not destroying) the request', async () => {
    const body = upload(8 * MiB);
    await expect(service().restore({ kind: 'instance' }, { body })).rejects.toMatchObject({ code: 'EntityTooLarge' });
    expect(body.destroyed).toBe(false);
    expect(body.isPaused()).toBe(true);
    expect(body.sent()).toBeLessThan(8 * MiB);
    expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
  });

  it('refuses a declared length over the limit before reading a byte', async () => {
    const body = upload(64 * 1024);
    await expect(service().restore({ kind: 'instance' }, { body, declaredLength: 2 * MiB })).rejects.toMatchObject({
      code: 'EntityTooLarge',
    });
    expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
  });

  it('checks free space for the upload (from its length) before reading it', async () => {
    let asked = 0;
    const full: FreeBytes = async () => {
      asked++;
      return 10 * MiB;
    };
    const body = upload(512 * 1024);
    await expect(
      service(full, 200 * MiB).restore({ kind: 'instance' }, { body, declaredLength: 512 * 1024 }),
    ).rejects.toMatchObject({ code: 'InsufficientStorage', statusCode: 507 });
    expect(asked).toBe(1);
    expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
  });

  it('an empty body is MissingRequestBodyError', async () => {
    const body = new PassThrough();
    body.end();
    await expect(service().restore({ kind: 'instance' }, { body })).rejects.toMatchObject({
      code: 'MissingRequestBodyError',
    });
  });

  it('a restore that fails while staging an entry closes the archive (its disk space is freed), leaving tmp/ empty', async () => {
    /** A disk that fills up after the first chunk of a file blob. */
    class FullDisk extends BlobStore {
      override async stage(source: AsyncIterable<Buffer | Uint8Array>): Promise<StagedBlob> {
        await source[Symbol.asyncIterator]().next();
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }
    }
    const full = new FullDisk({ dataDir: fx.dir, masterKey: Buffer.alloc(32, 7) });
    // A v1 archive with one entry of several chunks, so the failure leaves its entry stream unfinished.
    const bytes = randomBytes(600 * 1024);
    const zip = new yazl.ZipFile();
    zip.addBuffer(bytes, 'data/bkt/big', { compress: false });
    const manifest = {
      version: 1,
      kind: 'instance',
      createdAt: '2023-05-01T12:00:00.000Z',
      buckets: [
        {
          name: 'bkt',
          objects: [
            {
              key: 'big',
              size: bytes.length,
              md5: createHash('md5').update(bytes).digest('hex'),
              file: 'data/bkt/big',
              lastModified: '2023-05-01T12:00:00.000Z',
            },
          ],
        },
      ],
    };
    zip.addBuffer(Buffer.from(JSON.stringify(manifest)), 'manifest.json');
    zip.end();
    const body = zip.outputStream as unknown as Readable;
    await expect(service(undefined, MiB, full).restore({ kind: 'instance' }, { body })).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    const open = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(open.filter((target) => target.includes('restore-'))).toEqual([]);
    expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
  });
});
