// The heap settings: the bulk factor while transfers run, the server's factor otherwise, each release counted once,
// and one full GC after the last transfer settles (cancelled by a new one). V8 and the gc() function are stand-ins
// here; bulk-heap-gc.test.ts runs the real ones.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn<(flags: string) => void>();
vi.mock('node:v8', () => ({ setFlagsFromString }));
const gc = vi.fn<() => void>();
const runInNewContext = vi.fn<(code: string) => unknown>(() => gc);
vi.mock('node:vm', () => ({ runInNewContext }));

const {
  BULK_HEAP_GROWING_PERCENT, BULK_HEAP_SETTLE_MS, SERVER_HEAP_GROWING_PERCENT,
  bulkHeapHolders, bulkHeapSettling, holdBulkHeap, limitHeapGrowing,
} = await import('./bulk-heap.js');

const bulk = `--heap-growing-percent=${BULK_HEAP_GROWING_PERCENT}`;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  await vi.runAllTimersAsync();
  vi.useRealTimers();
  setFlagsFromString.mockClear();
  gc.mockClear();
  runInNewContext.mockClear();
});

describe('holdBulkHeap', () => {
  // First: gc() is looked up on the first collection only.
  it('runs one full GC when no transfer has started for the settle time after the last one ended', () => {
    holdBulkHeap()();
    expect(bulkHeapSettling()).toBe(true);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS - 1);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc.mock.calls).toEqual([[]]);
    expect(bulkHeapSettling()).toBe(false);
    // Looked up in a context made while --expose-gc was on; the flag is switched off again at once.
    expect(runInNewContext.mock.calls).toEqual([['gc']]);
    expect(setFlagsFromString.mock.calls.slice(-2)).toEqual([['--expose-gc'], ['--no-expose-gc']]);

    holdBulkHeap()();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(gc).toHaveBeenCalledTimes(2);
    expect(runInNewContext).toHaveBeenCalledTimes(1);
  });

  it('sets the bulk factor on the first hold and gives the choice back to V8 on the last release', () => {
    const first = holdBulkHeap();
    expect(setFlagsFromString.mock.calls).toEqual([[bulk]]);
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

  it('does not collect while a transfer started within the settle time still runs, and settles after it', () => {
    holdBulkHeap()();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS / 2);
    const next = holdBulkHeap();
    expect(bulkHeapSettling()).toBe(false);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS * 3);
    expect(gc).not.toHaveBeenCalled();
    next();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('does not collect while an earlier transfer still runs', () => {
    const long = holdBulkHeap();
    holdBulkHeap()();
    expect(bulkHeapSettling()).toBe(false);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS * 3);
    expect(gc).not.toHaveBeenCalled();
    long();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(gc).toHaveBeenCalledTimes(1);
  });
});

// Last: limitHeapGrowing() changes the module's state for the rest of the file.
describe('limitHeapGrowing', () => {
  it('sets the server factor at once, keeps the bulk factor while transfers run, and returns to it after them', () => {
    const server = `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
    limitHeapGrowing();
    expect(setFlagsFromString.mock.calls).toEqual([[server]]);
    const release = holdBulkHeap();
    limitHeapGrowing(); // while a transfer runs: the bulk factor stays
    expect(setFlagsFromString.mock.calls).toEqual([[server], [bulk]]);
    release();
    expect(setFlagsFromString.mock.calls.at(-1)).toEqual([server]);
  });
});
