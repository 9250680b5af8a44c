// Durability: object bytes never reach the disk in plaintext, and a kill -9 in the middle of a stream of uploads
// loses no acknowledged object and exposes no torn one. The crash test's plan (keys, sizes, when to kill) comes from a
// printed seed; DURABILITY_SEED=<n> replays it.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { INLINE_MAX_BYTES } from '../../src/services/objects/body-ingest.js';
import { sdkClient } from '../helpers/clients.js';
import { allFiles, filesContaining, inlineBlobRows, sha256Hex } from '../helpers/data-dir-inspect.js';
import { Rng, runSeed } from '../helpers/hostile/rng.js';
import { tempDir, type RunningServer } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

const hashOf = sha256Hex;
const SEED = runSeed(process.env, 'DURABILITY_SEED');
console.log(`DURABILITY_SEED=${SEED}`);

async function getBytes(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

async function listKeys(s3: S3Client, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const c of page.Contents ?? []) keys.push(c.Key as string);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

describe('encryption at rest', () => {
  it('leaves no plaintext of single-PUT, multipart or copied objects anywhere under DATA_DIR', async () => {
    const pattern = randomBytes(64);
    const needle = pattern.subarray(0, 32);
    const repeated = (bytes: number): Buffer => Buffer.alloc(bytes, pattern);
    // the scan can fail: it finds the needle at an odd offset of a nested file
    const controlRoot = tempDir();
    onTestFinished(() => rmSync(controlRoot, { recursive: true, force: true }));
    const controlDir = join(controlRoot, 'data', 'a', 'b');
    mkdirSync(controlDir, { recursive: true });
    writeFileSync(join(controlDir, 'f'), Buffer.concat([randomBytes(12_345), repeated(200)]));
    expect(filesContaining(join(controlDir, '..', '..'), needle)).toEqual([join(controlDir, 'f')]);

    const store = await startStore();
    const { s3, dataDir } = store;
    const bucket = await store.bucket();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'tiny', Body: pattern }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'single', Body: repeated(1024 * 1024 + 17) }));
    const mpu = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'multi' }));
    const parts = [];
    for (const [i, size] of [5 * 1024 * 1024, 300_000].entries()) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'multi',
          UploadId: mpu.UploadId,
          PartNumber: i + 1,
          Body: repeated(size),
        }),
      );
      parts.push({ PartNumber: i + 1, ETag: part.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'multi',
        UploadId: mpu.UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copied', CopySource: `${bucket}/single` }));
    expect(
      (await getBytes(s3, bucket, 'multi')).equals(Buffer.concat([repeated(5 * 1024 * 1024), repeated(300_000)])),
    ).toBe(true);
    expect((await getBytes(s3, bucket, 'copied')).equals(repeated(1024 * 1024 + 17))).toBe(true);

    // while running (the WAL holds recent pages) and after a clean stop (checkpointed into meta.db)
    const files = allFiles(dataDir).map((f) => f.slice(dataDir.length + 1));
    expect(files).toEqual(expect.arrayContaining(['meta.db', 'sse.key']));
    expect(filesContaining(dataDir, needle)).toEqual([]);
    await store.stop();
    expect(filesContaining(dataDir, needle)).toEqual([]);
  });
});

interface Attempt {
  hash: string;
  acked: boolean;
}

/** `items` in an order drawn from `rng` (Fisher-Yates). */
function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * PUTs `keys` with random bodies (1 B to 2 MiB, log-uniform), 8 at a time, and kills the server with SIGKILL once
 * `killAfter` PUTs have been acknowledged. Returns every attempt that was started.
 */
async function putUntilKilled(
  server: RunningServer,
  bucket: string,
  { keys, killAfter, rng }: { keys: string[]; killAfter: number; rng: Rng },
): Promise<Map<string, Attempt>> {
  const s3 = sdkClient(server);
  const attempts = new Map<string, Attempt>();
  let next = 0;
  let acked = 0;
  let killing: Promise<void> | undefined;
  let killed = false;
  const worker = async (): Promise<void> => {
    while (!killed && next < keys.length) {
      const key = keys[next++] as string;
      const body = randomBytes(Math.floor(Math.exp(rng.child(key).next() * Math.log(2 * 1024 * 1024))));
      const attempt: Attempt = { hash: hashOf(body), acked: false };
      attempts.set(key, attempt);
      try {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
        attempt.acked = true;
        // a random few milliseconds later, so the kill lands at any stage of the requests in flight
        if (++acked === killAfter) {
          killing = new Promise((r) => setTimeout(r, rng.int(0, 30)))
            .then(() => server.kill())
            .then(() => {
              killed = true;
            });
        }
      } catch {
        // refused or cut by the kill: unacknowledged, which allows either outcome
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await (killing ?? server.kill()); // every PUT finished first: a kill of an idle server, still a valid round
  s3.destroy();
  return attempts;
}

describe('crash safety', () => {
  it('keeps every acknowledged PUT and no torn object across three kill -9s mid-stream', async () => {
    const store = await startStore();
    const bucket = await store.bucket();
    /** The bucket's verified content after the previous round: key -> hash. */
    let state = new Map<string, string>();
    const pool = Array.from({ length: 400 }, (_, i) => `obj/${String(i).padStart(3, '0')}`);

    for (let round = 0; round < 3; round++) {
      const rng = new Rng(SEED).child(round);
      const keys = shuffled(pool, rng).slice(0, 300); // one attempt per key per round
      const attempts = await putUntilKilled(store.server, bucket, { keys, killAfter: rng.int(20, 280), rng });
      const ackedCount = [...attempts.values()].filter((a) => a.acked).length;
      expect(ackedCount).toBeGreaterThanOrEqual(20);

      await store.restart();
      expect(readdirSync(join(store.dataDir, 'tmp'))).toEqual([]);
      const s3 = store.s3;
      const listed = await listKeys(s3, bucket);
      const observed = new Map<string, string>();
      let fileBacked = 0; // larger objects are blob files; small ones are inline blobs in the database
      for (const key of listed) {
        const bytes = await getBytes(s3, bucket, key);
        observed.set(key, hashOf(bytes));
        if (bytes.length > INLINE_MAX_BYTES) fileBacked++;
      }

      for (const key of new Set([...listed, ...attempts.keys(), ...state.keys()])) {
        const attempt = attempts.get(key);
        const seen = observed.get(key);
        const context = `round ${round} key ${key} attempt ${JSON.stringify(attempt)} before ${state.get(key)}`;
        if (attempt?.acked) {
          expect(seen, context).toBe(attempt.hash);
        } else if (attempt) {
          // unacknowledged: the previous content (or absence), or exactly the bytes that were sent
          expect([state.get(key), attempt.hash], context).toContain(seen);
        } else {
          expect(seen, context).toBe(state.get(key));
        }
      }

      // blobs of replaced objects and of uploads the crash cut off are collected: one blob per object, a file for
      // each larger object and an inline row for each small one
      const blobs = (): number => allFiles(join(store.dataDir, 'blobs')).length;
      const deadline = Date.now() + 60_000; // collection runs in the background: generous for a loaded machine
      while (blobs() !== fileBacked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(blobs()).toBe(fileBacked);
      expect(inlineBlobRows(store.dataDir)).toBe(listed.length - fileBacked);
      state = observed;
    }
    expect(await store.stop()).toBe(0);
  }, 240_000); // three kill -9s, restarts and full read-backs of up to 300 objects: minutes on a loaded machine
});
