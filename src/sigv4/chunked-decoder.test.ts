import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { AppError, type ErrorCode } from '../core/errors.js';
import type { ChunkSigningContext } from './types.js';
import { createChunkedDecoder, type ChunkedDecoderOptions } from './chunked-decoder.js';
import { encodeAwsChunked } from './chunked-encoder.js';
import { deriveSigningKey } from './signature.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const KEY = deriveSigningKey(SECRET, { date: '20130524', region: 'us-east-1', service: 's3' });
const SCOPE = '20130524/us-east-1/s3/aws4_request';
const DOC_CTX: ChunkSigningContext = {
  signingKey: KEY,
  seedSignature: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
  amzDate: '20130524T000000Z',
  scope: SCOPE,
};
const TRAILER_CTX: ChunkSigningContext = {
  ...DOC_CTX,
  seedSignature: '106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e',
};

// The exact bodies of the S3 docs' examples (sigv4-streaming.html, sigv4-streaming-trailers.html).
const DOC_BODY = Buffer.concat([
  Buffer.from('10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n'),
  Buffer.alloc(65536, 'a'),
  Buffer.from('\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n'),
  Buffer.alloc(1024, 'a'),
  Buffer.from('\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n'),
]);
function trailerDocBody(docsStyle: boolean): Buffer {
  return Buffer.concat([
    Buffer.from('10000;chunk-signature=b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2\r\n'),
    Buffer.alloc(65536, 'a'),
    Buffer.from('\r\n400;chunk-signature=1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7\r\n'),
    Buffer.alloc(1024, 'a'),
    Buffer.from('\r\n0;chunk-signature=2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992\r\n'),
    Buffer.from(docsStyle ? '\r\n' : ''),
    Buffer.from('x-amz-checksum-crc32c:sOO8/Q==\r\n'),
    Buffer.from('x-amz-trailer-signature:d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435\r\n'),
    Buffer.from(docsStyle ? '' : '\r\n'),
  ]);
}

interface Decoded {
  data: Buffer;
  trailers: Map<string, string>;
  decodedBytes: number;
}

async function decode(pieces: Buffer[], opts: ChunkedDecoderOptions, sink: Buffer[] = []): Promise<Decoded> {
  const decoder = createChunkedDecoder(opts);
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      sink.push(Buffer.from(chunk));
      cb();
    },
  });
  await pipeline(Readable.from(pieces), decoder, out);
  return { data: Buffer.concat(sink), trailers: decoder.trailers, decodedBytes: decoder.decodedBytes };
}

