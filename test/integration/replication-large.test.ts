// A 200 MiB object replicates to a second Store as a streamed multipart upload (above the 64 MiB default
// threshold) without the source ever holding it in memory: the source process's resident memory is sampled from
// /proc while it is written and drained, and its peak stays far below the object's size.

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  remoteListing,
  remoteObject,
  replicationEnv,
  replicationStatus,
  startStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { startStore } from '../helpers/store.js';

const MIB = 1024 * 1024;
const SIZE = 200 * MIB;

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

describe('a 200 MiB object', () => {
  it('arrives whole, streamed as a multipart upload, with the source memory bounded', async () => {
    const t = await startStoreTarget();
    const source = await startStore({ env: replicationEnv(t.target) });
    await source.s3.send(new CreateBucketCommand({ Bucket: 'big' }));
    const pid = source.server.process.pid as number;
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 50);
    try {
      const hash = createHash('sha256');
      const chunk = randomBytes(MIB);
      const body = Readable.from(
        (function* gen() {
          for (let i = 0; i < SIZE / MIB; i++) {
            // Every MiB differs (its first bytes carry the index), so a misplaced part would show in the digest.
            const piece = Buffer.from(chunk);
            piece.writeUInt32BE(i, 0);
            hash.update(piece);
            yield piece;
          }
        })(),
      );
      const t0 = Date.now();
      await source.s3.send(new PutObjectCommand({ Bucket: 'big', Key: 'video.bin', Body: body, ContentLength: SIZE }));
      const written = Date.now();
      await waitFor(
        'the 200 MiB object to replicate',
        async () => {
          const st = await replicationStatus(source.server, await source.admin());
          return st.outbox.pending + st.outbox.inflight + st.outbox.failed === 0 && st.lastDrain !== null;
        },
        { timeoutMs: 120_000, everyMs: 100 },
      );
      const replicated = Date.now();
      const remote = await remoteObject(t.target, 'big/video.bin');
      expect(remote?.size).toBe(SIZE);
      expect(remote?.sha256).toBe(hash.digest('hex'));
      // The target's ETag has the multipart form: it was sent in parts (8 MiB each: 25 parts).
      expect((await remoteListing(t.target, 'big/')).get('big/video.bin')?.etag).toMatch(/-25$/);
      console.log(
        `200 MiB: written in ${written - t0} ms, replicated ${replicated - written} ms later; source RSS baseline ${(baseline / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB`,
      );
      expect(peak - baseline).toBeLessThan(150 * MIB);
    } finally {
      clearInterval(sampler);
    }
  }, 180_000);
});
