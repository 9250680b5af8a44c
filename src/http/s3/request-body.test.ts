// A request body in aws-chunked framing: a chunk that fails verification before anything reads the body must not end
// the process (an unhandled 'error' event), and must still fail whoever reads it later.

import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeAwsChunked } from '../../sigv4/chunked-encoder.js';
import { deriveSigningKey } from '../../sigv4/signature.js';
import type { ChunkSigningContext, VerifiedRequest } from '../../sigv4/types.js';
import { bodyInput, readSmallPayload } from './request-body.js';

const CONTEXT: ChunkSigningContext = {
  signingKey: deriveSigningKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', {
    date: '20130524',
    region: 'us-east-1',
    service: 's3',
  }),
  seedSignature: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
  amzDate: '20130524T000000Z',
  scope: '20130524/us-east-1/s3/aws4_request',
};

const PAYLOAD = Buffer.alloc(70_000, 'a');

/** A request carrying PAYLOAD in aws-chunked framing whose chunks were signed with another seed signature. */
function forgedChunkedRequest(): { req: IncomingMessage; auth: VerifiedRequest; send: () => void } {
  const stream = new PassThrough();
  const req = Object.assign(stream, {
    headers: { 'x-amz-decoded-content-length': String(PAYLOAD.length), 'content-encoding': 'aws-chunked' },
  }) as unknown as IncomingMessage;
  const auth: VerifiedRequest = {
    accessKeyId: 'AKIDEXAMPLE',
    via: 'header',
    scheme: 'sigv4',
    payload: { kind: 'chunked', signedChunks: true, hasTrailer: false, decodedLength: PAYLOAD.length },
    chunkContext: CONTEXT,
  };
  const forged = encodeAwsChunked({
    data: PAYLOAD,
    chunkSize: 65_536,
    context: { ...CONTEXT, seedSignature: 'f'.repeat(64) },
  });
  return { req, auth, send: () => stream.end(forged) };
}

/** Lets the stream machinery run until the decoder has seen (and refused) every chunk. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('aws-chunked request bodies', () => {
  it('a chunk signature that fails before anyone reads the body is not an unhandled error, and fails the later reader', async () => {
    const { req, auth, send } = forgedChunkedRequest();
    const input = bodyInput(req, auth);
    // Nobody reads yet (the handler is still checking the bucket or the free space): the decoder fails on its own.
    send();
    await settle();
    const read = (async () => {
      for await (const chunk of input.source) void chunk;
    })();
    await expect(read).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('a small payload read after the decoder failed rejects with the chunk error', async () => {
    const { req, auth, send } = forgedChunkedRequest();
    send();
    await settle();
    await expect(readSmallPayload({ req, auth }, 1024 * 1024)).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
  });
});
