// Repairs from a good copy (an in-process fake of the replication target): a corrupt file blob, inline blob and
// multipart part are rebuilt, verified and swapped in, read back intact and are audited; a copy that is missing,
// different, short or long, a source that fails, and a version replaced meanwhile change nothing.

import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import {
  blobPath,
  corruptInlineRow,
  FakeRepairSource,
  flipByte,
  integrityOver,
  runPass,
} from '../../../test/helpers/integrity.js';
import { isInlineBlobId } from '../../storage/blobs/blob-store.js';
import type { RepairSource } from './repair.js';

let fx: ServiceFixture;
let source: FakeRepairSource;

beforeEach(async () => {
  fx = await openServices('2026-03-01T00:00:00Z');
  fx.buckets.create('bkt');
  source = new FakeRepairSource();
});

afterEach(() => fx.close());

const put = (key: string, data: Buffer) =>
  fx.objects.put({ bucket: 'bkt', key, body: body(data), headers: {}, userMeta: {} });

async function read(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of fx.objects.open('bkt', key).stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const blobFiles = (): string[] =>
  readdirSync(join(fx.dir, 'blobs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
const queuedForGc = (): string[] => fx.meta.db.prepare('SELECT blob_id FROM blob_gc').pluck().all() as string[];

describe('repair from a good copy', () => {
  it('rebuilds a corrupt file blob, frees the bad one, audits it and reads back intact', async () => {
    const data = randomBytes(300_000);
    const row = await put('doc', data);
    source.set({ bucket: 'bkt', key: 'doc', versionId: 'null' }, data);
    await flipByte(blobPath(fx.dir, row.blobId as string), 200_000);
    const { service, audits } = integrityOver(fx, { repairSource: source });
    await runPass(service);
    expect(service.counts()).toEqual({ ok: 1, corrupt: 0, unchecked: 0 });
    expect(service.listCorrupt(10).items).toEqual([]);
    expect((await read('doc')).equals(data)).toBe(true);
    const now = fx.objects.open('bkt', 'doc').row;
    expect(now.blobId).not.toBe(row.blobId);
    expect(now.etag).toBe(row.etag);
    expect(queuedForGc()).toEqual([row.blobId]);
    expect(audits).toEqual([
      {
        event: 'integrity.object_repaired',
        subject: 'integrity-scrubber',
        bucket: 'bkt',
        details: { key: 'doc', versionId: 'null', size: 300_000 },
      },
    ]);
    expect(service.status().lastFullPass).toMatchObject({ corruptFound: 1, repaired: 1 });
  });

  it('rebuilds a damaged inline blob as a new inline blob', async () => {
    const data = randomBytes(5000);
    const row = await put('tiny', data);
    source.set({ bucket: 'bkt', key: 'tiny', versionId: 'null' }, data);
    corruptInlineRow(fx, row.blobId as string);
    const { service } = integrityOver(fx, { repairSource: source });
    await runPass(service);
    const now = fx.objects.open('bkt', 'tiny').row;
    expect(isInlineBlobId(now.blobId as string)).toBe(true);
    expect(now.blobId).not.toBe(row.blobId);
    expect(fx.meta.inlineBlobs.get(row.blobId as string)).toBeUndefined();
    expect((await read('tiny')).equals(data)).toBe(true);
    expect(service.counts().ok).toBe(1);
  });

  it('rebuilds every part of a multipart version, verified part by part, keeping the part layout', async () => {
    const parts = [randomBytes(5 * 1024 * 1024), randomBytes(123_457)];
    const upload = fx.multipart.create({ bucket: 'bkt', key: 'mp', headers: {}, userMeta: {} });
    const done = [];
    for (const [i, data] of parts.entries()) {
      const part = await fx.multipart.uploadPart({
        bucket: 'bkt',
        key: 'mp',
        uploadId: upload.uploadId,
        partNumber: i + 1,
        body: body(data),
      });
      done.push({ partNumber: i + 1, etag: part.etag, checksums: {} });
    }
    const completed = await fx.multipart.complete({ bucket: 'bkt', key: 'mp', uploadId: upload.uploadId, parts: done });
    const row = fx.meta.objects.findVersion('bkt', 'mp', completed.versionId);
    if (!row) throw new Error('the completed version is missing');
    const before = fx.meta.objects.parts(row.id);
    await flipByte(blobPath(fx.dir, (before[1] as { blobId: string }).blobId), 50_000);
    source.set({ bucket: 'bkt', key: 'mp', versionId: 'null' }, Buffer.concat(parts));
    const { service } = integrityOver(fx, { repairSource: source });
    await runPass(service);
    expect(service.counts()).toEqual({ ok: 1, corrupt: 0, unchecked: 0 });
    const after = fx.meta.objects.parts(row.id);
    expect(after.map((p) => [p.partNumber, p.size, p.etag])).toEqual(before.map((p) => [p.partNumber, p.size, p.etag]));
    expect(after.every((p, i) => p.blobId !== before[i]?.blobId)).toBe(true);
    expect((await read('mp')).equals(Buffer.concat(parts))).toBe(true);
  });

  it('repairs a version a read found corrupt at the next tick, with no pass running', async () => {
    const data = randomBytes(100_000);
    const row = await put('hot', data);
    source.set({ bucket: 'bkt', key: 'hot', versionId: 'null' }, data);
    await flipByte(blobPath(fx.dir, row.blobId as string), 1000);
    const { service } = integrityOver(fx, { repairSource: source, enabled: false });
    service.reportCorruptRead(row, await read('hot').catch((err: unknown) => err));
    expect(service.counts().corrupt).toBe(1);
    await service.tick(new AbortController().signal);
    expect(service.isRunning).toBe(false);
    expect(service.counts()).toEqual({ ok: 1, corrupt: 0, unchecked: 0 });
    expect((await read('hot')).equals(data)).toBe(true);
  });
});

describe('a repair that cannot be made changes nothing', () => {
  async function corruptOne(): Promise<{ data: Buffer; blobId: string }> {
    const data = randomBytes(200_000);
    const row = await put('doc', data);
    await flipByte(blobPath(fx.dir, row.blobId as string), 100_000);
    return { data, blobId: row.blobId as string };
  }

  async function expectUnchanged(
    blobId: string,
    repairSource: RepairSource,
  ): Promise<ReturnType<typeof integrityOver>> {
    const files = blobFiles();
    const harness = integrityOver(fx, { repairSource });
    await runPass(harness.service);
    expect(harness.service.listCorrupt(10).items.map((e) => e.key)).toEqual(['doc']);
    expect(fx.objects.open('bkt', 'doc').row.blobId).toBe(blobId);
    expect(blobFiles()).toEqual(files);
    expect(queuedForGc()).toEqual([]);
    expect(harness.audits).toEqual([]);
    return harness;
  }

  it('no copy at the source', async () => {
    const { blobId } = await corruptOne();
    const { logs } = await expectUnchanged(blobId, source);
    expect(source.fetches).toBe(1);
    expect(logs.some((l) => l.msg.startsWith('no good copy'))).toBe(true);
  });

  it('a copy with other bytes of the same size', async () => {
    const { blobId } = await corruptOne();
    source.set({ bucket: 'bkt', key: 'doc', versionId: 'null' }, randomBytes(200_000));
    const { logs } = await expectUnchanged(blobId, source);
    expect(logs.find((l) => String(l.msg).includes('does not match'))?.['detail']).toMatch(/MD5/);
  });

  it('a copy of another size, a copy shorter than it says, a copy longer than it says', async () => {
    const { data, blobId } = await corruptOne();
    source.set({ bucket: 'bkt', key: 'doc', versionId: 'null' }, data.subarray(1));
    await expectUnchanged(blobId, source);
    const liar = (bytes: Buffer): RepairSource => ({
      fetch: async () => ({ stream: Readable.from([bytes]), size: data.length }),
    });
    await expectUnchanged(blobId, liar(data.subarray(0, data.length - 10)));
    await expectUnchanged(blobId, liar(Buffer.concat([data, Buffer.from('extra')])));
  });

  it('a source that fails', async () => {
    const { blobId } = await corruptOne();
    const { logs } = await expectUnchanged(blobId, {
      fetch: async () => {
        throw new Error('ECONNREFUSED');
      },
    });
    expect(logs.some((l) => String(l.msg).startsWith('repairing a corrupt object version failed'))).toBe(true);
  });

  it('a version replaced while its copy was being fetched keeps the new bytes', async () => {
    const { data } = await corruptOne();
    source.set({ bucket: 'bkt', key: 'doc', versionId: 'null' }, data);
    const newer = randomBytes(150_000);
    source.beforeReturn = async () => {
      source.beforeReturn = undefined;
      await put('doc', newer);
    };
    const { service, audits } = integrityOver(fx, { repairSource: source });
    await runPass(service);
    expect((await read('doc')).equals(newer)).toBe(true);
    expect(audits).toEqual([]);
    // Only the new version's blob remains referenced; the staged copy was removed, the bad blob queued for GC.
    const current = fx.objects.open('bkt', 'doc').row.blobId as string;
    expect(blobFiles().filter((id) => !queuedForGc().includes(id))).toEqual([current]);
  });
});
