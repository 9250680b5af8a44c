// `promtool check metrics` (Debian package `prometheus`) on real scrapes: after a mixed workload, across a restart
// so the per-bucket gauges are filled, the exposition has no format error and exactly one lint finding, the one
// the spec forces (its gauge `store_object_count` ends in `_count`). The integrity families are checked too.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../src/observability/metrics-registry.js';
import { parseSamples, scrape } from '../helpers/metrics-scrape.js';
import { mixedWorkload, type WorkloadTrace } from '../helpers/mixed-workload.js';
import { useStore } from '../helpers/store.js';

const PROMTOOL = '/usr/bin/promtool';
/** The one finding the spec's own family name causes; anything else is a defect. */
const FORCED_FINDING = 'store_object_count non-histogram and non-summary metrics should not have "_count" suffix';

/** Pipes an exposition into `promtool check metrics`; resolves with its exit code and its findings, one per line. */
function promtoolCheck(text: string): Promise<{ code: number | null; findings: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, findings: output.split('\n').filter((l) => l.trim() !== '') }));
    child.stdin.end(text);
  });
}

describe('promtool check metrics', () => {
  const token = randomBytes(36).toString('base64url');
  const store = useStore({ env: { METRICS_MODE: 'token', METRICS_TOKEN: token } });
  let trace: WorkloadTrace;
  let text: string;

  beforeAll(async () => {
    expect(existsSync(PROMTOOL), `${PROMTOOL} is missing: apt-get install prometheus (the CI script installs it)`).toBe(
      true,
    );
    trace = await mixedWorkload(store.server);
    // After a restart the boot-time rollup has filled the per-bucket gauges; a second workload fills the rest.
    await store.restart();
    await mixedWorkload(store.server);
    const res = await scrape(store.server, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    text = res.text;
  });

  it('finds no format error and no lint problem but the forced one, on a scrape after a mixed workload', async () => {
    const samples = parseSamples(text);
    // The scrape covers every family, with values: a check of an empty exposition would prove nothing.
    for (const name of [
      'store_http_requests_total',
      'store_http_request_duration_seconds_bucket',
      'store_s3_operations_total',
      'store_storage_bytes',
      'store_object_count',
      'store_replication_outbox_depth',
      'store_webhook_outbox_depth',
      'store_audit_dropped_total',
      'store_process_cpu_seconds_total',
      'store_nodejs_eventloop_lag_seconds',
    ]) {
      expect(
        samples.some((s) => s.name === name),
        name,
      ).toBe(true);
    }
    expect(samples.some((s) => s.labels['bucket'] === trace.bucket)).toBe(true);
    const result = await promtoolCheck(text);
    expect(result.findings).toEqual([FORCED_FINDING]);
    expect(result.code).toBe(3); // 3: lint findings only; 1 would be a format error
  });

  it('accepts the integrity families (registered only with a scrubber) under the same rules', async () => {
    const metrics = new MetricsRegistry({ integrity: true });
    metrics.setIntegrity({ ok: 10, corrupt: 1 }, new Date());
    metrics.setBucketUsage([{ bucket: 'b', bytes: 1, objects: 1 }]);
    const result = await promtoolCheck(await metrics.scrape());
    expect(result.findings).toEqual([FORCED_FINDING]);
  });

  it('reports a broken exposition as a format error (the check itself works)', async () => {
    const result = await promtoolCheck(`${text}store_broken{ 1\n`);
    expect(result.code).toBe(1);
    expect(result.findings.join('\n')).toMatch(/parsing error/);
  });
});
