import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { parseCopySourceRange, parseRange } from './range.js';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('parseRange', () => {
  it('resolves first-last, open-ended and suffix ranges', () => {
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=2-5', 10)).toEqual({ start: 2, end: 5 });
    expect(parseRange('bytes=4-', 10)).toEqual({ start: 4, end: 9 });
    expect(parseRange('bytes=0-', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('BYTES=1-2', 10)).toEqual({ start: 1, end: 2 });
  });

  it('clamps the end and oversize suffixes to the object', () => {
    expect(parseRange('bytes=5-100', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=0-99999999999999999999999', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=-100', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=9-9', 10)).toEqual({ start: 9, end: 9 });
  });

  it.each([
    ['absent', undefined],
    ['another unit', 'items=0-5'],
    ['no dash', 'bytes=5'],
    ['both ends missing', 'bytes=-'],
    ['last before first', 'bytes=5-2'],
    ['negative', 'bytes=-1-2'],
    ['not numbers', 'bytes=a-b'],
    ['multiple ranges', 'bytes=0-1,3-4'],
    ['multiple ranges with spaces', 'bytes=0-1, 3-4'],
    ['empty', ''],
    ['missing unit', '0-5'],
  ])('ignores %s (the whole object is served)', (_name, header) => {
    expect(parseRange(header, 10)).toBeUndefined();
  });

  it.each([
    ['first at size', 'bytes=10-', 10],
    ['first beyond size', 'bytes=11-20', 10],
    ['zero suffix', 'bytes=-0', 10],
    ['range on empty object', 'bytes=0-', 0],
    ['suffix on empty object', 'bytes=-5', 0],
    ['first-last on empty object', 'bytes=0-0', 0],
  ] as const)('refuses %s with InvalidRange and Content-Range bytes */size', (_name, header, size) => {
    const err = errorOf(() => parseRange(header, size));
    expect(err.code).toBe('InvalidRange');
    expect(err.statusCode).toBe(416);
    expect(err.headers['Content-Range']).toBe(`bytes */${size}`);
    expect(err.details.ActualObjectSize).toBe(String(size));
  });
});

describe('parseCopySourceRange', () => {
  it('resolves a range inside the object', () => {
    expect(parseCopySourceRange('bytes=0-9', 10)).toEqual({ start: 0, end: 9 });
    expect(parseCopySourceRange('bytes=3-3', 10)).toEqual({ start: 3, end: 3 });
  });

  it.each([
    '0-2',
    'bytes=0',
    'bytes=hello-world',
    'bytes=0-bar',
    'bytes=hello-',
    'bytes=0-2,3-5',
    'bytes=1-',
    'bytes=-1',
    'bytes=2-1',
    '',
  ])('refuses malformed %j with InvalidArgument', (header) => {
    const err = errorOf(() => parseCopySourceRange(header, 10));
    expect(err.code).toBe('InvalidArgument');
    expect(err.message).toContain('must be of the form bytes=first-last');
    expect(err.details.ArgumentName).toBe('x-amz-copy-source-range');
  });

  it('refuses a range reaching past the object with InvalidArgument naming the size', () => {
    for (const header of ['bytes=0-10', 'bytes=0-21', 'bytes=10-10']) {
      const err = errorOf(() => parseCopySourceRange(header, 10));
      expect(err.code).toBe('InvalidArgument');
      expect(err.message).toBe('Range specified is not valid for source object of size: 10');
    }
    expect(errorOf(() => parseCopySourceRange('bytes=0-0', 0)).code).toBe('InvalidArgument');
  });
});
