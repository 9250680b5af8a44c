// Decodes an aws-chunked request body while it streams: checks every chunk signature before its
// bytes go downstream, parses (and authenticates) the trailer. Holds at most one chunk in memory.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
import { Transform, type TransformCallback } from 'node:stream';
import { createHash, type Hash } from 'node:crypto';
import { AppError } from '../core/errors.js';
import type { ChunkSigningContext } from './types.js';
import { EMPTY_SHA256, sha256Hex } from './canonical.js';
import { chunkStringToSign, signatureBytes, signatureMatches, trailerStringToSign } from './signature.js';

export interface ChunkedDecoderOptions {
  /** Chunks carry chunk-signature=... and are verified (STREAMING-AWS4-HMAC-SHA256-PAYLOAD*). */
  signed: boolean;
  /** Required when signed. */
  context?: ChunkSigningContext;
  /** A trailer section follows the final chunk (*-TRAILER modes); signed mode then needs x-amz-trailer-signature. */
  hasTrailer: boolean;
  /** Largest accepted chunk, bytes; default 16 MiB. */
  maxChunkSize?: number;
  /** Largest accepted trailer section, bytes; default 16 KiB. */
  maxTrailerBytes?: number;
}

/** A Transform from aws-chunked bytes to payload bytes. */
export interface ChunkedDecoder extends Transform {
  /** Trailer headers, lower-cased names, without x-amz-trailer-signature; complete once the stream ended. */
  readonly trailers: Map<string, string>;
  /** Payload bytes emitted so far. */
  readonly decodedBytes: number;
}

const DEFAULT_MAX_CHUNK = 16 * 1024 * 1024;
const DEFAULT_MAX_TRAILER = 16 * 1024;
const MAX_HEADER_LINE = 1024;
const CR = 0x0d;
const LF = 0x0a;
const CHUNK_SIZE = /^[0-9a-fA-F]{1,16}$/;

/**
 * Creates the decoder. The stream fails with AppError:
 * SignatureDoesNotMatch (bad or missing chunk or trailer signature), IncompleteBody (the body ends
 * before the final chunk), InvalidRequest (malformed framing, chunk over maxChunkSize, trailer over
 * maxTrailerBytes). Checksum values in the trailer are only parsed: the caller verifies them.
 */
export function createChunkedDecoder(opts: ChunkedDecoderOptions): ChunkedDecoder {
  return new AwsChunkedDecoder(opts);
}

type State = 'header' | 'data' | 'data-crlf' | 'trailer' | 'done';

function malformed(message: string): AppError {
  return new AppError('InvalidRequest', { message: `Malformed aws-chunked body: ${message}` });
}

function badSignature(message: string): AppError {
  return new AppError('SignatureDoesNotMatch', { message });
}

class AwsChunkedDecoder extends Transform implements ChunkedDecoder {
  readonly trailers = new Map<string, string>();
  decodedBytes = 0;

  private readonly signed: boolean;
  private readonly context: ChunkSigningContext | undefined;
  private readonly hasTrailer: boolean;
  private readonly maxChunkSize: number;
  private readonly maxTrailerBytes: number;

  private state: State = 'header';
  /** Bytes of an unfinished line, carried across writes (bounded by the line limits). */
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private remaining = 0;
  private crlfSeen = 0;
  private hash: Hash | undefined;
  /** Signed mode: the current chunk's data, released once its signature checks out. */
  private held: Buffer[] = [];
  private chunkSignature = '';
  private previousSignature = '';
  private trailerText = '';
  private trailerBytes = 0;
  private trailerSignature: string | undefined;

  constructor(opts: ChunkedDecoderOptions) {
    super();
    if (opts.signed && opts.context === undefined) throw new TypeError('a signed aws-chunked decoder needs a context');
    this.signed = opts.signed;
    this.context = opts.context;
    this.hasTrailer = opts.hasTrailer;
    this.maxChunkSize = opts.maxChunkSize ?? DEFAULT_MAX_CHUNK;
    this.maxTrailerBytes = opts.maxTrailerBytes ?? DEFAULT_MAX_TRAILER;
    this.previousSignature = opts.context?.seedSignature ?? '';
  }

