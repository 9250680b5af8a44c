// GET /metrics against the real server: METRICS_MODE off / public / token (under a MOUNT_PATH), the boot refusals,
// and what a scrape holds after a mixed workload: the expected families and label values, and never an object key,
// a URL, a query string or a client address in a label. Per-bucket gauges on a rollup tick are tested in-process
// (observability-in-process.test.ts) and after a restart in test/e2e/metrics-promtool.test.ts.

import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, parseSamples, scrape, valueOf, type Sample } from '../helpers/metrics-scrape.js';
import { mixedWorkload, type WorkloadTrace } from '../helpers/mixed-workload.js';
import { baseEnv, runServeExpectingExit, tempDir } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';
const REQUEST_LABELS = ['method', 'route_class', 'status_class', 'surface'];
/** The label names each of our families may carry (histogram buckets add `le`). */
const LABEL_NAMES: Record<string, string[]> = {
  store_http_requests_total: REQUEST_LABELS,
  store_http_request_duration_seconds_bucket: [...REQUEST_LABELS, 'le'].sort(),
  store_http_request_duration_seconds_sum: REQUEST_LABELS,
  store_http_request_duration_seconds_count: REQUEST_LABELS,
  store_s3_operations_total: ['operation'],
  store_storage_bytes: ['bucket'],
  store_object_count: ['bucket'],
  store_replication_outbox_depth: ['status'],
  store_webhook_outbox_depth: ['status'],
  store_audit_dropped_total: [],
};

