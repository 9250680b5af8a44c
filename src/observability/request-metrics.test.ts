import { describe, expect, it } from 'vitest';
import { requestLabels } from './metric-labels.js';
import { DURATION_BUCKETS, RequestMetrics } from './request-metrics.js';

const HEAD_OK = requestLabels({ surface: 's3', method: 'HEAD', routeClass: 'HeadObject', status: 200 });
const SERIES = 'surface="s3",method="HEAD",route_class="HeadObject",status_class="2xx"';

const lines = (text: string, prefix: string): string[] => text.split('\n').filter((l) => l.startsWith(prefix));

describe('RequestMetrics', () => {
  it('renders the three families with HELP and TYPE, even before any request', () => {
    const text = new RequestMetrics().exposition();
    expect([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      'store_http_requests_total counter',
      'store_http_request_duration_seconds histogram',
      'store_s3_operations_total counter',
    ]);
    expect(text.split('\n').filter((l) => !l.startsWith('#') && l !== '')).toEqual([]);
  });

  it('counts each duration in the first bucket whose bound it does not exceed, and cumulates the buckets', () => {
    const m = new RequestMetrics();
    for (const seconds of [0, 0.001, 0.0011, 0.3, 300, 301]) m.observe(HEAD_OK, seconds);
    const text = m.exposition();
    const bucket = (le: string): string | undefined =>
      lines(text, `store_http_request_duration_seconds_bucket{le="${le}",${SERIES}} `)[0]?.split(' ')[1];
    // A value equal to a bound is in that bucket (Prometheus's `le`); above the last bound only +Inf holds it.
    expect(bucket('0.001')).toBe('2');
    expect(bucket('0.005')).toBe('3');
    expect(bucket('0.25')).toBe('3');
    expect(bucket('0.5')).toBe('4');
    expect(bucket('300')).toBe('5');
    expect(bucket('+Inf')).toBe('6');
    expect(lines(text, 'store_http_request_duration_seconds_bucket{')).toHaveLength(DURATION_BUCKETS.length + 1);
    expect(lines(text, 'store_http_request_duration_seconds_count{')).toEqual([
      `store_http_request_duration_seconds_count{${SERIES}} 6`,
    ]);
    const sum = Number(lines(text, 'store_http_request_duration_seconds_sum{')[0]?.split(' ')[1]);
    expect(sum).toBeCloseTo(601.3021, 6);
    expect(lines(text, 'store_http_requests_total{')).toEqual([`store_http_requests_total{${SERIES}} 6`]);
  });

  it('keeps one series per label set, in first-seen order, and counts S3 operations only for the S3 surface', () => {
    const m = new RequestMetrics();
    m.observe(HEAD_OK, 0.01);
    m.observe(requestLabels({ surface: 'admin', method: 'GET', routeClass: '/api/admin/keys/:id', status: 404 }), 0.01);
    m.observe(requestLabels({ surface: 's3', method: 'HEAD', routeClass: 'HeadObject', status: 404 }), 0.01);
    m.observe(HEAD_OK, 0.01);
    const text = m.exposition();
    expect(lines(text, 'store_http_requests_total{')).toEqual([
      `store_http_requests_total{${SERIES}} 2`,
      'store_http_requests_total{surface="admin",method="GET",route_class="/api/admin/keys/:id",status_class="4xx"} 1',
      'store_http_requests_total{surface="s3",method="HEAD",route_class="HeadObject",status_class="4xx"} 1',
    ]);
    expect(lines(text, 'store_s3_operations_total{')).toEqual(['store_s3_operations_total{operation="HeadObject"} 3']);
  });

  it('escapes backslashes, double quotes and line feeds in label values', () => {
    const m = new RequestMetrics();
    m.observe({ surface: 's3', method: 'GET', route_class: 'a\\b"c\nd', status_class: '2xx' }, 0.01);
    const text = m.exposition();
    expect(lines(text, 'store_http_requests_total{')).toEqual([
      'store_http_requests_total{surface="s3",method="GET",route_class="a\\\\b\\"c\\nd",status_class="2xx"} 1',
    ]);
    expect(lines(text, 'store_s3_operations_total{')).toEqual([
      'store_s3_operations_total{operation="a\\\\b\\"c\\nd"} 1',
    ]);
  });
});
