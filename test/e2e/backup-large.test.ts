// Backup and restore at size: 2 GiB of objects (a 1 GiB single PUT and a 1 GiB multipart object) are backed up to a
// file and restored into a fresh instance with a different SSE key; the bytes match by SHA-256, and the resident
// memory of each server process stays flat while it streams (sampled from /proc every 100 ms against its level
// before). Bytes are generated as streams: nothing here holds a GiB in memory either.

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { beforeAll, describe, expect, it } from 'vitest';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore, useTempDir } from '../helpers/store.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Peak growth of a server's resident memory allowed while it streams 2 GiB (the data is 10x that). */
const FLAT_MEMORY_BYTES = 200 * MiB;

const work = useTempDir('store-e2e-backup-');
const bucket = uniqueBucket('large');
const source = useStore({ env: { STORE_SSE_KEY: randomBytes(32).toString('base64') } });
const target = useStore({ env: { STORE_SSE_KEY: randomBytes(32).toString('base64') } });
const digests = new Map<string, string>();

/**
 * `size` pseudo-random bytes as a stream (a 1 MiB random block, each copy salted with its index), hashed as generated.
 */
function generated(size: number, key: string): Readable {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  return Readable.from(
    (function* () {
      for (let offset = 0, i = 0; offset < size; offset += MiB, i++) {
        const chunk = Buffer.from(block.subarray(0, Math.min(MiB, size - offset)));
        chunk.writeUInt32BE(i, 0);
        hash.update(chunk);
        if (offset + chunk.length >= size) digests.set(key, hash.copy().digest('hex'));
        yield chunk;
      }
    })(),
  );
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** Runs `work` while sampling the process's RSS; resolves with the peak growth over the level before it began. */
async function peakGrowth(
  server: RunningServer,
  work: () => Promise<void>,
): Promise<{ before: number; peak: number; seconds: number }> {
  const pid = server.process.pid as number;
  const started = Date.now();
  const before = rssOf(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 100);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, rssOf(pid));
  return { before, peak, seconds: (Date.now() - started) / 1000 };
}

beforeAll(async () => {
  await source.s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

/** The 2 GiB of objects; in the test (not a hook), so a failure names its step and shows what the server logged. */
async function uploadObjects(): Promise<void> {
  let step = 'the 1 GiB PutObject';
  try {
    await source.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'one-gib.bin',
        Body: generated(GiB, 'one-gib.bin'),
        ContentLength: GiB,
      }),
    );
    step = 'the 1 GiB multipart upload';
    const upload = new Upload({
      client: source.s3,
      params: { Bucket: bucket, Key: 'multipart-gib.bin', Body: generated(GiB, 'multipart-gib.bin') },
      partSize: 64 * MiB,
      queueSize: 2,
    });
    await upload.done();
    step = 'the small PutObject';
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'small.txt', Body: 'small' }));
  } catch (err) {
    const logged = source.server
      .output()
      .split('\n')
      .filter((line) => line !== '' && (!line.includes('"level":"info"') || /"status":[45]/.test(line)));
    throw new Error(`${step} failed: ${String(err)}; the server logged:\n${logged.slice(-20).join('\n')}`, {
      cause: err,
    });
  }
}

describe('2 GiB through backup and restore', { timeout: 600_000 }, () => {
  it('backs up to a file and restores into another instance, memory flat on both, every byte equal', async () => {
    await uploadObjects();
    const archive = join(work, 'large.zip');
    const sourceToken = await source.admin();
    const backup = await peakGrowth(source.server, async () => {
      const res = await fetch(`${source.server.url}/api/admin/backup`, {
        headers: { authorization: `Bearer ${sourceToken}` },
      });
      expect(res.status).toBe(200);
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(archive));
    });
    expect(statSync(archive).size).toBeGreaterThan(2 * GiB);

    const targetToken = await target.admin();
    let answer: { status: number; body: unknown } | undefined;
    const restore = await peakGrowth(target.server, async () => {
      const res = await fetch(`${target.server.url}/api/admin/restore`, {
        method: 'POST',
        duplex: 'half',
        body: Readable.toWeb(createReadStream(archive)) as never,
        headers: {
          authorization: `Bearer ${targetToken}`,
          'content-type': 'application/zip',
          'content-length': String(statSync(archive).size),
        },
      } as RequestInit);
      answer = { status: res.status, body: await res.json() };
    });
    expect(answer).toEqual({ status: 200, body: { bucketsRestored: 1, objectsRestored: 3 } });
    process.stdout.write(
      `backup of 2 GiB: ${backup.seconds.toFixed(1)} s, server RSS ${Math.round(backup.before / MiB)} -> peak ${Math.round(backup.peak / MiB)} MiB; ` +
        `restore: ${restore.seconds.toFixed(1)} s, ${Math.round(restore.before / MiB)} -> peak ${Math.round(restore.peak / MiB)} MiB\n`,
    );
    expect(backup.peak - backup.before).toBeLessThan(FLAT_MEMORY_BYTES);
    expect(restore.peak - restore.before).toBeLessThan(FLAT_MEMORY_BYTES);

    const restored = sdkClient(target.server);
    try {
      for (const [key, digest] of digests) {
        const got = await restored.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const hash = createHash('sha256');
        for await (const chunk of got.Body as Readable) hash.update(chunk as Buffer);
        expect(hash.digest('hex'), key).toBe(digest);
      }
      const multipart = await restored.send(
        new GetObjectCommand({ Bucket: bucket, Key: 'multipart-gib.bin', PartNumber: 2 }),
      );
      expect(multipart.PartsCount).toBe(16);
      expect(multipart.ContentLength).toBe(64 * MiB);
      await (multipart.Body as Readable).resume();
    } finally {
      restored.destroy();
    }
  });
});