function expectNotServed(res: { status: number; text: string }): void {
  expect(res.status).toBe(404);
  expect(JSON.parse(res.text)).toMatchObject({ error: 'NotFound', statusCode: 404 });
  expect(res.text).not.toMatch(/store_|# HELP|# TYPE/);
}

describe('METRICS_MODE=off (the default)', () => {
  const store = useStore();

  it('does not serve /metrics: a 404 in the admin envelope, no registry body, for GET and HEAD, with or without a token', async () => {
    expectNotServed(await scrape(store.server));
    expectNotServed(await scrape(store.server, { authorization: `Bearer ${randomBytes(32).toString('base64url')}` }));
    const head = await scrape(store.server, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.text).toBe('');
  });
});

describe('boot refusals', () => {
  it.each([
    ['token mode without a token', { METRICS_MODE: 'token' }],
    // The other weak shapes (repeated character, placeholder, low entropy) are covered by config-observability.test.ts.
    ['a placeholder token', { METRICS_MODE: 'token', METRICS_TOKEN: `changeme${randomBytes(24).toString('hex')}` }],
  ])('refuses to start with %s (exit 78, naming METRICS_TOKEN, never its value)', async (_label, extra) => {
    const { env } = await baseEnv(`${tempDir()}/data`);
    const { code, output } = await runServeExpectingExit({ ...env, ...extra });
    expect(code).toBe(78);
    expect(output).toContain('METRICS_TOKEN');
    if ('METRICS_TOKEN' in extra) expect(output).not.toContain(extra.METRICS_TOKEN);
  });
});

describe('METRICS_MODE=token under MOUNT_PATH=/storage', () => {
  const token = randomBytes(36).toString('base64url');
  const store = useStore({ env: { METRICS_MODE: 'token', METRICS_TOKEN: token, MOUNT_PATH: '/storage' } });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token of the same length', `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`],
    ['a prefix of the token', `Bearer ${token.slice(0, 10)}`],
    ['the token with a suffix', `Bearer ${token}0`],
    ['the token as Basic credentials', `Basic ${token}`],
    ['the bare token', token],
  ])('answers 401 in the envelope, with no registry body, to %s', async (_label, authorization) => {
    const res = await scrape(store.server, { mountPath: '/storage', authorization });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(JSON.parse(res.text)).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
    expect(res.text).not.toMatch(/store_|# HELP/);
  });

  it('serves the exposition to the right Bearer token (scheme in any case)', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const res = await scrape(store.server, { mountPath: '/storage', authorization: `${scheme} ${token}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(EXPOSITION);
      expect(res.text).toContain('# TYPE store_http_requests_total counter');
    }
  });

  it('is only under the mount path, and labels admin routes without the mount prefix', async () => {
    const outside = await scrape(store.server, { authorization: `Bearer ${token}` });
    expect(outside.status).toBe(404);
    expect(outside.text).not.toMatch(/store_|# HELP/);
    expect((await fetch(`${store.server.url}/storage/api/admin/health`)).status).toBe(200);
    const samples = parseSamples(
      (
        await eventually(
          () => scrape(store.server, { mountPath: '/storage', authorization: `Bearer ${token}` }),
          (r) => r.text.includes('route_class="/api/admin/health"'),
        )
      ).text,
    );
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'admin',
        route_class: '/api/admin/health',
        status_class: '2xx',
      }),
    ).toBe(1);
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'outside-mount',
        route_class: 'unmatched',
        status_class: '4xx',
      }),
    ).toBe(1);
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'metrics',
        route_class: '/metrics',
        status_class: '4xx',
      }),
    ).toBeGreaterThanOrEqual(6);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.startsWith('/storage')))).toBe(false);
  });

  it('records a mixed workload under the mount path', async () => {
    await mixedWorkload(store.server, { mountPath: '/storage' });
    const samples = parseSamples(
      (await scrape(store.server, { mountPath: '/storage', authorization: `Bearer ${token}` })).text,
    );
    expect(valueOf(samples, 'store_s3_operations_total', { operation: 'PutObject' })).toBe(2);
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'admin',
        route_class: '/api/admin/keys/:id',
        status_class: '4xx',
      }),
    ).toBe(1);
  });
});

describe('METRICS_MODE=public after a mixed workload', () => {
  const store = useStore({ env: { METRICS_MODE: 'public' } });
  let trace: WorkloadTrace;
  let samples: Sample[];
  let text: string;
  beforeAll(async () => {
    trace = await mixedWorkload(store.server);
    // The last request (a console route) is recorded when its response closes, just after the client has it.
    const res = await eventually(
      () => scrape(store.server),
      (r) => r.text.includes('surface="console"'),
    );
    text = res.text;
    samples = parseSamples(text);
  });

  it('serves the 0.0.4 text exposition, uncached, to GET and HEAD without credentials', async () => {
    const res = await scrape(store.server);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(EXPOSITION);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const head = await scrape(store.server, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('counts S3 requests by operation and status class, in both HTTP families', () => {
    const s3 = (route_class: string, method: string, status_class: string) => ({
      surface: 's3',
      method,
      route_class,
      status_class,
    });
    expect(valueOf(samples, 'store_http_requests_total', s3('CreateBucket', 'PUT', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', s3('PutObject', 'PUT', '2xx'))).toBe(2);
    expect(valueOf(samples, 'store_http_requests_total', s3('GetObject', 'GET', '2xx'))).toBe(2); // SDK + presigned
    expect(valueOf(samples, 'store_http_requests_total', s3('GetObject', 'GET', '4xx'))).toBe(2); // NoSuchKey, NoSuchBucket
    expect(valueOf(samples, 'store_http_requests_total', s3('HeadObject', 'HEAD', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', s3('ListObjectsV2', 'GET', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', s3('ListObjectsV2', 'GET', '4xx'))).toBe(1); // unsigned: AccessDenied
    expect(valueOf(samples, 'store_http_requests_total', s3('CompleteMultipartUpload', 'POST', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', s3('DeleteObject', 'DELETE', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_request_duration_seconds_count', s3('PutObject', 'PUT', '2xx'))).toBe(2);
    expect(
      valueOf(samples, 'store_http_request_duration_seconds_bucket', { ...s3('PutObject', 'PUT', '2xx'), le: '+Inf' }),
    ).toBe(2);
    expect(valueOf(samples, 'store_s3_operations_total', { operation: 'PutObject' })).toBe(2);
    expect(valueOf(samples, 'store_s3_operations_total', { operation: 'GetObject' })).toBe(4);
    expect(valueOf(samples, 'store_s3_operations_total', { operation: 'UploadPart' })).toBe(1);
  });

  it('folds an unknown method into other, and counts an unparsable request under surface unparsed', () => {
    const other = samples.filter((s) => s.name === 'store_http_requests_total' && s.labels['method'] === 'other');
    expect(
      other.map((s) => `${s.labels['surface']} ${s.labels['route_class']} ${s.labels['status_class']}`).sort(),
    ).toEqual(['s3 Unknown 4xx', 'unparsed unmatched 4xx']);
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'unparsed',
        method: 'other',
        route_class: 'unmatched',
        status_class: '4xx',
      }),
    ).toBe(1);
  });

  it('labels admin requests by route pattern, 404s as unmatched, and the console and /metrics as their own surfaces', () => {
    const admin = (route_class: string, method: string, status_class: string) => ({
      surface: 'admin',
      method,
      route_class,
      status_class,
    });
    expect(valueOf(samples, 'store_http_requests_total', admin('/api/admin/auth/login', 'POST', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', admin('/api/admin/keys', 'GET', '2xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', admin('/api/admin/keys', 'GET', '4xx'))).toBe(1); // no token: 401
    expect(valueOf(samples, 'store_http_requests_total', admin('/api/admin/keys/:id', 'GET', '4xx'))).toBe(1);
    expect(valueOf(samples, 'store_http_requests_total', admin('unmatched', 'GET', '4xx'))).toBe(1);
    // A console route is answered by the history fallback: its route class is the pattern, never the path asked for.
    expect(
      valueOf(samples, 'store_http_requests_total', {
        surface: 'console',
        method: 'GET',
        route_class: '/admin/*',
        status_class: '2xx',
      }),
    ).toBe(1);
  });

  it('counts the scrapes themselves under surface metrics', async () => {
    const later = parseSamples(
      (
        await eventually(
          () => scrape(store.server),
          (r) => r.text.includes('surface="metrics"'),
        )
      ).text,
    );
    expect(
      valueOf(later, 'store_http_requests_total', {
        surface: 'metrics',
        method: 'GET',
        route_class: '/metrics',
        status_class: '2xx',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('exports the outbox and audit families at zero, the runtime metrics, and no integrity families (no scrubber)', () => {
    for (const status of ['pending', 'inflight', 'failed'])
      expect(valueOf(samples, 'store_replication_outbox_depth', { status })).toBe(0);
    for (const status of ['pending', 'delivered', 'failed'])
      expect(valueOf(samples, 'store_webhook_outbox_depth', { status })).toBe(0);
    expect(valueOf(samples, 'store_audit_dropped_total')).toBe(0);
    expect(valueOf(samples, 'store_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.some((s) => s.name.startsWith('store_nodejs_heap_size_used_bytes'))).toBe(true);
    expect(text).not.toContain('store_integrity_');
    expect(samples.every((s) => s.name.startsWith('store_'))).toBe(true);
  });

  it('never puts an object key, a URL, a query string or a client address in a label', () => {
    expect(trace.forbidden.length).toBeGreaterThan(5);
    for (const sample of samples) {
      for (const [name, value] of Object.entries(sample.labels)) {
        for (const forbidden of trace.forbidden) expect(value, `${sample.name} ${name}`).not.toContain(forbidden);
        if (name === 'bucket') expect(value).toMatch(/^[a-z0-9.-]{3,63}$/);
        // Only admin, console and /metrics route patterns contain a slash, and they are patterns, not paths.
        if (value.includes('/')) {
          expect(name).toBe('route_class');
          expect(value).toMatch(/^\/(api\/admin\/[a-z/:]*|metrics|admin[a-z/*]*)$/);
        }
      }
      const own = LABEL_NAMES[sample.name];
      if (own) expect(Object.keys(sample.labels).sort(), sample.name).toEqual([...own].sort());
    }
    // The raw exposition too (HELP texts, names): nothing from the workload but the bucket name.
    for (const forbidden of trace.forbidden.filter((f) => f.length > 2)) expect(text).not.toContain(forbidden);
  });

  it('takes S3 route classes only from the operation names', () => {
    const s3Classes = new Set(
      samples
        .filter((s) => s.name.startsWith('store_http_') && s.labels['surface'] === 's3')
        .map((s) => s.labels['route_class']),
    );
    for (const routeClass of s3Classes) expect(routeClass).toMatch(/^[A-Z][A-Za-z0-9]+$/);
    expect(s3Classes.has('PutObject')).toBe(true);
  });

  it('holds no per-bucket series for a bucket created after boot until the next rollup (15 min default)', () => {
    expect(samples.filter((s) => s.labels['bucket'] === trace.bucket)).toEqual([]);
  });
});
