// A copy reads the source version it looked up, even when an overwrite of the source commits while the copy waits
// to be admitted (the free-space check can wait on a statfs): an inline source's bytes go with its old version in
// the overwriting transaction, so the copy must have taken them at its lookup. CopyObject and UploadPartCopy.

import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { MultipartService } from './multipart-service.js';
import { ReadPins } from './object-reader.js';
import { ObjectService } from './object-service.js';
import { NO_LEASE, type WriteLease, type WriteReserve } from './write-reserve.js';

let fx: ServiceFixture;
/** Objects and multipart services whose free-space check waits, when armed, until released. */
let gated: { objects: ObjectService; multipart: MultipartService; arm(): void; release(): void; waiting(): boolean };

beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
  fx.buckets.create('bkt');
  let armed = false;
  let open: (() => void) | undefined;
  const reserve = {
    admit: async (): Promise<WriteLease> => {
      if (armed) {
        armed = false;
        await new Promise<void>((resolve) => {
          open = resolve;
        });
      }
      return NO_LEASE;
    },
  } as unknown as WriteReserve;
  const objects = new ObjectService({ meta: fx.meta, blobs: fx.blobs, pins: new ReadPins(), reserve });
  gated = {
    objects,
    multipart: new MultipartService({ meta: fx.meta, blobs: fx.blobs, objects }),
    arm: () => {
      armed = true;
    },
    release: () => open?.(),
    waiting: () => open !== undefined,
  };
});

afterEach(() => fx.close());

async function read(key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of fx.objects.open('bkt', key).stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

const put = (key: string, text: string) =>
  fx.objects.put({ bucket: 'bkt', key, body: body(Buffer.from(text)), headers: {}, userMeta: {} });

async function untilWaiting(): Promise<void> {
  while (!gated.waiting()) await new Promise((r) => setImmediate(r));
}

describe('copy sources overwritten while the copy waits', () => {
  it('CopyObject copies the version it looked up', async () => {
    await put('src', 'the old bytes');
    gated.arm();
    const copying = gated.objects.copy({
      bucket: 'bkt',
      key: 'dst',
      source: { bucket: 'bkt', key: 'src' },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
    });
    await untilWaiting();
    await put('src', 'the new bytes'); // commits now, dropping the old inline bytes
    gated.release();
    await copying;
    expect(await read('dst')).toBe('the old bytes');
    expect(await read('src')).toBe('the new bytes');
  });

  it('UploadPartCopy copies the version it looked up', async () => {
    await put('src', 'the old bytes');
    const upload = fx.multipart.create({ bucket: 'bkt', key: 'mp', headers: {}, userMeta: {} });
    const opened = gated.objects.openCopySource({ bucket: 'bkt', key: 'src' });
    gated.arm();
    const copying = gated.multipart.uploadPartCopy({
      bucket: 'bkt',
      key: 'mp',
      uploadId: upload.uploadId,
      partNumber: 1,
      source: { stream: () => opened.stream(), size: opened.row.size },
    });
    await untilWaiting();
    await put('src', 'the new bytes');
    gated.release();
    const part = await copying;
    expect(part.size).toBe('the old bytes'.length);
    expect(part.etag).toBe(createHash('md5').update('the old bytes').digest('hex'));
  });

  it('a refused copy (507) closes the source stream it opened', async () => {
    await put('src', 'bytes');
    const refusing = new ObjectService({
      meta: fx.meta,
      blobs: fx.blobs,
      pins: new ReadPins(),
      reserve: {
        admit: async () => {
          throw new Error('refused');
        },
      } as unknown as WriteReserve,
    });
    const opened = refusing.openCopySource({ bucket: 'bkt', key: 'src' });
    const stream = opened.stream();
    await expect(refusing.admitCopy(stream, opened.row.size)).rejects.toThrow('refused');
    expect(stream.destroyed).toBe(true);
  });
});
