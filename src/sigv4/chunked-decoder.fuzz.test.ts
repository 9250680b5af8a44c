// Properties of the aws-chunked decoder on arbitrary input: however a valid body is split into network reads it
// decodes to the same bytes and trailers; garbage, mutations and truncations end in an AppError (or, where the
// framing is unsigned, in bytes that were really sent), within a time limit: never a hang, never a crash, never a
// truncated payload reported as complete.
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../core/errors.js';
import type { ChunkSigningContext } from './types.js';
import { createChunkedDecoder, type ChunkedDecoderOptions } from './chunked-decoder.js';
import { encodeAwsChunked, type EncodeAwsChunkedInput } from './chunked-encoder.js';
import { deriveSigningKey } from './signature.js';
import { expectCodeIn, fraction, mutate, mutationArb, outcomeOfAsync, within } from '../../test/helpers/fuzz.js';

const RUNS = 300;
const HANG_MS = 2000;
const MAX_CHUNK = 4096;
const CONTEXT: ChunkSigningContext = {
  signingKey: deriveSigningKey('fuzz-secret', { date: '20240229', region: 'us-east-1', service: 's3' }),
  seedSignature: 'c'.repeat(64),
  amzDate: '20240229T000000Z',
  scope: '20240229/us-east-1/s3/aws4_request',
};
const DECODER_CODES: readonly ErrorCode[] = ['SignatureDoesNotMatch', 'IncompleteBody', 'InvalidRequest'];

interface Decoded {
  data: Buffer;
  trailers: Map<string, string>;
}

/** Feeds `pieces` through a decoder, as separate network reads. */
async function decode(pieces: Buffer[], opts: ChunkedDecoderOptions): Promise<Decoded> {
  const decoder = createChunkedDecoder(opts);
  const sink: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      sink.push(Buffer.from(chunk));
      cb();
    },
  });
  await pipeline(Readable.from(pieces, { objectMode: false }), decoder, out);
  return { data: Buffer.concat(sink), trailers: decoder.trailers };
}

/** Cuts `bytes` at the given fractions (sorted, deduplicated), giving pieces of any size, empty ones included. */
function split(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(from, p));
    from = p;
  }
  pieces.push(bytes.subarray(from));
  return pieces.filter((p) => p.length > 0);
}

const trailerNames = fc.constantFrom(
  'x-amz-checksum-crc32',
  'x-amz-checksum-crc32c',
  'x-amz-checksum-sha256',
  'x-amz-checksum-crc64nvme',
);
const trailerValue = fc.stringMatching(/^[A-Za-z0-9+/]{0,43}={0,2}$/);

/** A valid aws-chunked body and the options that decode it. */
const bodyArb = fc
  .record({
    data: fc.uint8Array({ maxLength: 3 * MAX_CHUNK }),
    chunkSize: fc.integer({ min: 1, max: MAX_CHUNK }),
    signed: fc.boolean(),
    trailers: fc.option(fc.dictionary(trailerNames, trailerValue, { minKeys: 1, maxKeys: 2 }), { nil: undefined }),
    style: fc.constantFrom<NonNullable<EncodeAwsChunkedInput['style']>>('sdk', 'aws-docs', 'no-final-crlf'),
  })
  .map(({ data, chunkSize, signed, trailers, style }) => {
    const input: EncodeAwsChunkedInput = {
      data,
      chunkSize,
      style,
      ...(signed ? { context: CONTEXT } : {}),
      ...(trailers ? { trailers } : {}),
    };
    const opts: ChunkedDecoderOptions = {
      signed,
      hasTrailer: trailers !== undefined,
      maxChunkSize: MAX_CHUNK,
      ...(signed ? { context: CONTEXT } : {}),
    };
    return { data: Buffer.from(data), trailers, encoded: encodeAwsChunked(input), opts };
  });

const cutsArb = fc.array(fraction, { maxLength: 12 });

describe('aws-chunked decoding of valid bodies', () => {
  it('decodes to the same bytes and trailers however the body is split into reads', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, cutsArb, async (body, cuts) => {
        const decoded = await within(decode(split(body.encoded, cuts), body.opts), HANG_MS, 'decoding');
        expect(decoded.data.equals(body.data)).toBe(true);
        expect(Object.fromEntries(decoded.trailers)).toEqual(body.trailers ?? {});
      }),
      { numRuns: RUNS },
    );
  });
});

describe('aws-chunked decoding of hostile bodies', () => {
  it('random bytes end in an AppError or decode, never hang or crash', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 512 }),
        fc.boolean(),
        fc.boolean(),
        cutsArb,
        // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
        async (bytes, signed, hasTrailer, cuts) => {
          const opts: ChunkedDecoderOptions = {
            signed,
            hasTrailer,
            maxChunkSize: MAX_CHUNK,
            ...(signed ? { context: CONTEXT } : {}),
          };
          expectCodeIn(
            await outcomeOfAsync(() => within(decode(split(Buffer.from(bytes), cuts), opts), HANG_MS, 'decoding')),
            DECODER_CODES,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a mutated body fails with an AppError; a signed body never yields bytes that were not signed', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        cutsArb,
        async (body, edits, cuts) => {
          const mutated = mutate(body.encoded, edits);
          const outcome = await outcomeOfAsync(() =>
            within(decode(split(mutated, cuts), body.opts), HANG_MS, 'decoding'),
          );
          expectCodeIn(outcome, DECODER_CODES);
          // The chunk signatures chain over every payload byte: whatever decodes must be exactly what was signed
          // (a mutation of framing alone, say the hex case of a size, may still decode, to the same bytes).
          if (outcome.ok && body.opts.signed) expect(outcome.value.data.equals(body.data)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a body cut short is never decoded as complete with fewer bytes', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, fraction, cutsArb, async (body, at, cuts) => {
        const cut = Math.floor(at * body.encoded.length);
        const outcome = await outcomeOfAsync(() =>
          within(decode(split(body.encoded.subarray(0, cut), cuts), body.opts), HANG_MS, 'decoding'),
        );
        expectCodeIn(outcome, DECODER_CODES);
        // Only what follows the payload may be lost (the closing blank line; unsigned trailer text, which the
        // caller's checksum check then refuses): the payload itself is whole or refused.
        if (outcome.ok) expect(outcome.value.data.equals(body.data)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('a stream that errors midway fails the decoder, it does not wait forever', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, fraction, async (body, at) => {
        const cut = Math.floor(at * body.encoded.length);
        const source = new Readable({
          read() {
            this.push(body.encoded.subarray(0, cut));
            this.destroy(new Error('connection reset'));
          },
        });
        const decoder = createChunkedDecoder(body.opts);
        const drained = pipeline(source, decoder, new Writable({ write: (_c, _e, cb) => cb() }));
        await expect(within(drained, HANG_MS, 'decoding')).rejects.toThrow(/connection reset|AppError|aws-chunked/);
      }),
      { numRuns: 100 },
    );
  });
});
