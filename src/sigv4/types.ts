// The contract between the S3 plane and SigV4 verification: what goes in (the request as received)
// and what comes out (a verified identity and how to read the payload).

/** The parts of an HTTP request that SigV4 signs, exactly as they arrived on the wire. */
export interface SignedRequest {
  method: string;
  /** The path as received, still percent-encoded, mount prefix included, without the query string. */
  rawPath: string;
  /** The query string as received, without the leading '?', still percent-encoded ('' when absent). */
  rawQuery: string;
  /** Header names lower-cased (Node's IncomingHttpHeaders). */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The bucket the Host names on a virtual-hosted–style request. SigV4 signs the path and Host as sent and needs
   * nothing more; SigV2's canonicalized resource starts with `/bucket` (sigv2.ts).
   */
  hostBucket?: string;
}

/** Looks up the secret of an access key id; undefined when the key is unknown or disabled. */
export type SecretLookup = (accessKeyId: string) => string | undefined;

export type PayloadMode =
  /** x-amz-content-sha256 is a hex SHA-256 of the body: the reader must verify it (XAmzContentSHA256Mismatch). */
  | { kind: 'signed'; sha256: string }
  /** UNSIGNED-PAYLOAD (and every presigned URL). */
  | { kind: 'unsigned' }
  /** aws-chunked body: STREAMING-AWS4-HMAC-SHA256-PAYLOAD(-TRAILER) or STREAMING-UNSIGNED-PAYLOAD-TRAILER. */
  | {
      kind: 'chunked';
      signedChunks: boolean;
      hasTrailer: boolean;
      /** x-amz-decoded-content-length, when sent. */
      decodedLength: number | undefined;
    };

/** The state needed to verify chunk signatures after the header signature was verified. */
export interface ChunkSigningContext {
  signingKey: Buffer;
  /** The request's (seed) signature, hex: the previous signature of the first chunk. */
  seedSignature: string;
  /** x-amz-date, e.g. 20130524T000000Z */
  amzDate: string;
  /** e.g. 20130524/us-east-1/s3/aws4_request */
  scope: string;
}

/** How a request was authenticated (store_s3_auth_total{scheme}, s3:signatureversion). */
export type AuthScheme = 'sigv4' | 'sigv2' | 'anonymous';

export interface VerifiedRequest {
  accessKeyId: string;
  via: 'header' | 'presigned';
  scheme: AuthScheme;
  payload: PayloadMode;
  chunkContext: ChunkSigningContext;
}
