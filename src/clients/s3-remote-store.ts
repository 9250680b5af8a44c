// The remote S3 target through the AWS SDK v3 (RemoteStore, services/replication/remote-store.ts). Loaded with a
// dynamic import only when replication or tiering is configured, so a plain start never pays for the SDK.
// Checksums are computed and validated only WHEN_REQUIRED: the SDK's default (CRC32 trailers in aws-chunked bodies)
// is refused by targets that do not decode aws-chunked, such as s3rver (docs/replication.md "Checksums").
// Every request is bounded (docs/replication.md "Timeouts and limits"): an idle socket, a request that does not
// finish in time (a target trickling its answer) and a response body larger than any S3 answer all fail it.

import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  PutObjectAclCommand,
  PutObjectTaggingCommand,
  S3Client,
  type ObjectCannedACL,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { capResponseBodies } from './response-cap.js';
import {
  RemoteError,
  type RemoteErrorClass,
  type RemoteListPage,
  type RemoteObjectInfo,
  type RemotePutInput,
  type RemoteStore,
  type TargetBucketState,
} from '../services/replication/remote-store.js';

export interface S3RemoteStoreOptions {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** Objects above this many bytes go as a multipart upload. */
  largeObjectThresholdBytes: number;
  /** Bytes per uploaded part (default 8 MiB, raised to fit 10,000 parts). */
  partSizeBytes?: number;
  /** Parts in flight at once (default 2): memory is bounded by queueSize * partSize. */
  queueSize?: number;
  /**
   * STORE_REPLICATION_REQUEST_TIMEOUT_MS (default 30 s): a request fails with class 'timeout' when no byte moves
   * either way for this long, and when it is not answered within this long plus the time to send its body at
   * MIN_SEND_BYTES_PER_SECOND (GetObject: the idle bound only; its reader bounds the rest).
   */
  requestTimeoutMs?: number;
}

/** The slowest upload a request's deadline allows for: a 64 MiB body gets 1,024 s on top of the timeout. */
export const MIN_SEND_BYTES_PER_SECOND = 64 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const ignore = (): void => undefined;
const SILENT = { trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);
const AUTH_NAMES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'Forbidden',
]);

interface SdkErrorShape {
  name?: string;
  code?: string;
  errors?: { code?: string }[];
  $metadata?: { httpStatusCode?: number };
}

/** Maps any SDK or socket error to a RemoteError: its class and HTTP status only, never the SDK's message. */
export function classifyRemoteError(err: unknown): RemoteError {
  if (err instanceof RemoteError) return err;
  const e = (err ?? {}) as SdkErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const name = e.name ?? '';
  const code = e.code ?? e.errors?.find((x) => x.code)?.code ?? '';
  let cls: RemoteErrorClass;
  if (name === 'AbortError') cls = 'aborted';
  // The SDK names a reset connection TimeoutError too: the socket's code decides first.
  else if (NETWORK_CODES.has(code)) cls = 'unreachable';
  // The target answered, but not in HTTP (llhttp's parse errors), or with a body larger than any S3 answer.
  else if (name === 'ResponseTooLarge' || code.startsWith('HPE_')) cls = 'server-error';
  else if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') cls = 'timeout';
  else if (name === 'NoSuchBucket') cls = 'no-bucket';
  else if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) cls = 'not-found';
  else if (AUTH_NAMES.has(name) || status === 401 || status === 403) cls = 'auth';
  else if (name === 'SlowDown' || status === 429 || status === 503) cls = 'throttled';
  else if (status !== undefined && status >= 500) cls = 'server-error';
  else if (status !== undefined && status >= 400) cls = 'client-error';
  else cls = 'unknown';
  return new RemoteError(cls, status);
}

/**
 * Every S3 target answers a stored object with its ETag. A 200 without one is not S3's answer (a proxy's page, a
 * captive portal) and the object may not be stored: a failure to retry, not a success.
 */
