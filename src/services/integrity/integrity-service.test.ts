// The scrubber against real blobs and a real database: intact versions are ok; a flipped byte, a truncated file, a
// deleted file, a damaged or missing inline row, a damaged multipart part and a swapped file are each found corrupt
// with the right reason and listed; delete markers are not objects; work per tick is bounded by objects and bytes;
// the cursor survives a restart; manual and scheduled passes; reads report corruption; gauges are pushed.

import { randomBytes } from 'node:crypto';
import { copyFile, rm, truncate } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { blobPath, corruptInlineRow, flipByte, integrityOver, runPass } from '../../../test/helpers/integrity.js';
import { ObjectService } from '../objects/object-service.js';
import { ReadPins } from '../objects/object-reader.js';
import { isAppError } from '../../core/errors.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-03-01T00:00:00Z');
  fx.buckets.create('bkt');
});

afterEach(() => fx.close());

const put = (key: string, data: Buffer, bucket = 'bkt') =>
  fx.objects.put({ bucket, key, body: body(data), headers: {}, userMeta: {} });

async function multipart(key: string, parts: Buffer[]) {
  const upload = fx.multipart.create({ bucket: 'bkt', key, headers: {}, userMeta: {} });
  const done = [];
  for (const [i, data] of parts.entries()) {
    const part = await fx.multipart.uploadPart({
      bucket: 'bkt',
      key,
      uploadId: upload.uploadId,
      partNumber: i + 1,
      body: body(data),
    });
    done.push({ partNumber: i + 1, etag: part.etag, checksums: {} });
  }
  const completed = await fx.multipart.complete({ bucket: 'bkt', key, uploadId: upload.uploadId, parts: done });
  const row = fx.meta.objects.findVersion('bkt', key, completed.versionId);
  if (!row) throw new Error(`the completed version of ${key} is missing`);
  return row;
}

const partBlob = (objectId: number, n: number): string =>
  (fx.meta.objects.parts(objectId)[n - 1] as { blobId: string }).blobId;

