// The full GC after bulk transfers settle, with the real V8: gc() is reachable without --expose-gc on this Node,
// it collects, and it leaves no gc global behind.

import { afterEach, expect, it, vi } from 'vitest';
import { BULK_HEAP_SETTLE_MS, bulkHeapSettling, holdBulkHeap } from './bulk-heap.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A WeakRef to an object nothing else holds (made here so that no register of the test's frame keeps it). */
function weakGarbage(): WeakRef<object> {
  return new WeakRef({ payload: new Array(1000).fill('x') });
}

it('collects garbage once the last transfer has settled', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const ref = weakGarbage();
  // A WeakRef's target is kept until the job that made the WeakRef ends.
  await new Promise((resolve) => setImmediate(resolve));

  holdBulkHeap()();
  expect(bulkHeapSettling()).toBe(true);
  vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);

  expect(bulkHeapSettling()).toBe(false);
  expect(ref.deref()).toBeUndefined();
  expect('gc' in globalThis).toBe(false);
});
