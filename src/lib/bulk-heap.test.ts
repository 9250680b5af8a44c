// The heap settings: the bulk factor while transfers run, the server's factor otherwise, each release counted once,
// and one full GC after the last transfer settles (cancelled by a new one). V8 and the gc() function are stand-ins
// here; bulk-heap-gc.test.ts runs the real ones.

import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn<(flags: string) => void>();
vi.mock('node:v8', () => ({ setFlagsFromString }));
const gc = vi.fn<() => void>();
const runInNewContext = vi.fn<(code: string) => unknown>(() => gc);
vi.mock('node:vm', () => ({ runInNewContext }));

// The unit tier's files share a worker's modules (vitest.unit.config.ts, isolate: false): one loaded earlier, unmocked,
// must not be the one under test.
vi.resetModules();
afterAll(() => {
  // ...and the next file in this worker must not get this one's stand-ins.
  vi.doUnmock('node:v8');
  vi.doUnmock('node:vm');
  vi.resetModules();
});
const {
  BULK_HEAP_GROWING_PERCENT,
  BULK_HEAP_SETTLE_MS,
  SERVER_HEAP_GROWING_PERCENT,
  bulkHeapHolders,
  bulkHeapSettling,
  holdBulkHeap,
  limitHeapGrowing,
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
  it('sets the bulk factor on the first hold; once settled, gives the choice back to V8 and runs one full GC', () => {
    const first = holdBulkHeap();
    expect(setFlagsFromString.mock.calls).toEqual([[bulk]]);
    const second = holdBulkHeap();
    first();
    expect(bulkHeapHolders()).toBe(1);
    second();
    expect(bulkHeapHolders()).toBe(0);
    expect(bulkHeapSettling()).toBe(true);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS - 1);
    expect(setFlagsFromString).toHaveBeenCalledTimes(1); // still the bulk factor
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(bulkHeapSettling()).toBe(false);
    expect(gc.mock.calls).toEqual([[]]);
    // gc() is looked up in a context made while --expose-gc was on; the flag is switched off again at once.
    expect(runInNewContext.mock.calls).toEqual([['gc']]);
    expect(setFlagsFromString.mock.calls).toEqual([
      [bulk],
      ['--heap-growing-percent=0'],
      ['--expose-gc'],
      ['--no-expose-gc'],
    ]);

    holdBulkHeap()();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(gc).toHaveBeenCalledTimes(2);
    expect(runInNewContext).toHaveBeenCalledTimes(1);
  });

  it('counts a release once however often it is called', () => {
    const first = holdBulkHeap();
    const second = holdBulkHeap();
    first();
    first();
    first();
    expect(bulkHeapHolders()).toBe(1);
    expect(bulkHeapSettling()).toBe(false);
    second();
    expect(bulkHeapHolders()).toBe(0);
    expect(bulkHeapSettling()).toBe(true);
  });

  it('keeps the bulk factor, with no GC, when a transfer starts within the settle time; settles after it', () => {
    holdBulkHeap()();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS / 2);
    const next = holdBulkHeap();
    expect(bulkHeapSettling()).toBe(false);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS * 3);
    expect(setFlagsFromString.mock.calls).toEqual([[bulk]]); // set once, never reset in between
    expect(gc).not.toHaveBeenCalled();
    next();
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(gc).toHaveBeenCalledTimes(1);
    expect(setFlagsFromString.mock.calls.at(-1)).toEqual(['--heap-growing-percent=0']);
  });

  it('does not settle while an earlier transfer still runs', () => {
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
  const server = `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;

  it('sets the server factor at once when no transfer runs', () => {
    limitHeapGrowing();
    expect(setFlagsFromString.mock.calls).toEqual([[server]]);
  });

  it('leaves the bulk factor on while transfers run or settle, and returns to the server factor after them', () => {
    const release = holdBulkHeap();
    limitHeapGrowing();
    release();
    limitHeapGrowing();
    expect(setFlagsFromString.mock.calls).toEqual([[bulk]]);
    vi.advanceTimersByTime(BULK_HEAP_SETTLE_MS);
    expect(setFlagsFromString.mock.calls[1]).toEqual([server]);
    expect(gc).toHaveBeenCalledTimes(1);
  });
});
