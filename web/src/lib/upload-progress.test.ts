import { describe, expect, it } from 'vitest';
import { overall, RateMeter, secondsLeft } from './upload-progress';

describe('overall upload progress', () => {
  it('adds up files and bytes, counting finished files whole and leaving cancelled ones out', () => {
    const o = overall([
      { size: 100, loaded: 100, state: 'done' },
      { size: 200, loaded: 50, state: 'uploading' },
      { size: 300, loaded: 0, state: 'queued' },
      { size: 400, loaded: 10, state: 'failed' },
      { size: 999, loaded: 5, state: 'cancelled' },
    ]);
    expect(o).toEqual({ files: 4, doneFiles: 1, failedFiles: 1, activeFiles: 2, bytes: 1000, loaded: 160 });
  });
});

describe('RateMeter', () => {
  it('measures bytes per second over its window', () => {
    const m = new RateMeter(5000);
    m.add(0, 0);
    expect(m.rate()).toBeUndefined();
    m.add(1000, 1_000_000);
    expect(m.rate()).toBe(1_000_000);
    for (let t = 2000; t <= 10_000; t += 1000) m.add(t, 1_000_000 + ((t - 1000) / 1000) * 2_000_000);
    expect(m.rate()).toBe(2_000_000); // the slow first second has left the window
  });

  it('restarts when the total goes down', () => {
    const m = new RateMeter();
    m.add(0, 0);
    m.add(1000, 500);
    m.add(1500, 100);
    expect(m.rate()).toBeUndefined();
  });

  it('gives the time left at that rate', () => {
    expect(secondsLeft(10_000, 1000)).toBe(10);
    expect(secondsLeft(10_001, 1000)).toBe(11);
    expect(secondsLeft(5, undefined)).toBeUndefined();
    expect(secondsLeft(5, 0)).toBeUndefined();
  });
});
