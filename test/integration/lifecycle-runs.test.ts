// Lifecycle runs are bounded and safe alongside clients: the action budget and resumption, abort, changed rules,
// versions replaced by a client mid-run, and unexpected failures. Rules themselves are in lifecycle.test.ts.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/observability/logger.js';
import type { ObjectRow } from '../../src/services/objects/object-service.js';
import { openHarness, rule, type LifecycleHarness } from './lifecycle-fixture.js';

let h: LifecycleHarness;

beforeEach(async () => {
  h = await openHarness();
});
afterEach(() => h.fx.close());

describe('bounded runs', () => {
  it('stops at the action budget and resumes where it stopped until the pass completes', async () => {
    const b = h.bucketWith('budget', [rule({ expiration: { days: 1 } })]);
    const c = h.bucketWith('budget2', [rule({ expiration: { days: 1 } })]);
    for (let i = 0; i < 10; i++) await h.put(b, `k${i}`);
    for (let i = 0; i < 3; i++) await h.put(c, `k${i}`);
    const service = h.fx.lifecycle({ batchSize: 2, maxActionsPerRun: 4 });
    const results = [];
    for (let i = 0; i < 10; i++) {
      const r = await h.run('2025-02-01T00:00:00Z', service);
      results.push(r);
      if (r.complete) break;
    }
    expect(results.map((r) => r.expired)).toEqual([4, 4, 4, 1]);
    expect(results.map((r) => r.complete)).toEqual([false, false, false, true]);
    expect(h.objectCount()).toBe(0);
  });

  it('resumes across prefix ranges and through the uploads phase without skipping or repeating anything', async () => {
    const b = h.bucketWith('ranges', [
      rule({
        filter: { prefix: 'x/' },
        expiration: { days: 1 },
        abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
      }),
      rule({ filter: { prefix: 'b/' }, expiration: { days: 1 } }),
    ]);
    for (const key of ['a/1', 'b/1', 'b/2', 'c/1', 'x/1', 'x/2', 'y/1']) await h.put(b, key);
    for (const key of ['a/u', 'x/u1', 'x/u2', 'x/u3'])
      h.fx.multipart.create({ bucket: b, key, headers: {}, userMeta: {} });
    const service = h.fx.lifecycle({ batchSize: 1, maxActionsPerRun: 2 });
    const totals = { expired: 0, uploadsAborted: 0, runs: 0 };
    for (let done = false; !done && totals.runs < 20; totals.runs++) {
      const r = await h.run('2025-02-01T00:00:00Z', service);
      totals.expired += r.expired;
      totals.uploadsAborted += r.uploadsAborted;
      done = r.complete;
    }
    expect(totals).toEqual({ expired: 4, uploadsAborted: 3, runs: 4 });
    expect(['a/1', 'b/1', 'b/2', 'c/1', 'x/1', 'x/2', 'y/1'].filter((k) => h.exists(b, k))).toEqual([
      'a/1',
      'c/1',
      'y/1',
    ]);
    const left = h.fx.multipart
      .listUploads(b, { prefix: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 })
      .uploads.map((u) => u.key);
    expect(left).toEqual(['a/u']);
  });

  it('does nothing and reports an incomplete pass when the signal is already aborted', async () => {
    const b = h.bucketWith('aborted', [rule({ expiration: { days: 1 } })]);
    await h.put(b, 'k');
    const controller = new AbortController();
    controller.abort();
    const result = await h.fx.lifecycle().runOnce(new Date('2025-02-01T00:00:00Z'), controller.signal);
    expect(result).toMatchObject({ expired: 0, complete: false });
    expect(h.exists(b, 'k')).toBe(true);
  });

  it('does not act on a version a client replaced after the page was read (the rows are re-checked)', async () => {
    const b = h.bucketWith('race', [rule({ expiration: { days: 1 } })]);
    await h.put(b, 'a');
    await h.put(b, 'b');
    const service = h.fx.lifecycle({ batchSize: 10 });
    // A client's PUT of `b` lands while the run is between actions, after the page holding the old `b` was read.
    const original = h.fx.objects.delete.bind(h.fx.objects);
    let replaced: ObjectRow | undefined;
    h.fx.objects.delete = ((...args: Parameters<typeof original>) => {
      const result = original(...args);
      return (async () => {
        replaced ??= await h.put(b, 'b', 'new');
        return result;
      })() as unknown as ReturnType<typeof original>;
    }) as typeof original;
    const result = await h.run('2025-02-01T00:00:00Z', service);
    expect(result.expired).toBe(1);
    expect(h.fx.meta.objects.findLatest(b, 'b')?.id).toBe(replaced?.id);
    expect(h.exists(b, 'a')).toBe(false);
  });

  it('logs and counts an unexpected failure, carries on with the other keys, and retries it next run', async () => {
    const b = h.bucketWith('failing', [rule({ expiration: { days: 1 } })]);
    for (const key of ['a', 'b', 'c']) await h.put(b, key);
    const warnings: unknown[] = [];
    const logger = { warn: (obj: unknown) => warnings.push(obj) } as unknown as Logger;
    const original = h.fx.objects.delete.bind(h.fx.objects);
    h.fx.objects.delete = ((...args: Parameters<typeof original>) => {
      if (args[1] === 'b') throw new Error('disk on fire');
      return original(...args);
    }) as typeof original;
    const first = await h.run('2025-02-01T00:00:00Z', h.fx.lifecycle({ logger }));
    expect(first).toMatchObject({ expired: 2, failed: 1, complete: true });
    expect(warnings).toEqual([expect.objectContaining({ bucket: b, key: 'b' })]);
    h.fx.objects.delete = original;
    expect((await h.run('2025-02-01T00:00:01Z')).expired).toBe(1);
    expect(['a', 'b', 'c'].filter((k) => h.exists(b, k))).toEqual([]);
  });

  it('rescans a bucket from its start when its rules changed between runs', async () => {
    const b = h.bucketWith('changed', [rule({ filter: { prefix: 'z/' }, expiration: { days: 1 } })]);
    for (const key of ['a/1', 'z/1', 'z/2', 'z/3']) await h.put(b, key);
    const service = h.fx.lifecycle({ batchSize: 1, maxActionsPerRun: 1 });
    expect((await h.run('2025-02-01T00:00:00Z', service)).complete).toBe(false);
    h.fx.buckets.putConfig(b, 'lifecycle', { rules: [rule({ expiration: { days: 1 } })] });
    for (let i = 0; i < 10 && !(await h.run('2025-02-01T00:00:00Z', service)).complete; i++);
    expect(h.objectCount()).toBe(0);
  });
});
