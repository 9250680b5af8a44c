// The registry exports exactly the spec's families (plus the webhook outbox, audit drops, read pins and internal
// errors), default runtime metrics only as store_process_* / store_nodejs_*, and per-bucket series that a rollup
// replaces wholesale.

import { describe, expect, it } from 'vitest';
import { requestLabels } from './metric-labels.js';
import { MetricsRegistry } from './metrics-registry.js';

const FAMILIES = [
  'store_http_requests_total',
  'store_http_request_duration_seconds',
  'store_s3_operations_total',
  'store_storage_bytes',
  'store_object_count',
  'store_bucket_quota_bytes',
  'store_bucket_quota_objects',
  'store_replication_outbox_depth',
  'store_webhook_outbox_depth',
  'store_notification_deliveries_total',
  'store_notification_queue',
  'store_audit_dropped_total',
  'store_internal_errors_total',
  'store_blob_read_pins',
  'store_s3_auth_total',
];
const INTEGRITY = ['store_integrity_objects', 'store_integrity_last_run_timestamp'];

/** Family names from the # TYPE lines of a scrape. */
function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1] as string);
}

const samples = (text: string, name: string): string[] =>
  text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));

describe('MetricsRegistry', () => {
  it('exports the spec families and runtime metrics prefixed store_process_ / store_nodejs_, nothing else', async () => {
    const text = await new MetricsRegistry().scrape();
    const names = families(text);
    const own = names.filter((n) => !n.startsWith('store_process_') && !n.startsWith('store_nodejs_'));
    expect(own.sort()).toEqual([...FAMILIES].sort());
    expect(names.some((n) => n.startsWith('store_process_'))).toBe(true);
    expect(names).toContain('store_nodejs_eventloop_lag_seconds');
    expect(names).toContain('store_nodejs_active_handles');
  });

  it('counts S3 requests by signature scheme from 0, each scrape showing the running totals', async () => {
    const m = new MetricsRegistry();
    m.countAuth('sigv2');
    m.countAuth('sigv4');
    m.countAuth('sigv4');
    expect(samples(await m.scrape(), 'store_s3_auth_total')).toEqual([
      'store_s3_auth_total{scheme="sigv4"} 2',
      'store_s3_auth_total{scheme="sigv2"} 1',
      'store_s3_auth_total{scheme="anonymous"} 0',
    ]);
    m.countAuth('anonymous');
    expect(samples(await m.scrape(), 'store_s3_auth_total')).toContain('store_s3_auth_total{scheme="anonymous"} 1');
  });

  it('counts internal errors per surface from 0, and reads the pins held at each scrape', async () => {
    const m = new MetricsRegistry();
    let pins = 3;
    m.registerReadPins(() => pins);
    m.countInternalError('s3');
    let text = await m.scrape();
    expect(samples(text, 'store_internal_errors_total')).toEqual([
      'store_internal_errors_total{surface="s3"} 1',
      'store_internal_errors_total{surface="admin"} 0',
    ]);
    expect(samples(text, 'store_blob_read_pins')).toEqual(['store_blob_read_pins 3']);
    pins = 0;
    text = await m.scrape();
    expect(samples(text, 'store_blob_read_pins')).toEqual(['store_blob_read_pins 0']);
  });

  it('leaves out the runtime gauges named *_total (a counter suffix on a gauge)', async () => {
    const text = await new MetricsRegistry().scrape();
    const gauges = [...text.matchAll(/^# TYPE (\S+) gauge$/gm)].map((m) => m[1] as string);
    expect(gauges.filter((n) => n.endsWith('_total'))).toEqual([]);
  });

  it('registers the integrity families only when asked (a scrubber is enabled)', async () => {
    const off = new MetricsRegistry();
    off.setIntegrity({ ok: 3 }, new Date());
    expect(off.hasIntegrity).toBe(false);
    expect(families(await off.scrape()).filter((n) => INTEGRITY.includes(n))).toEqual([]);

    const on = new MetricsRegistry({ integrity: true });
    on.setIntegrity({ ok: 3, corrupt: 1 }, new Date('2026-01-02T03:04:05Z'));
    const text = await on.scrape();
    expect(samples(text, 'store_integrity_objects')).toEqual([
      'store_integrity_objects{status="ok"} 3',
      'store_integrity_objects{status="corrupt"} 1',
      'store_integrity_objects{status="unchecked"} 0',
    ]);
    expect(samples(text, 'store_integrity_last_run_timestamp')).toEqual([
      `store_integrity_last_run_timestamp ${Date.parse('2026-01-02T03:04:05Z') / 1000}`,
    ]);
  });

  it('records a request in both HTTP families, and S3 requests by operation', async () => {
    const m = new MetricsRegistry();
    m.observeRequest(requestLabels({ surface: 's3', method: 'PUT', routeClass: 'PutObject', status: 200 }), 0.02);
    m.observeRequest(requestLabels({ surface: 's3', method: 'PUT', routeClass: 'PutObject', status: 200 }), 0.5);
    m.observeRequest(
      requestLabels({ surface: 'admin', method: 'GET', routeClass: '/api/admin/keys/:id', status: 404 }),
      0.001,
    );
    const text = await m.scrape();
    expect(samples(text, 'store_http_requests_total')).toEqual([
      'store_http_requests_total{surface="s3",method="PUT",route_class="PutObject",status_class="2xx"} 2',
      'store_http_requests_total{surface="admin",method="GET",route_class="/api/admin/keys/:id",status_class="4xx"} 1',
    ]);
    expect(text).toContain(
      'store_http_request_duration_seconds_count{surface="s3",method="PUT",route_class="PutObject",status_class="2xx"} 2',
    );
    expect(text).toContain(
      'store_http_request_duration_seconds_bucket{le="0.025",surface="s3",method="PUT",route_class="PutObject",status_class="2xx"} 1',
    );
    expect(text).toContain(
      'store_http_request_duration_seconds_bucket{le="300",surface="s3",method="PUT",route_class="PutObject",status_class="2xx"} 2',
    );
    expect(samples(text, 'store_s3_operations_total')).toEqual(['store_s3_operations_total{operation="PutObject"} 2']);
  });

  it('replaces every per-bucket series on each rollup, so a missing bucket has none', async () => {
    const m = new MetricsRegistry();
    m.setBucketUsage([
      { bucket: 'a', bytes: 100, objects: 2 },
      { bucket: 'b', bytes: 0, objects: 0 },
    ]);
    let text = await m.scrape();
    expect(samples(text, 'store_storage_bytes')).toEqual([
      'store_storage_bytes{bucket="a"} 100',
      'store_storage_bytes{bucket="b"} 0',
    ]);
    expect(samples(text, 'store_object_count')).toEqual([
      'store_object_count{bucket="a"} 2',
      'store_object_count{bucket="b"} 0',
    ]);
    m.setBucketUsage([{ bucket: 'b', bytes: 7, objects: 1 }]);
    text = await m.scrape();
    expect(samples(text, 'store_storage_bytes')).toEqual(['store_storage_bytes{bucket="b"} 7']);
    expect(samples(text, 'store_object_count')).toEqual(['store_object_count{bucket="b"} 1']);
  });

  it('carries each bucket quota limit that is set, and drops it once the quota is removed', async () => {
    const m = new MetricsRegistry();
    m.setBucketUsage([
      { bucket: 'a', bytes: 1, objects: 1, quotaBytes: 1024, quotaObjects: 10 },
      { bucket: 'b', bytes: 1, objects: 1, quotaObjects: 5 },
      { bucket: 'c', bytes: 1, objects: 1 },
    ]);
    let text = await m.scrape();
    expect(samples(text, 'store_bucket_quota_bytes')).toEqual(['store_bucket_quota_bytes{bucket="a"} 1024']);
    expect(samples(text, 'store_bucket_quota_objects')).toEqual([
      'store_bucket_quota_objects{bucket="a"} 10',
      'store_bucket_quota_objects{bucket="b"} 5',
    ]);
    m.setBucketUsage([{ bucket: 'a', bytes: 1, objects: 1 }]);
    text = await m.scrape();
    expect(samples(text, 'store_bucket_quota_bytes')).toEqual([]);
    expect(samples(text, 'store_bucket_quota_objects')).toEqual([]);
  });

  it('shows every outbox status from the start (0), and only known statuses', async () => {
    const m = new MetricsRegistry();
    expect(samples(await m.scrape(), 'store_replication_outbox_depth')).toEqual([
      'store_replication_outbox_depth{status="pending"} 0',
      'store_replication_outbox_depth{status="inflight"} 0',
      'store_replication_outbox_depth{status="failed"} 0',
    ]);
    m.setWebhookOutbox({ pending: 4, failed: 1 });
    m.setWebhookOutbox({ pending: 3, ...({ bogus: 9 } as object) });
    m.setReplicationOutbox({ inflight: 2 });
    const text = await m.scrape();
    expect(samples(text, 'store_webhook_outbox_depth')).toEqual([
      'store_webhook_outbox_depth{status="pending"} 3',
      'store_webhook_outbox_depth{status="delivered"} 0',
      'store_webhook_outbox_depth{status="failed"} 0',
    ]);
    expect(samples(text, 'store_replication_outbox_depth')[1]).toBe(
      'store_replication_outbox_depth{status="inflight"} 2',
    );
  });

  it('reads the audit drop count from the registered source at each scrape (0 before one is registered)', async () => {
    const m = new MetricsRegistry();
    expect(samples(await m.scrape(), 'store_audit_dropped_total')).toEqual(['store_audit_dropped_total 0']);
    let dropped = 5;
    m.registerAuditDrops(() => dropped);
    expect(samples(await m.scrape(), 'store_audit_dropped_total')).toEqual(['store_audit_dropped_total 5']);
    dropped = 12;
    expect(samples(await m.scrape(), 'store_audit_dropped_total')).toEqual(['store_audit_dropped_total 12']);
    m.registerAuditDrops(() => Number.NaN);
    expect(samples(await m.scrape(), 'store_audit_dropped_total')).toEqual(['store_audit_dropped_total 0']);
  });

  it('keeps two registries apart (no global registry)', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.setBucketUsage([{ bucket: 'only-a', bytes: 1, objects: 1 }]);
    expect(await b.scrape()).not.toContain('only-a');
    expect(a.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
