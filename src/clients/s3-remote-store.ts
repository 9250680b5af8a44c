// The remote S3 target through the AWS SDK v3 (RemoteStore, services/replication/remote-store.ts). Loaded with a
// dynamic import only when replication or tiering is configured, so a plain start never pays for the SDK.
// Checksums are computed and validated only WHEN_REQUIRED: the SDK's default (CRC32 trailers in aws-chunked bodies)
// is refused by targets that do not decode aws-chunked, such as s3rver (docs/replication.md "Checksums").

import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsCommand, PutObjectCommand,
  PutObjectTaggingCommand, S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  RemoteError, type RemoteErrorClass, type RemoteListPage, type RemoteObjectInfo, type RemotePutInput, type RemoteStore,
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
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);
const AUTH_NAMES = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'Forbidden']);

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
  else if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') cls = 'timeout';
  else if (NETWORK_CODES.has(code)) cls = 'unreachable';
  else if (name === 'NoSuchBucket') cls = 'no-bucket';
  else if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) cls = 'not-found';
  else if (AUTH_NAMES.has(name) || status === 401 || status === 403) cls = 'auth';
  else if (name === 'SlowDown' || status === 429 || status === 503) cls = 'throttled';
  else if (status !== undefined && status >= 500) cls = 'server-error';
  else if (status !== undefined && status >= 400) cls = 'client-error';
  else cls = 'unknown';
  return new RemoteError(cls, status);
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

  constructor(opts: S3RemoteStoreOptions) {
    this.bucket = opts.bucket;
    this.threshold = opts.largeObjectThresholdBytes;
    this.partSize = opts.partSizeBytes ?? 8 * 1024 * 1024;
    this.queueSize = opts.queueSize ?? 2;
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
      forcePathStyle: opts.forcePathStyle,
      credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 5000, requestTimeout: 120_000 },
    });
  }

  async put(input: RemotePutInput): Promise<void> {
    const h = input.headers ?? {};
    const params = {
      Bucket: this.bucket, Key: input.key, Body: input.body,
      ContentType: h.contentType, ContentEncoding: h.contentEncoding, ContentDisposition: h.contentDisposition,
      ContentLanguage: h.contentLanguage, CacheControl: h.cacheControl,
      ...(h.expires !== undefined && !Number.isNaN(Date.parse(h.expires)) ? { Expires: new Date(h.expires) } : {}),
      Metadata: input.metadata,
    };
    try {
      if (input.size <= this.threshold) {
        await this.client.send(new PutObjectCommand({ ...params, ContentLength: input.size }), { abortSignal: input.signal });
        // Tags by PutObjectTagging rather than the x-amz-tagging header, which some targets (s3rver) ignore.
        if (input.tags && input.tags.length > 0) await this.putTags(input.key, input.tags, input.signal);
        return;
      }
      // Streamed multipart: at most queueSize parts of partSize bytes are held at once, whatever the object's size.
      const partSize = Math.max(this.partSize, Math.ceil(input.size / 9000));
      const controller = new AbortController();
      const upload = new Upload({
        client: this.client, params, partSize, queueSize: this.queueSize, leavePartsOnError: false,
        tags: (input.tags ?? []).map((t) => ({ Key: t.key, Value: t.value })), abortController: controller,
      });
      const onAbort = (): void => controller.abort();
      input.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await upload.done();
      } finally {
        input.signal?.removeEventListener('abort', onAbort);
      }
    } catch (err) {
      input.body.destroy();
      throw classifyRemoteError(err);
    }
  }

  async get(key: string, opts: { range?: { start: number; end: number }; signal?: AbortSignal } = {}): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key: key, ...(opts.range ? { Range: `bytes=${opts.range.start}-${opts.range.end}` } : {}),
      }), { abortSignal: opts.signal });
      return res.Body as Readable;
    } catch (err) {
      throw classifyRemoteError(err);
    }
  }

  async head(key: string, signal?: AbortSignal): Promise<RemoteObjectInfo | undefined> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
      return { size: res.ContentLength ?? 0, etag: unquote(res.ETag), metadata: res.Metadata ?? {} };
    } catch (err) {
      const e = classifyRemoteError(err);
      if (e.errorClass === 'not-found') return undefined;
      throw e;
    }
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
    } catch (err) {
      const e = classifyRemoteError(err);
      if (e.errorClass !== 'not-found') throw e;
    }
  }

  async putTags(key: string, tags: readonly { key: string; value: string }[], signal?: AbortSignal): Promise<void> {
    try {
      await this.client.send(new PutObjectTaggingCommand({
        Bucket: this.bucket, Key: key, Tagging: { TagSet: tags.map((t) => ({ Key: t.key, Value: t.value })) },
      }), { abortSignal: signal });
    } catch (err) {
      throw classifyRemoteError(err);
    }
  }

  async list(opts: { prefix: string; startAfter?: string; token?: string; limit: number; signal?: AbortSignal }): Promise<RemoteListPage> {
    // ListObjects (v1) with Marker: every target pages it the same way (s3rver's v2 tokens need a legacy cipher).
    const marker = opts.token ?? opts.startAfter;
    try {
      const res = await this.client.send(new ListObjectsCommand({
        Bucket: this.bucket, Prefix: opts.prefix, MaxKeys: opts.limit, ...(marker === undefined ? {} : { Marker: marker }),
      }), { abortSignal: opts.signal });
      const items = (res.Contents ?? []).map((c) => ({ key: c.Key ?? '', size: c.Size ?? 0, etag: unquote(c.ETag) ?? '' }));
      const last = items.at(-1)?.key;
      return { items, nextToken: res.IsTruncated && last !== undefined ? last : undefined };
    } catch (err) {
      throw classifyRemoteError(err);
    }
  }

  presignGet(key: string, ttlSeconds: number, opts: { responseContentType?: string; responseContentDisposition?: string } = {}): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({
      Bucket: this.bucket, Key: key, ResponseContentType: opts.responseContentType, ResponseContentDisposition: opts.responseContentDisposition,
    }), { expiresIn: ttlSeconds });
  }

  async checkBucket(signal?: AbortSignal): Promise<TargetBucketState> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: signal });
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
