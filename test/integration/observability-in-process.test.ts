// The app built in-process (buildApp), for what needs the test's own process: request spans seen through an
// OpenTelemetry SDK with the in-memory exporter, and per-bucket gauges following a fast usage-rollup tick (the
// interval is set below the configuration's 60 s floor after validation, which only a test can do).

import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { eventually, parseSamples, scrape, valueOf } from '../helpers/metrics-scrape.js';

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  trace.disable();
});
// The usage-rollup interval is set below the configuration's 60 s floor, after validation.
const store = useInProcess(
  { METRICS_MODE: 'public', OTEL_TRACING_ENABLED: 'true' },
  {},
  { USAGE_ROLLUP_INTERVAL_MS: 50 },
);

describe('OTEL_TRACING_ENABLED=true with an SDK registered', () => {
  it('wraps each request in a span named by surface and route class, with only the bounded attributes', async () => {
    exporter.reset();
    const bucket = uniqueBucket('traced');
    const key = 'trace-secret-key/with space.txt';
    const s3 = sdkClient(store.server);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'traced' }));
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'trace-missing-key' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
    s3.destroy();
    const token = await adminLogin(store.server);
    await adminCall(store.server, token, { method: 'GET', path: '/keys/AKIDTRACENOPE0000000' });
    await scrape(store.server);
    const spans = (
      await eventually(
        async () => exporter.getFinishedSpans(),
        (s) => s.some((x) => x.name === 'metrics /metrics'),
      )
    ).map((s) => ({
      name: s.name,
      attributes: s.attributes,
      status: s.status.code,
    }));
    expect(spans).toEqual([
      {
        name: 's3 CreateBucket',
        attributes: attrs('s3', { method: 'PUT', routeClass: 'CreateBucket', status: 200 }),
        status: 0,
      },
      {
        name: 's3 PutObject',
        attributes: attrs('s3', { method: 'PUT', routeClass: 'PutObject', status: 200 }),
        status: 0,
      },
      {
        name: 's3 GetObject',
        attributes: attrs('s3', { method: 'GET', routeClass: 'GetObject', status: 404 }),
        status: 0,
      },
      {
        name: 'admin /api/admin/auth/login',
        attributes: attrs('admin', { method: 'POST', routeClass: '/api/admin/auth/login', status: 200 }),
        status: 0,
      },
      {
        name: 'admin /api/admin/keys/:id',
        attributes: attrs('admin', { method: 'GET', routeClass: '/api/admin/keys/:id', status: 404 }),
        status: 0,
      },
      {
        name: 'metrics /metrics',
        attributes: attrs('metrics', { method: 'GET', routeClass: '/metrics', status: 200 }),
        status: 0,
      },
    ]);
    const everything = JSON.stringify(
      exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.links]),
    );
    for (const leaked of ['trace-secret-key', 'trace-missing-key', 'AKIDTRACENOPE', '127.0.0.1', bucket])
      expect(everything).not.toContain(leaked);
  });
});

function attrs(
  surface: string,
  { method, routeClass, status }: { method: string; routeClass: string; status: number },
): Record<string, unknown> {
  return {
    'http.request.method': method,
    'http.response.status_code': status,
    'store.surface': surface,
    'store.route_class': routeClass,
  };
}

describe('per-bucket gauges on the usage-rollup tick', () => {
  it('appear for a new bucket (0 when empty), follow its writes, and disappear at the next tick once the bucket is deleted', async () => {
    const kept = uniqueBucket('kept');
    const gone = uniqueBucket('gone');
    const empty = uniqueBucket('empty');
    const s3 = sdkClient(store.server);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: kept }));
      await s3.send(new CreateBucketCommand({ Bucket: gone }));
      await s3.send(new CreateBucketCommand({ Bucket: empty }));
      await s3.send(new PutObjectCommand({ Bucket: kept, Key: 'a', Body: 'x'.repeat(1000) }));
      await s3.send(new PutObjectCommand({ Bucket: gone, Key: 'b', Body: 'y'.repeat(10) }));
      const seen = parseSamples(
        (
          await eventually(
            () => scrape(store.server),
            (r) => r.text.includes(`bucket="${gone}"} 10`),
          )
        ).text,
      );
      expect(valueOf(seen, 'store_storage_bytes', { bucket: kept })).toBe(1000);
      expect(valueOf(seen, 'store_object_count', { bucket: kept })).toBe(1);
      expect(valueOf(seen, 'store_object_count', { bucket: gone })).toBe(1);
      expect(valueOf(seen, 'store_storage_bytes', { bucket: empty })).toBe(0);
      expect(valueOf(seen, 'store_object_count', { bucket: empty })).toBe(0);

      await s3.send(new DeleteObjectCommand({ Bucket: gone, Key: 'b' }));
      await s3.send(new DeleteBucketCommand({ Bucket: gone }));
      const after = parseSamples(
        (
          await eventually(
            () => scrape(store.server),
            (r) => !r.text.includes(`bucket="${gone}"`),
          )
        ).text,
      );
      expect(after.filter((s) => s.labels['bucket'] === gone)).toEqual([]);
      expect(valueOf(after, 'store_storage_bytes', { bucket: kept })).toBe(1000);
    } finally {
      s3.destroy();
    }
  });
});
