// Properties of the Range and x-amz-copy-source-range parsers on arbitrary headers and object sizes: the answer is
// a range inside the object, "ignore the header" (GET only), or the documented AppError, never an out-of-bounds range;
// well-formed ranges resolve exactly as RFC 9110 and S3 say.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCopySourceRange, parseRange } from './range.js';
import { fragmentString, outcomeOf } from '../../test/helpers/fuzz.js';

const RUNS = 2000;
const sizeArb = fc.oneof(
  fc.constantFrom(0, 1, 2, 10, 1024),
  fc.nat({ max: 1_000_000 }),
  fc.integer({ min: 0, max: 5 * 1024 ** 4 }),
);
const numberText = fc.oneof(
  fc.nat({ max: 2_000_000 }).map(String),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc.constantFrom(
    '',
    '0',
    '00',
    '007',
    '-0',
    '+1',
    '1e3',
    '0x10',
    '١',
    ' 1',
    '1 ',
    '9'.repeat(400),
    '9007199254740993',
  ),
);
const headerArb = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('bytes=', 'BYTES=', 'Bytes=', 'bytes =', 'bytes= ', 'items=', ''),
      numberText,
      fc.constantFrom('-', '--', '', ' - '),
      numberText,
    )
    .map(([unit, a, dash, b]) => `${unit}${a}${dash}${b}`),
  fc
    .array(fc.tuple(numberText, numberText), { minLength: 1, maxLength: 3 })
    .map((rs) => `bytes=${rs.map(([a, b]) => `${a}-${b}`).join(',')}`),
  fragmentString(['bytes=', '-', ',', '0', '1', '9', ' ', '\t', '=', 'é', '\u0000']),
);

function expectInside(range: { start: number; end: number }, size: number): void {
  expect(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end)).toBe(true);
  expect(range.start).toBeGreaterThanOrEqual(0);
  expect(range.start).toBeLessThanOrEqual(range.end);
  expect(range.end).toBeLessThan(size);
}

describe('parseRange on arbitrary headers and sizes', () => {
  it('gives a range inside the object, undefined (serve it whole) or InvalidRange with Content-Range', () => {
    fc.assert(
      fc.property(headerArb, sizeArb, (header, size) => {
        const outcome = outcomeOf(() => parseRange(header, size));
        if (outcome.ok) {
          if (outcome.value !== undefined) expectInside(outcome.value, size);
          return;
        }
        expect(outcome.error.code).toBe('InvalidRange');
        expect(outcome.error.statusCode).toBe(416);
        expect(outcome.error.headers['Content-Range']).toBe(`bytes */${size}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('resolves well-formed single ranges exactly', () => {
    fc.assert(
      fc.property(sizeArb, fc.nat({ max: 2_000_000 }), fc.nat({ max: 2_000_000 }), (size, a, b) => {
        const closed = outcomeOf(() => parseRange(`bytes=${a}-${b}`, size));
        if (b < a) expect(closed).toEqual({ ok: true, value: undefined });
        else if (a >= size) expect(closed.ok ? 'served' : closed.error.code).toBe('InvalidRange');
        else expect(closed).toEqual({ ok: true, value: { start: a, end: Math.min(b, size - 1) } });

        const open = outcomeOf(() => parseRange(`bytes=${a}-`, size));
        if (a >= size) expect(open.ok ? 'served' : open.error.code).toBe('InvalidRange');
        else expect(open).toEqual({ ok: true, value: { start: a, end: size - 1 } });

        const suffix = outcomeOf(() => parseRange(`bytes=-${b}`, size));
        if (b === 0 || size === 0) expect(suffix.ok ? 'served' : suffix.error.code).toBe('InvalidRange');
        else expect(suffix).toEqual({ ok: true, value: { start: Math.max(0, size - b), end: size - 1 } });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('parseCopySourceRange on arbitrary headers and sizes', () => {
  it('gives a range wholly inside the source or InvalidArgument, never a clamped or outside range', () => {
    fc.assert(
      fc.property(headerArb, sizeArb, (header, size) => {
        const outcome = outcomeOf(() => parseCopySourceRange(header, size));
        if (outcome.ok) {
          expectInside(outcome.value, size);
          const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
          expect([Number(m?.[1]), Number(m?.[2])]).toEqual([outcome.value.start, outcome.value.end]);
        } else {
          expect(outcome.error.code).toBe('InvalidArgument');
          expect(outcome.error.details['ArgumentName']).toBe('x-amz-copy-source-range');
        }
      }),
      { numRuns: RUNS },
    );
  });
});