describe('a scrub pass', () => {
  it('proves intact versions ok: inline, file, empty and multipart; delete markers are not counted', async () => {
    await put('small', randomBytes(1000));
    await put('large', randomBytes(200_000));
    await put('empty', Buffer.alloc(0));
    await multipart('mp', [randomBytes(5 * 1024 * 1024), randomBytes(3000)]);
    fx.buckets.setVersioning('bkt', 'Enabled');
    fx.objects.delete('bkt', 'small');
    const { service, logs } = integrityOver(fx);
    expect(service.counts()).toEqual({ ok: 0, corrupt: 0, unchecked: 4 });
    await runPass(service);
    expect(service.counts()).toEqual({ ok: 4, corrupt: 0, unchecked: 0 });
    const last = service.status().lastFullPass;
    expect(last).toMatchObject({
      trigger: 'scheduled',
      objectsChecked: 4,
      corruptFound: 0,
      bytesChecked: 1000 + 200_000 + 5 * 1024 * 1024 + 3000,
    });
    expect(service.listCorrupt(10).items).toEqual([]);
    expect(logs.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('finds a flipped byte, a truncated blob and a deleted blob file, and lists each with its reason', async () => {
    const flipped = await put('flipped', randomBytes(100_000));
    const cut = await put('cut', randomBytes(100_000));
    const gone = await put('gone', randomBytes(100_000));
    await put('fine', randomBytes(100_000));
    await flipByte(blobPath(fx.dir, flipped.blobId as string), 5000);
    await truncate(blobPath(fx.dir, cut.blobId as string), 50_000);
    await rm(blobPath(fx.dir, gone.blobId as string));
    fx.clock.ms += 1000;
    const { service, logs } = integrityOver(fx);
    await runPass(service);
    expect(service.counts()).toEqual({ ok: 1, corrupt: 3, unchecked: 0 });
    const listed = service.listCorrupt(10).items;
    expect(listed.map((e) => [e.key, e.reason]).sort()).toEqual([
      ['cut', 'truncated'],
      ['flipped', 'tampered'],
      ['gone', 'missing'],
    ]);
    expect(listed[0]).toMatchObject({ bucket: 'bkt', versionId: 'null', size: 100_000, detectedAt: fx.clock.ms });
    expect(service.status().lastFullPass?.corruptFound).toBe(3);
    expect(
      logs
        .filter((l) => l.msg === 'integrity check found an object version corrupt')
        .map((l) => l['key'])
        .sort(),
    ).toEqual(['cut', 'flipped', 'gone']);
  });

  it('finds a damaged inline row (bytes sealed in the database) and a missing one', async () => {
    const damaged = await put('damaged', randomBytes(2000));
    const missing = await put('missing', randomBytes(2000));
    corruptInlineRow(fx, damaged.blobId as string);
    fx.meta.inlineBlobs.delete(missing.blobId as string);
    const { service } = integrityOver(fx);
    await runPass(service);
    expect(
      service
        .listCorrupt(10)
        .items.map((e) => [e.key, e.reason])
        .sort(),
    ).toEqual([
      ['damaged', 'tampered'],
      ['missing', 'missing'],
    ]);
  });

  it('names the damaged part of a multipart version', async () => {
    const row = await multipart('mp', [randomBytes(5 * 1024 * 1024), randomBytes(70_000)]);
    await flipByte(blobPath(fx.dir, partBlob(row.id, 2)), 1000);
    const { service } = integrityOver(fx);
    await runPass(service);
    const [entry] = service.listCorrupt(10).items;
    expect(entry).toMatchObject({ key: 'mp', reason: 'tampered' });
    expect(entry?.detail).toMatch(/^part 2: /);
  });

  it("finds bytes that authenticate but are not the version's (a blob file swapped for another): digest", async () => {
    const a = await put('a', randomBytes(100_000));
    const b = await put('b', randomBytes(100_000));
    await copyFile(blobPath(fx.dir, a.blobId as string), blobPath(fx.dir, b.blobId as string));
    const { service } = integrityOver(fx);
    await runPass(service);
    expect(service.listCorrupt(10).items.map((e) => [e.key, e.reason])).toEqual([['b', 'digest']]);
  });

  it('keeps the first detection time across passes, and drops the verdict with the version', async () => {
    const row = await put('x', randomBytes(100_000));
    await rm(blobPath(fx.dir, row.blobId as string));
    const { service } = integrityOver(fx);
    const first = fx.clock.ms;
    await runPass(service);
    fx.clock.ms += 3_600_000 * 2;
    service.startPass();
    await runPass(service);
    const [entry] = service.listCorrupt(10).items;
    expect(entry?.detectedAt).toBe(first);
    expect(entry?.checkedAt).toBe(fx.clock.ms);
    fx.objects.delete('bkt', 'x');
    expect(service.counts()).toEqual({ ok: 0, corrupt: 0, unchecked: 0 });
    expect(service.listCorrupt(10).items).toEqual([]);
  });

  it('pages the corrupt list newest first', async () => {
    for (let i = 0; i < 5; i++) {
      const row = await put(`k${i}`, randomBytes(100_000));
      await rm(blobPath(fx.dir, row.blobId as string));
    }
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 1, bytesPerTick: 1 << 20 } });
    for (let i = 0; i < 6; i++) {
      fx.clock.ms += 1000;
      await service.tick(new AbortController().signal);
    }
    const first = service.listCorrupt(2);
    expect(first.items.map((e) => e.key)).toEqual(['k4', 'k3']);
    expect(first.hasMore).toBe(true);
    const last = first.items[1] as { detectedAt: number; objectId: number };
    const second = service.listCorrupt(2, last);
    expect(second.items.map((e) => e.key)).toEqual(['k2', 'k1']);
    expect(service.listCorrupt(2, second.items[1]).items.map((e) => e.key)).toEqual(['k0']);
  });
});