async function decodeError(pieces: Buffer[], opts: ChunkedDecoderOptions, sink: Buffer[] = []): Promise<AppError> {
  try {
    await decode(pieces, opts, sink);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected the decoder to fail');
}

async function expectCode(pieces: Buffer[], opts: ChunkedDecoderOptions, code: ErrorCode): Promise<void> {
  expect((await decodeError(pieces, opts)).code).toBe(code);
}

/** Deterministic PRNG so a failing split can be reproduced. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomSplit(body: Buffer, random: () => number, maxPiece: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let pos = 0; pos < body.length;) {
    const n = 1 + Math.floor(random() * maxPiece);
    pieces.push(body.subarray(pos, pos + n));
    pos += n;
  }
  return pieces;
}

function bytewise(body: Buffer): Buffer[] {
  return Array.from({ length: body.length }, (_, i) => body.subarray(i, i + 1));
}

const SIGNED = { signed: true, context: DOC_CTX, hasTrailer: false };
const expected = Buffer.alloc(66560, 'a');

describe('signed aws-chunked (S3 docs example)', () => {
  it('decodes the example body', async () => {
    const out = await decode([DOC_BODY], SIGNED);
    expect(out.data.equals(expected)).toBe(true);
    expect(out.decodedBytes).toBe(66560);
    expect(out.trailers.size).toBe(0);
  });

  it('decodes it fed one byte at a time', async () => {
    expect((await decode(bytewise(DOC_BODY), SIGNED)).data.equals(expected)).toBe(true);
  });

  it('decodes it across random split points', async () => {
    const random = prng(42);
    for (let i = 0; i < 30; i++) {
      const pieces = randomSplit(DOC_BODY, random, i % 2 === 0 ? 100 : 20_000);
      expect((await decode(pieces, SIGNED)).data.equals(expected)).toBe(true);
    }
  });

  it('accepts the body without its final CRLF', async () => {
    expect((await decode([DOC_BODY.subarray(0, -2)], SIGNED)).data.equals(expected)).toBe(true);
  });

  it('rejects a tampered chunk signature before releasing that chunk', async () => {
    const body = Buffer.from(DOC_BODY);
    body.write('b', '10000;chunk-signature='.length, 'latin1');
    const sink: Buffer[] = [];
    expect((await decodeError([body], SIGNED, sink)).code).toBe('SignatureDoesNotMatch');
    expect(Buffer.concat(sink).length).toBe(0);
  });

  it('rejects a tampered data byte, a tampered final signature and a missing signature', async () => {
    const data = Buffer.from(DOC_BODY);
    data[1000] = 0x62;
    await expectCode([data], SIGNED, 'SignatureDoesNotMatch');
    const final = Buffer.from(DOC_BODY);
    final[final.length - 5] = final[final.length - 5] === 0x30 ? 0x31 : 0x30;
    await expectCode([final], SIGNED, 'SignatureDoesNotMatch');
    await expectCode([Buffer.from('5\r\nhello\r\n0\r\n\r\n')], SIGNED, 'SignatureDoesNotMatch');
  });

  it('rejects chunks replayed out of order', async () => {
    const first = DOC_BODY.subarray(0, DOC_BODY.indexOf('400;'));
    await expectCode([first, first, DOC_BODY.subarray(DOC_BODY.indexOf('400;'))], SIGNED, 'SignatureDoesNotMatch');
  });

  it('rejects a body signed with another seed signature', async () => {
    await expectCode(
      [DOC_BODY],
      { ...SIGNED, context: { ...DOC_CTX, seedSignature: '0'.repeat(64) } },
      'SignatureDoesNotMatch',
    );
  });

  it('reports a truncated body as IncompleteBody', async () => {
    const cuts = [0, 10, 100, 65536 + 50, DOC_BODY.indexOf('400;') - 1, DOC_BODY.indexOf('0;chunk-signature=b6') + 5];
    for (const cut of cuts) await expectCode([DOC_BODY.subarray(0, cut)], SIGNED, 'IncompleteBody');
  });

  it('rejects a chunk larger than maxChunkSize without buffering it', async () => {
    const sink: Buffer[] = [];
    const err = await decodeError([DOC_BODY.subarray(0, 200)], { ...SIGNED, maxChunkSize: 1024 }, sink);
    expect(err.code).toBe('InvalidRequest');
    await expectCode([Buffer.from('1000001\r\n')], { signed: false, hasTrailer: true }, 'InvalidRequest');
  });

  it('rejects malformed framing with InvalidRequest', async () => {
    const unsigned = { signed: false, hasTrailer: true };
    await expectCode([Buffer.from('zz\r\nhello\r\n0\r\n\r\n')], unsigned, 'InvalidRequest');
    await expectCode([Buffer.from('\r\n')], unsigned, 'InvalidRequest');
    await expectCode([Buffer.from('5\nhello\r\n0\r\n\r\n')], unsigned, 'InvalidRequest');
    await expectCode([Buffer.from('5\r\nhelloXX0\r\n\r\n')], unsigned, 'InvalidRequest');
    await expectCode([Buffer.from('5\r\nhello\r\n0\r\nno-colon-here\r\n\r\n')], unsigned, 'InvalidRequest');
    await expectCode([Buffer.alloc(2000, '1')], unsigned, 'InvalidRequest');
    await expectCode([DOC_BODY, Buffer.from('garbage')], SIGNED, 'InvalidRequest');
    const withTrailer = Buffer.concat([DOC_BODY.subarray(0, -2), Buffer.from('x-amz-checksum-crc32:AAAAAA==\r\n\r\n')]);
    await expectCode([withTrailer], SIGNED, 'InvalidRequest');
  });
});

describe('unsigned payload with trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER, as SDK v3 sends it)', () => {
  const unsigned = { signed: false, hasTrailer: true };
  const body = Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');

  it('decodes data and trailer, in any split', async () => {
    for (const pieces of [[body], bytewise(body), randomSplit(body, prng(7), 5)]) {
      const out = await decode(pieces, unsigned);
      expect(out.data.toString()).toBe('hello world');
      expect(out.trailers).toEqual(new Map([['x-amz-checksum-crc32', 'DUoRhQ==']]));
    }
  });

  it('tolerates a missing final CRLF, bare LF in trailers, and no trailer at all', async () => {
    expect((await decode([body.subarray(0, -2)], unsigned)).trailers.get('x-amz-checksum-crc32')).toBe('DUoRhQ==');
    expect((await decode([body.subarray(0, -4)], unsigned)).trailers.get('x-amz-checksum-crc32')).toBe('DUoRhQ==');
    expect(
      (await decode([Buffer.from('0\r\nX-Amz-Checksum-CRC32 : DUoRhQ==\n\n')], unsigned)).trailers.get(
        'x-amz-checksum-crc32',
      ),
    ).toBe('DUoRhQ==');
    expect((await decode([Buffer.from('3\r\nabc\r\n0\r\n')], unsigned)).data.toString()).toBe('abc');
  });

  it('caps the trailer size', async () => {
    const big = Buffer.from(`0\r\nx-amz-meta-a:${'x'.repeat(100)}\r\n\r\n`);
    await expectCode([big], { ...unsigned, maxTrailerBytes: 64 }, 'InvalidRequest');
  });
});

describe('signed payload with trailer (S3 docs example)', () => {
  const opts = { signed: true, context: TRAILER_CTX, hasTrailer: true };

  it('decodes and authenticates the trailer in both framings', async () => {
    for (const docsStyle of [true, false]) {
      const body = trailerDocBody(docsStyle);
      for (const pieces of [[body], randomSplit(body, prng(3), 300)]) {
        const out = await decode(pieces, opts);
        expect(out.data.equals(expected)).toBe(true);
        expect(out.trailers).toEqual(new Map([['x-amz-checksum-crc32c', 'sOO8/Q==']]));
      }
    }
  });

  it('rejects a tampered trailer value, a missing trailer signature, and trailers after the signature', async () => {
    const body = trailerDocBody(false);
    const tampered = Buffer.from(body.toString('latin1').replace('sOO8/Q==', 'sOO8/R=='), 'latin1');
    await expectCode([tampered], opts, 'SignatureDoesNotMatch');
    const unsignedTrailer = Buffer.from(
      body.toString('latin1').replace(/x-amz-trailer-signature:[0-9a-f]+\r\n/, ''),
      'latin1',
    );
    await expectCode([unsignedTrailer], opts, 'SignatureDoesNotMatch');
    const extra = Buffer.concat([body.subarray(0, -2), Buffer.from('x-amz-meta-late:1\r\n\r\n')]);
    await expectCode([extra], opts, 'InvalidRequest');
  });
});

describe('encoder and decoder agree', () => {
  it('round-trips random data in every mode, chunk size and split', async () => {
    const random = prng(99);
    const trailers = { 'x-amz-checksum-sha256': 'uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=' };
    for (let i = 0; i < 24; i++) {
      const data = Buffer.from(Array.from({ length: Math.floor(random() * 5000) }, () => Math.floor(random() * 256)));
      const chunkSize = 1 + Math.floor(random() * 1500);
      const signed = i % 3 !== 2;
      const withTrailer = i % 3 !== 0;
      const style = (['sdk', 'aws-docs', 'no-final-crlf'] as const)[i % 3];
      const body = encodeAwsChunked({
        data,
        chunkSize,
        ...(signed ? { context: DOC_CTX } : {}),
        ...(withTrailer ? { trailers } : {}),
        style,
      });
      const out = await decode(randomSplit(body, random, 700), {
        signed,
        ...(signed ? { context: DOC_CTX } : {}),
        hasTrailer: withTrailer,
      });
      expect(out.data.equals(data)).toBe(true);
      expect(out.decodedBytes).toBe(data.length);
      expect(out.trailers.size).toBe(withTrailer ? 1 : 0);
    }
  });

  it('refuses to build a signed decoder without a context', () => {
    expect(() => createChunkedDecoder({ signed: true, hasTrailer: false })).toThrow(TypeError);
  });
});