  override _transform(input: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      let pos = 0;
      while (pos < input.length) {
        switch (this.state) {
          case 'header':
          case 'trailer':
            pos = this.readLine(input, pos);
            break;
          case 'data':
            pos = this.readData(input, pos);
            break;
          case 'data-crlf':
            pos = this.readDataCrlf(input, pos);
            break;
          case 'done':
            pos = this.readAfterEnd(input, pos);
            break;
        }
      }
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.state === 'trailer' && this.pendingLength > 0) {
        // Tolerated: a last trailer line without its CRLF at the very end of the body.
        const line = Buffer.concat(this.pending).toString('latin1');
        this.pending = [];
        this.pendingLength = 0;
        this.onTrailerLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (this.state === 'trailer') this.finishTrailer();
      else if (this.state !== 'done') {
        throw new AppError('IncompleteBody', { message: 'The aws-chunked body ended before its final chunk.' });
      }
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  /** Collects one line (up to LF); returns the new position. */
  private readLine(input: Buffer, pos: number): number {
    const lf = input.indexOf(LF, pos);
    const limit = this.state === 'header' ? MAX_HEADER_LINE : this.maxTrailerBytes;
    const end = lf < 0 ? input.length : lf;
    if (this.pendingLength + (end - pos) > limit) {
      throw malformed(this.state === 'header' ? 'chunk header line too long' : 'trailer too large');
    }
    if (lf < 0) {
      this.pending.push(input.subarray(pos));
      this.pendingLength += input.length - pos;
      return input.length;
    }
    let line = input.subarray(pos, lf);
    if (this.pendingLength > 0) {
      line = Buffer.concat([...this.pending, line]);
      this.pending = [];
      this.pendingLength = 0;
    }
    const hasCr = line.length > 0 && line[line.length - 1] === CR;
    const text = (hasCr ? line.subarray(0, -1) : line).toString('latin1');
    if (this.state === 'header') {
      if (!hasCr) throw malformed('chunk header not terminated by CRLF');
      this.onChunkHeader(text);
    } else {
      this.onTrailerLine(text);
    }
    return lf + 1;
  }

  private onChunkHeader(line: string): void {
    const semi = line.indexOf(';');
    const sizeText = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!CHUNK_SIZE.test(sizeText)) throw malformed('invalid chunk size');
    const size = parseInt(sizeText, 16);
    if (size > this.maxChunkSize) throw malformed(`chunk of ${size} bytes exceeds the ${this.maxChunkSize} byte limit`);
    if (this.signed) {
      const ext = semi < 0 ? '' : line.slice(semi + 1).trim();
      if (!ext.startsWith('chunk-signature=')) throw badSignature('The chunk signature is missing.');
      this.chunkSignature = ext.slice('chunk-signature='.length).trim();
      this.hash = createHash('sha256');
    }
    if (size === 0) {
      if (this.signed) this.verifyChunk();
      this.state = 'trailer';
      return;
    }
    this.remaining = size;
    this.state = 'data';
  }

  private readData(input: Buffer, pos: number): number {
    const take = Math.min(this.remaining, input.length - pos);
    const slice = input.subarray(pos, pos + take);
    if (this.signed) {
      this.hash?.update(slice);
      this.held.push(slice);
    } else {
      this.decodedBytes += take;
      this.push(slice);
    }
    this.remaining -= take;
    if (this.remaining === 0) {
      this.state = 'data-crlf';
      this.crlfSeen = 0;
    }
    return pos + take;
  }

  private readDataCrlf(input: Buffer, pos: number): number {
    while (this.crlfSeen < 2 && pos < input.length) {
      if (input[pos] !== (this.crlfSeen === 0 ? CR : LF)) throw malformed('chunk data not followed by CRLF');
      this.crlfSeen++;
      pos++;
    }
    if (this.crlfSeen === 2) {
      if (this.signed) {
        this.verifyChunk();
        for (const part of this.held) {
          this.decodedBytes += part.length;
          this.push(part);
        }
        this.held = [];
      }
      this.state = 'header';
    }
    return pos;
  }

  private verifyChunk(): void {
    const ctx = this.context as ChunkSigningContext;
    const dataHash = this.hash === undefined ? EMPTY_SHA256 : this.hash.digest('hex');
    this.hash = undefined;
    const expected = signatureBytes(ctx.signingKey, chunkStringToSign(ctx, this.previousSignature, dataHash));
    if (!signatureMatches(expected, this.chunkSignature)) {
      throw badSignature('The chunk signature we calculated does not match the signature you provided.');
    }
    this.previousSignature = this.chunkSignature.toLowerCase();
  }

  /**
   * After the final chunk: trailer lines, then an empty line. Empty lines before the first trailer
   * line are skipped (the AWS docs' example puts a blank line there; the SDKs do not).
   */
  private onTrailerLine(line: string): void {
    if (line === '') {
      if (this.trailerText !== '' || this.trailerSignature !== undefined || !this.hasTrailer) this.finishTrailer();
      return;
    }
    if (!this.hasTrailer) throw malformed('unexpected data after the final chunk');
    if (this.trailerSignature !== undefined && this.signed) throw malformed('trailer after x-amz-trailer-signature');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('invalid trailer line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    this.trailerBytes += line.length + 2;
    if (this.trailerBytes > this.maxTrailerBytes) throw malformed('trailer too large');
    if (name === 'x-amz-trailer-signature') {
      this.trailerSignature = value;
      return;
    }
    this.trailers.set(name, value);
    this.trailerText += `${name}:${value}\n`;
  }

  private finishTrailer(): void {
    if (this.signed && this.hasTrailer) {
      const ctx = this.context as ChunkSigningContext;
      if (this.trailerSignature === undefined) throw badSignature('The trailer signature is missing.');
      const toSign = trailerStringToSign(ctx, this.previousSignature, sha256Hex(this.trailerText));
      if (!signatureMatches(signatureBytes(ctx.signingKey, toSign), this.trailerSignature)) {
        throw badSignature('The trailer signature we calculated does not match the signature you provided.');
      }
    }
    this.state = 'done';
  }

  /** Only blank lines may follow the end of the body. */
  private readAfterEnd(input: Buffer, pos: number): number {
    for (let i = pos; i < input.length; i++) {
      if (input[i] !== CR && input[i] !== LF) throw malformed('unexpected data after the end of the body');
    }
    return input.length;
  }
}
