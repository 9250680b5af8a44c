// Small objects are inline blobs (sealed in the metadata database): the size boundary, reads and ranges, copies,
// overwrite and delete releasing the bytes, multipart parts staying files, and no plaintext in the database files.

import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { isInlineBlobId } from '../../storage/blobs/blob-store.js';
import { INLINE_MAX_BYTES } from './body-ingest.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
  fx.buckets.create('bkt');
});

afterEach(() => fx.close());

const inlineRows = (): number => fx.meta.db.prepare('SELECT COUNT(*) FROM inline_blobs').pluck().get() as number;
const blobFiles = (): string[] =>
  readdirSync(join(fx.dir, 'blobs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

async function read(key: string, range?: { start: number; end: number }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of fx.objects.open('bkt', key).stream(range)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const put = (key: string, data: Buffer) =>
  fx.objects.put({ bucket: 'bkt', key, body: body(data), headers: {}, userMeta: {} });

describe('inline small objects', () => {
  it('stores bodies up to INLINE_MAX_BYTES inline and larger ones as files', async () => {
    const atLimit = Buffer.alloc(INLINE_MAX_BYTES, 7);
    const over = Buffer.alloc(INLINE_MAX_BYTES + 1, 8);
    const small = await put('small', atLimit);
    const large = await put('large', over);
    expect(isInlineBlobId(small.blobId as string)).toBe(true);
    expect(isInlineBlobId(large.blobId as string)).toBe(false);
    expect(inlineRows()).toBe(1);
    expect(blobFiles()).toEqual([large.blobId]);
    expect((await read('small')).equals(atLimit)).toBe(true);
    expect((await read('large')).equals(over)).toBe(true);
    expect((await read('small', { start: 100, end: 199 })).equals(atLimit.subarray(100, 200))).toBe(true);
  });

  it('stores an empty object inline and reads it back empty', async () => {
    const row = await put('empty', Buffer.alloc(0));
    expect(isInlineBlobId(row.blobId as string)).toBe(true);
    expect(fx.objects.open('bkt', 'empty').row.size).toBe(0);
  });

  it('releases the bytes on overwrite and delete, in the same transaction', async () => {
    await put('k', Buffer.from('one'));
    await put('k', Buffer.from('two'));
    expect(inlineRows()).toBe(1);
    expect((await read('k')).toString()).toBe('two');
    fx.objects.delete('bkt', 'k');
    expect(inlineRows()).toBe(0);
    expect(fx.meta.blobGc.due(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  });

  it('keeps each version of a versioned key inline until that version is deleted', async () => {
    fx.buckets.setVersioning('bkt', 'Enabled');
    const v1 = await put('v', Buffer.from('first'));
    await put('v', Buffer.from('second'));
    expect(inlineRows()).toBe(2);
    fx.objects.delete('bkt', 'v'); // a delete marker: both versions keep their bytes
    expect(inlineRows()).toBe(2);
    fx.objects.delete('bkt', 'v', { versionId: v1.versionId });
    expect(inlineRows()).toBe(1);
  });

  it('copies an inline object into a new inline blob', async () => {
    const source = await put('src', Buffer.from('copy me'));
    const { row } = await fx.objects.copy({
      bucket: 'bkt',
      key: 'dst',
      source: { bucket: 'bkt', key: 'src' },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
    });
    expect(isInlineBlobId(row.blobId as string)).toBe(true);
    expect(row.blobId).not.toBe(source.blobId);
    fx.objects.delete('bkt', 'src');
    expect((await read('dst')).toString()).toBe('copy me');
  });

  it('never makes a multipart part inline, and copies an inline source into a part', async () => {
    await put('src', Buffer.from('part source bytes'));
    const upload = fx.multipart.create({ bucket: 'bkt', key: 'mp', headers: {}, userMeta: {} });
    const part = await fx.multipart.uploadPart({
      bucket: 'bkt',
      key: 'mp',
      uploadId: upload.uploadId,
      partNumber: 1,
      body: body('tiny part'),
    });
    expect(isInlineBlobId(part.blobId)).toBe(false);
    const opened = fx.objects.open('bkt', 'src');
    const copied = await fx.multipart.uploadPartCopy({
      bucket: 'bkt',
      key: 'mp',
      uploadId: upload.uploadId,
      partNumber: 2,
      source: { stream: () => opened.stream(), size: opened.row.size },
    });
    expect(isInlineBlobId(copied.blobId)).toBe(false);
  });

  it('keeps the plaintext out of the database and its WAL', async () => {
    const marker = 'plaintext-marker-that-must-be-encrypted';
    await put('secret', Buffer.from(marker.repeat(20)));
    for (const file of readdirSync(fx.dir).filter((f) => f.startsWith('meta.db'))) {
      expect(readFileSync(join(fx.dir, file)).includes(Buffer.from(marker)), file).toBe(false);
    }
    expect((await read('secret')).toString()).toBe(marker.repeat(20));
  });

  it('reports a missing inline row as corruption, not as a missing key', async () => {
    const row = await put('gone', Buffer.from('x'));
    fx.meta.db.prepare('DELETE FROM inline_blobs WHERE blob_id = ?').run(row.blobId);
    const opened = fx.objects.open('bkt', 'gone'); // metadata only, as HEAD: the bytes are not read
    expect(opened.row.size).toBe(1);
    expect(() => opened.stream()).toThrow(expect.objectContaining({ reason: 'missing' }));
    expect(() => opened.body()).toThrow(expect.objectContaining({ reason: 'missing' }));
  });

  it("gives a GET an inline object's bytes at once, a medium file's read at once, and a large file's as a stream", async () => {
    const small = randomBytes(INLINE_MAX_BYTES);
    const medium = randomBytes(INLINE_MAX_BYTES + 1);
    await put('small', small);
    await put('medium', medium);
    await put('large', randomBytes(1024 * 1024));
    const whole = fx.objects.open('bkt', 'small').body();
    expect(Buffer.isBuffer(whole) && whole.equals(small)).toBe(true);
    const part = fx.objects.open('bkt', 'small').body({ start: 10, end: 19 });
    expect(Buffer.isBuffer(part) && part.equals(small.subarray(10, 20))).toBe(true);
    const fileBody = fx.objects.open('bkt', 'medium').body();
    expect(fileBody).toBeInstanceOf(Promise);
    const read = await fileBody;
    expect(Buffer.isBuffer(read) && read.equals(medium)).toBe(true);
    const filePart = await fx.objects.open('bkt', 'medium').body({ start: 65_530, end: 65_536 });
    expect(Buffer.isBuffer(filePart) && filePart.equals(medium.subarray(65_530, 65_537))).toBe(true);
    const large = await fx.objects.open('bkt', 'large').body();
    expect(large).toBeInstanceOf(Readable);
    (large as Readable).destroy();
  });

  it('pins a medium file while it is read at once, and reports damage to it as a corrupt read', async () => {
    const reports: Array<[string, string]> = [];
    fx.close();
    fx = await openServices('2026-01-01T00:00:00Z', {
      onReadError: (row, err) => reports.push([row.key, (err as { reason?: string }).reason ?? String(err)]),
    });
    fx.buckets.create('bkt');
    const row = await put('m', randomBytes(INLINE_MAX_BYTES + 100));
    const reading = fx.objects.open('bkt', 'm').body();
    expect(fx.pins.isPinned(row.blobId as string)).toBe(true);
    await reading;
    expect(fx.pins.isPinned(row.blobId as string)).toBe(false);
    const file = blobFiles().map((name) =>
      join(fx.dir, 'blobs', name.slice(0, 2), name.slice(2, 4), name),
    )[0] as string;
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    writeFileSync(file, bytes);
    await expect(fx.objects.open('bkt', 'm').body()).rejects.toMatchObject({ reason: 'tampered' });
    expect(reports).toEqual([['m', 'tampered']]);
    expect(fx.pins.isPinned(row.blobId as string)).toBe(false);
  });

  it('reports damaged inline bytes read at once as a corrupt read, as the stream does', async () => {
    const reports: Array<[string, string]> = [];
    fx.close();
    fx = await openServices('2026-01-01T00:00:00Z', {
      onReadError: (row, err) => reports.push([row.key, (err as { reason?: string }).reason ?? String(err)]),
    });
    fx.buckets.create('bkt');
    const row = await put('k', Buffer.from('some bytes'));
    const sealed = fx.meta.inlineBlobs.get(row.blobId as string) as Buffer;
    sealed[sealed.length - 1] = (sealed[sealed.length - 1] as number) ^ 1;
    fx.meta.db.prepare('UPDATE inline_blobs SET sealed = ? WHERE blob_id = ?').run(sealed, row.blobId);
    expect(() => fx.objects.open('bkt', 'k').body()).toThrow(expect.objectContaining({ reason: 'tampered' }));
    expect(reports).toEqual([['k', 'tampered']]);
  });
});
