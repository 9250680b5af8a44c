// Short soak (issue 11): bench/soak.mjs's mixed load (PUT, GET, HEAD, DELETE, listings, overwrites, copies, tagging,
// multipart) for SOAK_SECONDS (default 90) against the built server, with its RSS and open file descriptors sampled:
// after 30 s of warm-up (V8's heap and SQLite's cache grow for about a minute, then settle) the last third of the
// run must sit where the first third did, and once the load stops the fds must
// come back to where they were before it. The 20-minute run is `npm run soak` (docs/performance.md, "Soak").

import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak.mjs';
import { signRequest } from '../../src/sigv4/sign.js';
import { startStore } from '../helpers/store.js';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 90);
const WARM_UP_SECONDS = Math.min(30, SECONDS / 3);

describe('soak', () => {
  it(
    `keeps RSS and open file descriptors flat over ${SECONDS} s of mixed load, and gives the fds back after it`,
    async () => {
      const store = await startStore({ env: { LOG_LEVEL: 'info' } });
      const { server } = store;
      try {
        await store.s3.send(new CreateBucketCommand({ Bucket: 'soak' }));
        const { accessKeyId, secretAccessKey } = server.credentials;
        const result = await runSoak({
          baseUrl: server.url,
          pid: server.process.pid as number,
          bucket: 'soak',
          seconds: SECONDS,
          warmUpSeconds: WARM_UP_SECONDS,
          sampleMs: 2500,
          settleMs: 3000,
          sign: (method, url, headers) =>
            signRequest({
              method,
              url,
              headers,
              accessKeyId,
              secretAccessKey,
              region: 'us-east-1',
              payloadHash: 'UNSIGNED-PAYLOAD',
            }),
          log: () => undefined,
        });
        const curve = result.samples
          .filter((_, i) => i % 3 === 2)
          .map(
            (s) =>
              `${s.t.toFixed(0).padStart(4)} s  ${s.rssMiB.toFixed(0).padStart(4)} MiB  ${String(s.fds).padStart(3)} fds  ${s.opsPerSecond.toFixed(0).padStart(5)} ops/s`,
          );
        console.log(
          `soak ${SECONDS} s: ${result.ops} ops (${result.opsPerSecond.toFixed(0)}/s)\n${curve.join('\n')}\n` +
            `RSS first third after ${WARM_UP_SECONDS} s of warm-up ${result.early.rssMiB.toFixed(1)} MiB, last third ${result.late.rssMiB.toFixed(1)} MiB (peak ${result.peakMiB.toFixed(0)}); ` +
            `fds idle ${result.idleBefore.fds} -> under load ${result.early.fds.toFixed(1)} / ${result.late.fds.toFixed(1)} (peak ${result.peakFds}) -> idle ${result.idleAfter.fds}; ` +
            `sockets ${result.idleBefore.sockets} -> ${result.idleAfter.sockets}, files ${result.idleBefore.files} -> ${result.idleAfter.files}`,
        );

        expect(result.ops).toBeGreaterThan(SECONDS * 20);
        // Flat, with the slack V8 needs: its heap grows by up to about 60 MiB over the first ~100 s before the first
        // shrink (the 20-minute curve in docs/performance.md), which no 90 s window can tell from a leak of that size.
        // A leak of a few KiB per request (over 1 MiB/s here) still fails it; the 20-minute run is the fine measure.
        expect(result.late.rssMiB - result.early.rssMiB).toBeLessThan(Math.max(64, 0.35 * result.early.rssMiB));
        // 16 client connections plus what requests hold open for a moment: the same before and after.
        expect(result.late.fds - result.early.fds).toBeLessThan(8);
        // Given back: every socket and file the load opened is closed once it stops. The total is not compared: the
        // threads the server starts on first use (the WAL checkpointer, the MD5 pool) add their loops' eventfds and
        // epolls and the checkpointer's database connection, once, and keep them (CI saw 26 -> 31 idle).
        expect(result.idleAfter.sockets).toBeLessThanOrEqual(result.idleBefore.sockets);
        expect(result.idleAfter.files).toBeLessThanOrEqual(result.idleBefore.files);
      } finally {
        expect(await store.stop()).toBe(0);
      }
    },
    (SECONDS + 120) * 1000,
  );
});
