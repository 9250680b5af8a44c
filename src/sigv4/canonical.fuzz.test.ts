// Properties of SigV4 canonicalisation on arbitrary input: one canonical form however a client percent-encodes
// (upper or lower hex, unreserved bytes encoded or not, '+' or %20 for a space in a query), whatever the order of
// the query parameters; the output is always canonical itself (idempotent, only unreserved bytes and %XX).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalQuery, canonicalUri, percentDecode, uriEncodeBytes } from './canonical.js';
import { fragmentString } from '../../test/helpers/fuzz.js';

const RUNS = 500;
const HEX = '0123456789ABCDEF';
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Bytes a name, value or key segment may hold: ASCII-heavy, with UTF-8 text and raw bytes mixed in. */
const bytesArb = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => Buffer.from(s, 'utf8')),
  fc.string({ maxLength: 8, unit: 'binary' }).map((s) => Buffer.from(s, 'utf8')),
  fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
);

/** How one byte goes on the wire: upper-case escape, lower-case escape, or raw when unreserved; '+' for a space. */
type Style = 'upper' | 'lower' | 'raw' | 'plus';
const styleArb = fc.array(fc.constantFrom<Style>('upper', 'lower', 'raw', 'plus'), { minLength: 1, maxLength: 16 });

function encodeWith(bytes: Uint8Array, styles: readonly Style[], inQuery: boolean): string {
  let out = '';
  bytes.forEach((b, i) => {
    const style = styles[i % styles.length] as Style;
    const ch = String.fromCharCode(b);
    if (style === 'raw' && UNRESERVED.test(ch)) out += ch;
    else if (style === 'plus' && inQuery && b === 0x20) out += '+';
    else {
      const escape = `%${HEX[b >> 4]}${HEX[b & 15]}`;
      out += style === 'lower' ? escape.toLowerCase() : escape;
    }
  });
  return out;
}

/** A query string of these pairs (value null: the parameter has no '='), each encoded in its own styles. */
function queryOf(
  pairs: ReadonlyArray<{ name: Buffer; value: Buffer | null; styles: Style[] }>,
  emptyParts: number,
): string {
  const parts = pairs.map(({ name, value, styles }) =>
    value === null
      ? encodeWith(name, styles, true)
      : `${encodeWith(name, styles, true)}=${encodeWith(value, styles, true)}`,
  );
  for (let i = 0; i < emptyParts; i++) parts.splice((i * 7) % (parts.length + 1), 0, '');
  return parts.join('&');
}

const pairArb = fc.record({
  name: bytesArb.filter((b) => b.length > 0),
  value: fc.option(bytesArb, { nil: null }),
  styles: styleArb,
});
const CANONICAL_OUTPUT = /^(?:[A-Za-z0-9\-._~=&/]|%[0-9A-F]{2})*$/;
const queryish = fragmentString([
  '&',
  '=',
  '%',
  '%2',
  '%2F',
  '%2f',
  '%25',
  '+',
  '%20',
  '%zz',
  '~',
  'X-Amz-Signature',
  'a',
  'é',
  '😀',
  '%C3%A9',
]);
const pathish = fragmentString([
  '/',
  '//',
  '.',
  '..',
  '%',
  '%2F',
  '%2f',
  '%2E',
  '%2e%2E',
  '+',
  ' ',
  '%20',
  'é',
  '😀',
  'a',
  '%E9',
  '%zz',
]);

describe('canonicalQuery on arbitrary queries', () => {
  it('is independent of parameter order and of how each byte was percent-encoded', () => {
    fc.assert(
      fc.property(
        fc.array(pairArb, { maxLength: 8 }),
        fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        fc.nat({ max: 3 }),
        (pairs, order, empties) => {
          // The same decoded pairs, once as generated and once permuted and re-encoded in the canonical style.
          const reference = queryOf(
            pairs.map((p) => ({ ...p, styles: ['upper'] })),
            0,
          );
          const permuted = pairs
            .map((p, i) => ({ p, k: order[i % order.length] as number }))
            .sort((a, b) => a.k - b.k)
            .map(({ p }) => p);
          expect(canonicalQuery(queryOf(permuted, empties), false)).toBe(canonicalQuery(reference, false));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('is idempotent and only ever made of unreserved bytes and upper-case escapes', () => {
    fc.assert(
      fc.property(queryish, fc.boolean(), (query, presigned) => {
        const once = canonicalQuery(query, presigned);
        expect(once).toMatch(CANONICAL_OUTPUT);
        expect(canonicalQuery(once, presigned)).toBe(once);
      }),
      { numRuns: RUNS },
    );
  });

  it('leaves out X-Amz-Signature only for presigned requests, however it is spelled on the wire', () => {
    fc.assert(
      fc.property(fc.array(pairArb, { maxLength: 4 }), styleArb, fc.string({ maxLength: 70 }), (pairs, styles, sig) => {
        const own = queryOf(pairs, 0);
        const signature = `${encodeWith(Buffer.from('X-Amz-Signature'), styles, true)}=${encodeWith(Buffer.from(sig), styles, true)}`;
        const query = own === '' ? signature : `${own}&${signature}`;
        expect(canonicalQuery(query, true)).toBe(canonicalQuery(own, true));
        expect(canonicalQuery(query, false)).toContain('X-Amz-Signature=');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('canonicalUri on arbitrary paths', () => {
  it('gives one form for every encoding of the same segments, and keeps an encoded slash encoded', () => {
    fc.assert(
      fc.property(fc.array(bytesArb, { minLength: 1, maxLength: 6 }), styleArb, (segments, styles) => {
        const upper = `/${segments.map((s) => encodeWith(s, ['upper'], false)).join('/')}`;
        const styled = `/${segments.map((s) => encodeWith(s, styles, false)).join('/')}`;
        const canonical = canonicalUri(styled);
        expect(canonical).toBe(canonicalUri(upper));
        expect(canonical).toBe(`/${segments.map((s) => uriEncodeBytes(s)).join('/')}`);
        // As many path separators as the client sent: a %2F inside a segment never becomes one.
        expect(canonical.split('/').length).toBe(segments.length + 1);
      }),
      { numRuns: RUNS },
    );
  });

  it('is idempotent and canonical for any path text', () => {
    fc.assert(
      fc.property(pathish, (path) => {
        const once = canonicalUri(path);
        expect(once).toMatch(CANONICAL_OUTPUT);
        expect(canonicalUri(once)).toBe(once);
        expect(once.split('/').length).toBe(path === '' ? 2 : path.split('/').length);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('percent-encoding round trip', () => {
  it('percentDecode(uriEncodeBytes(b)) is b for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (bytes, plus) => {
        expect(percentDecode(uriEncodeBytes(bytes), plus).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