function requireEtag(etag: string | undefined): void {
  if (etag === undefined || etag === '') throw new RemoteError('server-error', 200);
}

function unquote(etag: string | undefined): string | undefined {
  return etag?.replace(/^"|"$/g, '');
}

export class S3RemoteStore implements RemoteStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly threshold: number;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly timeoutMs: number;

  constructor(opts: S3RemoteStoreOptions) {
    this.bucket = opts.bucket;
    this.threshold = opts.largeObjectThresholdBytes;
    this.partSize = opts.partSizeBytes ?? 8 * 1024 * 1024;
    this.queueSize = opts.queueSize ?? 2;
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
      forcePathStyle: opts.forcePathStyle,
      credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      // socketTimeout is the idle bound. The handler's requestTimeout is not used: it only logs a warning (to the
      // console, outside the structured log) unless throwOnRequestTimeout is set, and it stops at the response
      // headers; the deadline below covers the whole call, body and SDK retry included.
      requestHandler: { connectionTimeout: Math.min(5000, this.timeoutMs), socketTimeout: this.timeoutMs },
      // Without a logger the SDK writes some warnings to the console, outside the structured log. Every failure
      // reaches Store as an error, classified and recorded; the SDK's own words are not needed.
      logger: SILENT,
    });
    capResponseBodies(this.client);
  }

  /**
   * Runs one SDK call under the caller's signal and a deadline of the timeout plus `bodyBytes` at the minimum send
   * rate. Throws RemoteError: 'timeout' when the deadline passed, else the SDK error's class.
   */
  private async bounded<T>(
    signal: AbortSignal | undefined,
    bodyBytes: number,
    call: (abortSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const ms = this.timeoutMs + Math.ceil((bodyBytes / MIN_SEND_BYTES_PER_SECOND) * 1000);
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ms);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    try {
      return await call(controller.signal);
    } catch (err) {
      throw timedOut ? new RemoteError('timeout') : classifyRemoteError(err);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async put(input: RemotePutInput): Promise<void> {
    const h = input.headers ?? {};
    const params = {
      Bucket: this.bucket,
      Key: input.key,
      Body: input.body,
      ContentType: h.contentType,
      ContentEncoding: h.contentEncoding,
      ContentDisposition: h.contentDisposition,
      ContentLanguage: h.contentLanguage,
      CacheControl: h.cacheControl,
      ...(h.expires !== undefined && !Number.isNaN(Date.parse(h.expires)) ? { Expires: new Date(h.expires) } : {}),
      Metadata: input.metadata,
    };
    try {
      if (input.size <= this.threshold) {
        const res = await this.bounded(input.signal, input.size, (abortSignal) =>
          this.client.send(new PutObjectCommand({ ...params, ContentLength: input.size }), { abortSignal }),
        );
        requireEtag(res.ETag);
        // Tags by PutObjectTagging rather than the x-amz-tagging header, which some targets (s3rver) ignore.
        if (input.tags && input.tags.length > 0) await this.putTags(input.key, input.tags, input.signal);
        return;
      }
      // Streamed multipart: at most queueSize parts of partSize bytes are held at once, whatever the object's size.
      const partSize = Math.max(this.partSize, Math.ceil(input.size / 9000));
      const controller = new AbortController();
      const upload = new Upload({
        client: this.client,
        params,
        partSize,
        queueSize: this.queueSize,
        leavePartsOnError: false,
        tags: (input.tags ?? []).map((t) => ({ Key: t.key, Value: t.value })),
        abortController: controller,
      });
      const res = await this.bounded(input.signal, input.size, (abortSignal) => {
        abortSignal.addEventListener('abort', () => controller.abort(), { once: true });
        return upload.done();
      });
      requireEtag(res.ETag);
    } catch (err) {
      input.body.destroy();
      throw classifyRemoteError(err);
    }
  }

  async get(
    key: string,
    opts: { range?: { start: number; end: number }; signal?: AbortSignal } = {},
  ): Promise<Readable> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(opts.range ? { Range: `bytes=${opts.range.start}-${opts.range.end}` } : {}),
        }),
        { abortSignal: opts.signal },
      );
      return res.Body as Readable;
    } catch (err) {
      throw classifyRemoteError(err);
    }
  }

  async head(key: string, signal?: AbortSignal): Promise<RemoteObjectInfo | undefined> {
    try {
      const res = await this.bounded(signal, 0, (abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }),
      );
      return { size: res.ContentLength ?? 0, etag: unquote(res.ETag), metadata: res.Metadata ?? {} };
    } catch (err) {
      const e = classifyRemoteError(err);
      if (e.errorClass === 'not-found') return undefined;
      throw e;
    }
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.bounded(signal, 0, (abortSignal) =>
        this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }),
      );
    } catch (err) {
      const e = classifyRemoteError(err);
      if (e.errorClass !== 'not-found') throw e;
    }
  }

  async putCannedAcl(key: string, acl: string, signal?: AbortSignal): Promise<boolean> {
    return this.bounded(signal, 0, async (abortSignal) => {
      try {
        await this.client.send(
          new PutObjectAclCommand({ Bucket: this.bucket, Key: key, ACL: acl as ObjectCannedACL }),
          { abortSignal },
        );
        return true;
      } catch (err) {
        // A target with ACLs disabled (AWS's default BucketOwnerEnforced, Store's too) or without ACL support.
        const name = (err as SdkErrorShape | undefined)?.name;
        if (name === 'AccessControlListNotSupported' || name === 'NotImplemented') return false;
        throw err;
      }
    });
  }

  async putTags(key: string, tags: readonly { key: string; value: string }[], signal?: AbortSignal): Promise<void> {
    await this.bounded(signal, 0, (abortSignal) =>
      this.client.send(
        new PutObjectTaggingCommand({
          Bucket: this.bucket,
          Key: key,
          Tagging: { TagSet: tags.map((t) => ({ Key: t.key, Value: t.value })) },
        }),
        { abortSignal },
      ),
    );
  }

  async list(opts: {
    prefix: string;
    startAfter?: string;
    token?: string;
    limit: number;
    signal?: AbortSignal;
  }): Promise<RemoteListPage> {
    // ListObjects (v1) with Marker: every target pages it the same way (s3rver's v2 tokens need a legacy cipher).
    const marker = opts.token ?? opts.startAfter;
    const res = await this.bounded(opts.signal, 0, (abortSignal) =>
      this.client.send(
        new ListObjectsCommand({
          Bucket: this.bucket,
          Prefix: opts.prefix,
          MaxKeys: opts.limit,
          ...(marker === undefined ? {} : { Marker: marker }),
        }),
        { abortSignal },
      ),
    );
    const items = (res.Contents ?? []).map((c) => ({
      key: c.Key ?? '',
      size: c.Size ?? 0,
      etag: unquote(c.ETag) ?? '',
    }));
    const last = items.at(-1)?.key;
    return { items, nextToken: res.IsTruncated && last !== undefined ? last : undefined };
  }

  presignGet(
    key: string,
    ttlSeconds: number,
    opts: { responseContentType?: string; responseContentDisposition?: string } = {},
  ): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: opts.responseContentType,
        ResponseContentDisposition: opts.responseContentDisposition,
      }),
      { expiresIn: ttlSeconds },
    );
  }

  async checkBucket(signal?: AbortSignal): Promise<TargetBucketState> {
    try {
      await this.bounded(signal, 0, (abortSignal) =>
        this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal }),
      );
      return 'ok';
    } catch (err) {
      const e = classifyRemoteError(err);
      return e.errorClass === 'not-found' || e.errorClass === 'no-bucket' ? 'missing' : e.errorClass;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