describe('bounded work', () => {
  it('starts at most objectsPerTick versions per tick', async () => {
    for (let i = 0; i < 7; i++) await put(`o${i}`, randomBytes(100));
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 3, bytesPerTick: 1 << 20 } });
    const signal = new AbortController().signal;
    await service.tick(signal);
    expect(service.counts().ok).toBe(3);
    await service.tick(signal);
    expect(service.counts().ok).toBe(6);
    await service.tick(signal);
    expect(service.counts().ok).toBe(7);
    await service.tick(signal);
    expect(service.isRunning).toBe(false);
  });

  it('reads at most bytesPerTick (plus one read) per tick, carrying a large version across ticks', async () => {
    await put('big', randomBytes(4 * 1024 * 1024));
    const perTick = 256 * 1024;
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 100, bytesPerTick: perTick } });
    const signal = new AbortController().signal;
    const seen: number[] = [];
    while (service.counts().ok === 0) {
      await service.tick(signal);
      seen.push(service.status().currentPass?.bytesChecked ?? 4 * 1024 * 1024);
    }
    // One 1 MiB read overshoots a tick; the next ticks pay it back, so the average stays at the budget.
    expect(seen.length).toBeGreaterThanOrEqual((4 * 1024 * 1024) / perTick - 1);
    const steps = seen.map((b, i) => b - (seen[i - 1] ?? 0));
    expect(Math.max(...steps)).toBeLessThanOrEqual(1024 * 1024 + 72);
  });

  it('resumes a pass from its persisted cursor after a restart', async () => {
    for (let i = 0; i < 6; i++) await put(`o${i}`, randomBytes(100));
    const limits = { intervalMs: 1000, objectsPerTick: 2, bytesPerTick: 1 << 20 };
    const before = integrityOver(fx, { limits });
    await before.service.tick(new AbortController().signal);
    await before.service.tick(new AbortController().signal);
    expect(before.service.status().currentPass?.objectsChecked).toBe(4);
    before.service.close();
    const after = integrityOver(fx, { limits });
    expect(after.service.isRunning).toBe(true);
    await after.service.tick(new AbortController().signal);
    expect(
      after.service.status().currentPass?.objectsChecked ?? after.service.status().lastFullPass?.objectsChecked,
    ).toBe(6);
    await runPass(after.service);
    expect(after.service.status().lastFullPass?.objectsChecked).toBe(6);
    expect(after.service.counts()).toEqual({ ok: 6, corrupt: 0, unchecked: 0 });
  });

  it('a tick whose results fail to commit is redone: the next ticks check those versions again', async () => {
    for (let i = 0; i < 6; i++) await put(`o${i}`, randomBytes(100));
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 2, bytesPerTick: 1 << 20 } });
    const signal = new AbortController().signal;
    await service.tick(signal);
    const transaction = fx.meta.transaction.bind(fx.meta);
    let failNext = true;
    fx.meta.transaction = ((fn: () => unknown) => {
      if (failNext) {
        failNext = false;
        throw new Error('disk I/O error');
      }
      return transaction(fn);
    }) as typeof fx.meta.transaction;
    await expect(service.tick(signal)).rejects.toThrow('disk I/O error');
    fx.meta.transaction = transaction;
    expect(service.status().currentPass?.objectsChecked).toBe(2);
    await runPass(service);
    expect(service.status().lastFullPass?.objectsChecked).toBe(6);
    expect(service.counts()).toEqual({ ok: 6, corrupt: 0, unchecked: 0 });
  });

  it('stops between reads when the tick is aborted (shutdown), leaving the pass to resume', async () => {
    await put('a', randomBytes(3 * 1024 * 1024));
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 10, bytesPerTick: 1 << 30 } });
    const controller = new AbortController();
    controller.abort();
    await service.tick(controller.signal);
    expect(service.isRunning).toBe(true);
    service.close();
    await runPass(service);
    expect(service.counts().ok).toBe(1);
  });
});

