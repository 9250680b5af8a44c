import { afterEach, describe, expect, it } from 'vitest';
import { trimHeapWhenIdle, type IdleHeapTrim } from './idle-heap.js';

let trim: IdleHeapTrim | undefined;
afterEach(() => trim?.stop());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('trimHeapWhenIdle', () => {
  it('runs one full GC after an idle look, and no more while the heap does not grow', async () => {
    trim = trimHeapWhenIdle(100);
    const deadline = Date.now() + 10_000; // a loaded machine may keep a few looks busy
    while (trim.count === 0 && Date.now() < deadline) await sleep(20);
    expect(trim.count).toBe(1);
    await sleep(500);
    expect(trim.count).toBe(1);
  });

  it('waits while the event loop is busy', async () => {
    trim = trimHeapWhenIdle(100);
    const until = Date.now() + 450;
    // Busy in slices, so the timer still fires and sees a busy loop each time.
    while (Date.now() < until) {
      const slice = Date.now() + 40;
      while (Date.now() < slice) {
        /* busy */
      }
      await sleep(1);
    }
    expect(trim.count).toBe(0);
  });
});
