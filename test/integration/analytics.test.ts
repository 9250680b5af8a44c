// Analytics through the real server: the request counts match a known S3 workload (operations, 4xx), survive a
// restart (flushed at shutdown), storage over time and the per-bucket breakdown show what was stored, every series
// stays within 500 points whatever the range, and bad parameters are 400s naming the field.

import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';

interface Operation {
  surface: string;
  operation: string;
  requests: number;
  clientErrors: number;
  serverErrors: number;
}
interface RequestsBody {
  step: number;
  points: {
    t: string;
    requests: number | null;
    clientErrors: number | null;
    requestsPerSecond: number | null;
    bySurface: Record<string, { requests: number }>;
  }[];
  totals: { requests: number; clientErrors: number; serverErrors: number };
  operations: Operation[];
}
interface StorageBody {
  step: number;
  bucket: string | null;
  points: { t: string; bytes: number | null; objects: number | null }[];
}

const s3Op = (body: RequestsBody, name: string): Operation | undefined =>
  body.operations.find((o) => o.surface === 's3' && o.operation === name);

describe('analytics through the real server', () => {
  const store = useStore();
  const bucket = uniqueBucket('stats');
  let stored = 0;
  const started = new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (let i = 0; i < 12; i++) {
      const body = randomBytes(1000 + i);
      stored += body.length;
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `k${i}`, Body: body }));
    }
    for (let i = 0; i < 5; i++)
      await store.s3
        .send(new GetObjectCommand({ Bucket: bucket, Key: `k${i}` }))
        .then((r) => r.Body?.transformToByteArray());
    for (let i = 0; i < 3; i++)
      await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: `missing${i}` })).catch(() => undefined);
  }, 60_000);

  it('counts the workload per operation and error class, live (before any flush)', async () => {
    const res = await store.adminCall('GET', `/analytics/requests?from=${started}&step=1m`);
    expect(res.status).toBe(200);
    const body = res.body as RequestsBody;
    expect(body.step).toBe(60);
    expect(s3Op(body, 'PutObject')).toMatchObject({ requests: 12, clientErrors: 0, serverErrors: 0 });
    expect(s3Op(body, 'GetObject')).toMatchObject({ requests: 8, clientErrors: 3, serverErrors: 0 });
    expect(s3Op(body, 'CreateBucket')).toMatchObject({ requests: 1 });
    const s3Total = body.points.reduce((n, p) => n + (p.bySurface['s3']?.requests ?? 0), 0);
    expect(s3Total).toBe(21);
    expect(body.totals.clientErrors).toBeGreaterThanOrEqual(3);
    const busy = body.points.filter((p) => (p.requests ?? 0) > 0);
    expect(busy.length).toBeGreaterThan(0);
    for (const p of busy) expect(p.requestsPerSecond).toBeCloseTo((p.requests as number) / 60, 6);
  });

  it('shows storage over time for the instance and the bucket, and the per-bucket breakdown', async () => {
    const total = (await store.adminCall('GET', '/analytics/storage')).body as StorageBody;
    expect(total.bucket).toBeNull();
    expect(total.points.length).toBeLessThanOrEqual(501);
    expect(total.points.at(-1)).toMatchObject({ bytes: stored, objects: 12 });
    const one = (await store.adminCall('GET', `/analytics/storage?bucket=${bucket}&from=${started}`))
      .body as StorageBody;
    expect(one.bucket).toBe(bucket);
    expect(one.step).toBe(900);
    expect(one.points.at(-1)).toMatchObject({ bytes: stored, objects: 12 });
    const breakdown = (await store.adminCall('GET', '/analytics/buckets?limit=5')).body as {
      totals: { buckets: number; bytes: number };
      buckets: { bucket: string; bytes: number; objects: number; share: number }[];
    };
    expect(breakdown.totals).toMatchObject({ buckets: 1, bytes: stored });
    expect(breakdown.buckets).toEqual([
      expect.objectContaining({ bucket, bytes: stored, objects: 12, versions: 12, share: 1 }),
    ]);
  });

  it('bounds every series to 500 points whatever the range', async () => {
    const storage = (await store.adminCall('GET', '/analytics/storage?from=1990-01-01&step=1m')).body as StorageBody;
    expect(storage.points.length).toBeLessThanOrEqual(500);
    const requests = (await store.adminCall('GET', '/analytics/requests?from=2000-01-01T00:00:00Z&step=60'))
      .body as RequestsBody;
    expect(requests.points.length).toBeLessThanOrEqual(500);
    expect(requests.step).toBeGreaterThan(60);
  });

  it('refuses bad parameters with a 400 naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['/analytics/storage?from=yesterday', /^from: /],
      ['/analytics/storage?to=2020-13-01', /^to: /],
      ['/analytics/storage?bucket=Not_A_Bucket', /^bucket: /],
      ['/analytics/requests?step=5w', /^step: /],
      ['/analytics/requests?step=0', /^step: /],
      ['/analytics/requests?from=2030-01-01', /^from: /],
      ['/analytics/requests?from=2020-01-02&to=2020-01-01', /^to: /],
      ['/analytics/buckets?limit=0', /limit/],
      ['/analytics/buckets?since=2999-01-01', /^since: /],
      ['/analytics/buckets?since=yesterday', /^since: /],
      ['/analytics/buckets?limit=1001', /limit/],
      ['/analytics/storage?step=5w', /^step: /],
      ['/analytics/storage?from=2020-01-02&to=2020-01-01', /^to: /],
    ];
    for (const [path, message] of cases) {
      const res = await store.adminCall('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect((res.body as { error: string; message: string }).error).toBe('ValidationError');
      expect((res.body as { message: string }).message).toMatch(message);
    }
  });

  it('keeps the counts across a restart (flushed at shutdown), and reads need a token', async () => {
    await store.restart();
    const body = (await store.adminCall('GET', `/analytics/requests?from=${started}`)).body as RequestsBody;
    expect(s3Op(body, 'PutObject')).toMatchObject({ requests: 12 });
    expect(s3Op(body, 'GetObject')).toMatchObject({ requests: 8, clientErrors: 3 });
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/analytics/requests' })).status).toBe(401);
    const storage = (await store.adminCall('GET', `/analytics/storage?bucket=${bucket}&from=${started}`))
      .body as StorageBody;
    expect(storage.points.at(-1)).toMatchObject({ bytes: stored });
  });
});