describe('passes', () => {
  it('a disabled scrubber starts nothing by itself; a manual pass runs anyway and a second one is a Conflict', async () => {
    await put('a', randomBytes(10));
    const { service } = integrityOver(fx, { enabled: false });
    await service.tick(new AbortController().signal);
    expect(service.isRunning).toBe(false);
    expect(service.status().nextPassAt).toBeUndefined();
    const pass = service.startPass();
    expect(pass).toMatchObject({ trigger: 'manual', objectsTotal: 1, bytesTotal: 10 });
    let conflict: unknown;
    try {
      service.startPass();
    } catch (err) {
      conflict = err;
    }
    expect(isAppError(conflict) && conflict.code).toBe('Conflict');
    await runPass(service);
    expect(service.status().lastFullPass).toMatchObject({ trigger: 'manual', objectsChecked: 1 });
  });

  it('an enabled scrubber starts at once on a fresh instance, then once per pass interval from the last start', async () => {
    await put('a', randomBytes(10));
    const { service } = integrityOver(fx, { passIntervalMs: 3_600_000 });
    const start = fx.clock.ms;
    await runPass(service);
    expect(service.status().nextPassAt).toBe(start + 3_600_000);
    fx.clock.ms = start + 3_599_000;
    await service.tick(new AbortController().signal);
    expect(service.isRunning).toBe(false);
    fx.clock.ms = start + 3_600_000;
    await service.tick(new AbortController().signal);
    expect(service.status().lastFullPass?.startedAt).toBe(start + 3_600_000);
  });

  it('reports progress of the running pass', async () => {
    for (let i = 0; i < 4; i++) await put(`o${i}`, randomBytes(25_000));
    const { service } = integrityOver(fx, { limits: { intervalMs: 1000, objectsPerTick: 1, bytesPerTick: 1 << 20 } });
    await service.tick(new AbortController().signal);
    expect(service.status().currentPass).toMatchObject({
      objectsChecked: 1,
      objectsTotal: 4,
      bytesTotal: 100_000,
      percent: 25,
    });
  });

  it('pushes the gauges after every tick, with the last full pass time', async () => {
    await put('a', randomBytes(10));
    const { service, gauges } = integrityOver(fx);
    await runPass(service);
    expect(gauges.at(-1)).toEqual({ counts: { ok: 1, corrupt: 0, unchecked: 0 }, lastRunAt: new Date(fx.clock.ms) });
    const none = integrityOver(fx, {
      metrics: {
        hasIntegrity: false,
        setIntegrity: () => {
          throw new Error('not registered');
        },
      },
    });
    await none.service.tick(new AbortController().signal);
  });
});

describe('reads that find corruption', () => {
  it('a read marks the version corrupt (once), logs it, and reads that succeed report nothing', async () => {
    const harness = integrityOver(fx, { enabled: false });
    const objects = new ObjectService({
      meta: fx.meta,
      blobs: fx.blobs,
      pins: new ReadPins(),
      now: fx.clock.now,
      onReadError: (row, err) => harness.service.reportCorruptRead(row, err),
    });
    const row = await put('x', randomBytes(100_000));
    await put('fine', randomBytes(100_000));
    await flipByte(blobPath(fx.dir, row.blobId as string), 90_000);
    const drain = async (key: string): Promise<unknown> => {
      try {
        for await (const chunk of objects.open('bkt', key).stream()) void chunk;
        return undefined;
      } catch (err) {
        return err;
      }
    };
    expect(await drain('fine')).toBeUndefined();
    expect(await drain('x')).toMatchObject({ code: 'EBLOBCORRUPT', reason: 'tampered' });
    expect(await drain('x')).toMatchObject({ code: 'EBLOBCORRUPT' });
    expect(harness.service.listCorrupt(10).items.map((e) => [e.key, e.reason])).toEqual([['x', 'tampered']]);
    expect(harness.service.listCorrupt(10).items[0]?.detail).toMatch(/^read: /);
    expect(harness.logs.filter((l) => l.msg.startsWith('a read found')).map((l) => l['key'])).toEqual(['x']);
  });

  it('a missing inline row fails the read synchronously and is marked too', async () => {
    const harness = integrityOver(fx, { enabled: false });
    const objects = new ObjectService({
      meta: fx.meta,
      blobs: fx.blobs,
      pins: new ReadPins(),
      now: fx.clock.now,
      onReadError: (row, err) => harness.service.reportCorruptRead(row, err),
    });
    const row = await put('tiny', randomBytes(100));
    fx.meta.inlineBlobs.delete(row.blobId as string);
    expect(() => objects.open('bkt', 'tiny').stream()).toThrow(/missing/);
    expect(harness.service.listCorrupt(10).items.map((e) => [e.key, e.reason])).toEqual([['tiny', 'missing']]);
  });
});
