import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatProgress, ProgressBar } from './progress.js';

describe('formatProgress', () => {
  it('draws a bar, a percentage, sizes and a rate when the total is known', () => {
    expect(formatProgress('upload', { done: 512 * 1024 ** 2, total: 1024 ** 3, elapsedMs: 2000 }, 10)).toBe(
      'upload  [#####-----]  50%  512.0 MiB of 1.00 GiB  256.0 MiB/s',
    );
  });
  it('shows bytes and rate without a total, and never passes 100%', () => {
    expect(formatProgress('backup', { done: 3 * 1024 ** 2, total: undefined, elapsedMs: 1000 })).toBe(
      'backup  3.0 MiB  3.0 MiB/s',
    );
    expect(formatProgress('x', { done: 20, total: 10, elapsedMs: 0 }, 4)).toBe('x  [####] 100%  0.0 MiB of 0.0 MiB');
  });
});

describe('ProgressBar', () => {
  it('writes nothing when the stream is not a terminal', () => {
    const out = new PassThrough() as unknown as NodeJS.WriteStream;
    const chunks: string[] = [];
    (out as unknown as PassThrough).on('data', (c: Buffer) => chunks.push(c.toString()));
    const bar = new ProgressBar(out, 'x', 10);
    bar.add(5);
    bar.finish();
    expect(chunks).toEqual([]);
  });
  it('redraws in place on a terminal and ends the line', () => {
    const written: string[] = [];
    const out = { isTTY: true, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const bar = new ProgressBar(out, 'x', 10);
    bar.add(5);
    bar.finish('done');
    expect(written[0]).toMatch(/^\rx {2}\[/);
    expect(written.slice(-2)).toEqual(['\rdone\u001b[K', '\n']);
  });
});
