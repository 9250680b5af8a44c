// A remote outage never fails or slows a local write: with the target Store stopped, 1,000 writes succeed with
// their latency unchanged, the outbox backs up, and once the target is back it drains to zero and the remote
// matches. A target that answers 500 forever dead-letters every intent after the cap; failed intents are listed
// and retried from the admin API; and no log line of that failing run carries a credential or the endpoint.

import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  remoteListing,
  remoteObject,
  replicationEnv,
  replicationStatus,
  sha256,
  startFailingTarget,
  startStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { startStore } from '../helpers/store.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timedPuts(
  s3: S3Client,
  bucket: string,
  { prefix, n, concurrency = 10 }: { prefix: string; n: number; concurrency?: number },
): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const t0 = performance.now();
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${prefix}${String(i).padStart(4, '0')}`,
          Body: `body ${prefix}${i}`,
        }),
      );
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return times;
}

describe('a remote outage', () => {
  it('lets 1,000 writes succeed at unchanged latency; the outbox backs up, then drains to zero and the remote matches', async () => {
    const t = await startStoreTarget({ restartable: true });
    const source = await startStore({
      env: replicationEnv(t.target, { STORE_REPLICATION_MAX_ATTEMPTS: '1000', STORE_REPLICATION_RETRY_BASE_MS: '200' }),
    });
    const s3 = source.s3;
    await s3.send(new CreateBucketCommand({ Bucket: 'data' }));

    const up = await timedPuts(s3, 'data', { prefix: 'warm/', n: 100 });
    await waitFor(
      'the warm-up to drain',
      async () => (await replicationStatus(source.server, await source.admin())).outbox.pending === 0,
    );

    await t.store.stop();
    const down = await timedPuts(s3, 'data', { prefix: 'outage/', n: 1000 });
    expect(down).toHaveLength(1000);
    const during = await replicationStatus(source.server, await source.admin());
    expect(during.outbox.pending + during.outbox.inflight).toBeGreaterThan(900);
    expect(during.outbox.failed).toBe(0);
    const st = await waitFor('a failed drain', async () => {
      const s = await replicationStatus(source.server, await source.admin());
      return s.lastDrain?.errorClass ? s : undefined;
    });
    expect(['unreachable', 'timeout']).toContain(st.lastDrain?.errorClass);
    // Writes do not wait for the remote: the median with the target down is no worse than a few times the median
    // with it up (the machine is shared, so the bound is loose; the figures are printed for the record).
    console.log(
      `PUT latency median: target up ${median(up).toFixed(1)} ms (100 writes), target down ${median(down).toFixed(1)} ms (1,000 writes)`,
    );
    expect(median(down)).toBeLessThan(median(up) * 3 + 20);

    await t.store.restart();
    await waitFor(
      'the outbox to drain to zero',
      async () => {
        const s = await replicationStatus(source.server, await source.admin());
        return s.outbox.pending + s.outbox.inflight + s.outbox.failed === 0;
      },
      { timeoutMs: 60_000, everyMs: 250 },
    );
    const listing = await remoteListing(t.target, 'data/');
    expect(listing.size).toBe(1100);
    for (const i of [0, 1, 500, 999]) {
      const key = `outage/${String(i).padStart(4, '0')}`;
      expect((await remoteObject(t.target, `data/${key}`))?.sha256).toBe(sha256(`body outage/${i}`));
    }
  }, 120_000);

  it('dead-letters after the cap against a target answering 500 forever; lists and retries them; logs carry no secret', async () => {
    const failing = await startFailingTarget();
    onTestFinished(() => failing.stop());
    const source = await startStore({
      env: replicationEnv(failing.target, {
        STORE_REPLICATION_MAX_ATTEMPTS: '3',
        STORE_REPLICATION_RETRY_BASE_MS: '20',
        LOG_LEVEL: 'debug',
      }),
    });
    const s3 = source.s3;
    await s3.send(new CreateBucketCommand({ Bucket: 'data' }));
    for (const key of ['a', 'b', 'c']) await s3.send(new PutObjectCommand({ Bucket: 'data', Key: key, Body: key }));

    const st = await waitFor('every intent to be dead-lettered', async () => {
      const s = await replicationStatus(source.server, await source.admin());
      return s.outbox.failed === 3 ? s : undefined;
    });
    expect(st.outbox).toEqual({ pending: 0, inflight: 0, failed: 3 });
    expect(st.lastDrain?.errorClass).toBe('server-error');
    expect(st.targetBucket).toBe('server-error');

    const failed = await source.adminCall('GET', '/replication/failed?limit=2');
    expect(failed.status).toBe(200);
    const page = failed.body as {
      items: { bucket: string; key: string; attempts: number; lastError: string }[];
      nextCursor: string | null;
    };
    expect(page.items).toHaveLength(2);
    expect(page.items[0]).toMatchObject({ bucket: 'data', key: 'a', attempts: 3, lastError: 'server-error' });
    expect(page.nextCursor).not.toBeNull();
    const rest = await source.adminCall('GET', `/replication/failed?limit=2&cursor=${page.nextCursor}`);
    expect(rest.body as { items: unknown[]; nextCursor: string | null }).toMatchObject({
      items: [{ key: 'c' }],
      nextCursor: null,
    });

    const half = await source.adminCall('POST', '/replication/failed/retry', { bucket: 'data' });
    expect(half.status).toBe(400);
    expect(half.body).toMatchObject({ error: 'ValidationError', message: expect.stringMatching(/^key: /) });
    // Malformed requests to the replication routes are refused with the field named, and change nothing.
    for (const [method, path, body, field] of [
      ['POST', '/replication/failed/retry', { key: 'b' }, 'bucket'],
      ['POST', '/replication/failed/retry', { bucket: 'data', key: 'b', extra: 1 }, 'extra'],
      ['GET', '/replication/failed?cursor=abc', undefined, 'cursor'],
      ['GET', '/replication/failed?limit=0', undefined, 'limit'],
      ['POST', '/replication/reconcile', { bucket: 'a', extra: 1 }, 'extra'],
    ] as const) {
      const res = await source.adminCall(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body, `${method} ${path}`).toMatchObject({
        error: 'ValidationError',
        message: expect.stringContaining(field),
      });
    }
    expect((await source.adminCall('GET', `/replication/reconcile/${'j'.repeat(65)}`)).status).toBe(400);
    const one = await source.adminCall('POST', '/replication/failed/retry', { bucket: 'data', key: 'b' });
    expect(one).toMatchObject({ status: 200, body: { retried: 1 } });
    // Retried from zero attempts: it fails three more times, then is dead again.
    await waitFor(
      'the retried intent to be dead-lettered again',
      async () => (await replicationStatus(source.server, await source.admin())).outbox.failed === 3,
    );
    const all = await source.adminCall('POST', '/replication/failed/retry', {});
    expect(all).toMatchObject({ status: 200, body: { retried: 3 } });
    await waitFor(
      'all to be dead-lettered again',
      async () => (await replicationStatus(source.server, await source.admin())).outbox.failed === 3,
    );
    expect(failing.requests()).toBeGreaterThanOrEqual(18);

    // Nothing the target is known by reached a log line: not the secret, the access key id or the endpoint.
    const logs = source.server.output();
    expect(logs).toContain('replication intent dead-lettered');
    expect(logs).not.toContain(failing.target.secretAccessKey);
    expect(logs).not.toContain(failing.target.accessKeyId);
    expect(logs).not.toContain(failing.target.url.replace('http://', ''));
    const status = JSON.stringify(await replicationStatus(source.server, await source.admin()));
    expect(status).not.toContain(failing.target.url.replace('http://', ''));
  }, 60_000);
});
