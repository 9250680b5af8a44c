// Encodes aws-chunked bodies the way S3 clients send them (signed chunks, trailers), for tests and
// the benchmark; the decoder's counterpart. Not used by the server itself.
import type { ChunkSigningContext } from './types.js';
import { credentialScope, sha256Hex } from './canonical.js';
import { chunkStringToSign, deriveSigningKey, signatureHex, trailerStringToSign } from './signature.js';

export interface EncodeAwsChunkedInput {
  data: Uint8Array;
  /** Bytes per chunk (the last one may be shorter); at least 1. */
  chunkSize: number;
  /** Sign the chunks (and the trailer) with this context; unsigned framing (`size\r\n`) when absent. */
  context?: ChunkSigningContext;
  /** Trailer headers after the final chunk (the *-TRAILER modes), e.g. { 'x-amz-checksum-crc32': 'AAAAAA==' }. */
  trailers?: Record<string, string>;
  /**
   * Framing variants real clients send. 'sdk' (default): the trailer right after the final chunk,
   * ended by an empty line. 'aws-docs': a blank line after the final chunk and no closing empty line
   * (the example in the S3 docs). 'no-final-crlf': as 'sdk' without the closing empty line.
   */
  style?: 'sdk' | 'aws-docs' | 'no-final-crlf';
}

/** The aws-chunked encoding of `data`, as one Buffer. */
export function encodeAwsChunked(input: EncodeAwsChunkedInput): Buffer {
  if (!(input.chunkSize >= 1)) throw new RangeError('chunkSize must be at least 1');
  const { context, trailers } = input;
  const style = input.style ?? 'sdk';
  const parts: Buffer[] = [];
  let previous = context?.seedSignature ?? '';
  const header = (size: number, chunk: Uint8Array): string => {
    if (context === undefined) return `${size.toString(16)}\r\n`;
    previous = signatureHex(context.signingKey, chunkStringToSign(context, previous, sha256Hex(chunk)));
    return `${size.toString(16)};chunk-signature=${previous}\r\n`;
  };
  for (let offset = 0; offset < input.data.length; offset += input.chunkSize) {
    const chunk = input.data.subarray(offset, Math.min(offset + input.chunkSize, input.data.length));
    parts.push(Buffer.from(header(chunk.length, chunk), 'latin1'), Buffer.from(chunk), Buffer.from('\r\n'));
  }
  let tail = header(0, new Uint8Array(0));
  if (trailers === undefined) {
    tail += style === 'no-final-crlf' ? '' : '\r\n';
  } else {
    if (style === 'aws-docs') tail += '\r\n';
    let text = '';
    for (const [name, value] of Object.entries(trailers)) {
      text += `${name.toLowerCase()}:${value}\n`;
      tail += `${name}:${value}\r\n`;
    }
    if (context !== undefined) {
      const signature = signatureHex(context.signingKey, trailerStringToSign(context, previous, sha256Hex(text)));
      tail += `x-amz-trailer-signature:${signature}\r\n`;
    }
    if (style === 'sdk') tail += '\r\n';
  }
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * The chunk signing context of a request signed by signRequest (or any client): the seed signature
 * and scope come from its Authorization header, the time from x-amz-date.
 * Throws Error when the headers are not a SigV4 header signature.
 */
export function chunkContextFromHeaders(headers: Record<string, string>, secretAccessKey: string): ChunkSigningContext {
  const match = /Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request.*Signature=([0-9a-f]{64})/.exec(
    headers['authorization'] ?? '',
  );
  const amzDate = headers['x-amz-date'];
  if (match === null || amzDate === undefined) throw new Error('not a SigV4 header-signed request');
  const [, date, region, service, signature] = match as unknown as [string, string, string, string, string];
  return {
    signingKey: deriveSigningKey(secretAccessKey, { date: date, region: region, service: service }),
    seedSignature: signature,
    amzDate,
    scope: credentialScope(date, region, service),
  };
}
