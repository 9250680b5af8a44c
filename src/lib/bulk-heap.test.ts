// The bulk-transfer heap setting: set on the first hold, cleared on the last release, each release counted once.

import { afterEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn<(flags: string) => void>();
vi.mock('node:v8', () => ({ setFlagsFromString }));

const { BULK_HEAP_GROWING_PERCENT, bulkHeapHolders, holdBulkHeap } = await import('./bulk-heap.js');

afterEach(() => {
  setFlagsFromString.mockClear();
});

describe('holdBulkHeap', () => {
  it('sets the growing factor on the first hold and gives it back to V8 on the last release', () => {
    const first = holdBulkHeap();
    expect(setFlagsFromString.mock.calls).toEqual([[`--heap-growing-percent=${BULK_HEAP_GROWING_PERCENT}`]]);
    const second = holdBulkHeap();
    first();
    expect(bulkHeapHolders()).toBe(1);
    expect(setFlagsFromString).toHaveBeenCalledTimes(1);
    second();
    expect(bulkHeapHolders()).toBe(0);
    expect(setFlagsFromString.mock.calls.at(-1)).toEqual(['--heap-growing-percent=0']);
  });

  it('counts a release once however often it is called', () => {
    const first = holdBulkHeap();
    const second = holdBulkHeap();
    first();
    first();
    first();
    expect(bulkHeapHolders()).toBe(1);
    second();
    expect(bulkHeapHolders()).toBe(0);
    expect(setFlagsFromString).toHaveBeenCalledTimes(2);
  });
});
