// The remote S3 target as the services see it: put from a stream, get as a stream, head, delete, tags, a list page
// and a presigned GET, over keys of ONE target bucket. Replication, tiering, backups pushed to the target and
// integrity repair all use this interface; the AWS SDK implementation lives in clients/s3-remote-store.ts.
// Errors are RemoteError with a bounded class, never the SDK's message (it can carry the endpoint or a key).

import type { Readable } from 'node:stream';

/** The root of every key Store reserves on the target; user data is mirrored under `<bucket>/` and never here. */
const RESERVED_PREFIX = '.store/';
/** Tiered object copies: `.store/tier/<bucket>/<uuid>`. */
export const TIER_PREFIX = `${RESERVED_PREFIX}tier/`;
/** Snapshots pushed by scheduled backups: `.store/backups/<file>`. */
export const BACKUP_PREFIX = `${RESERVED_PREFIX}backups/`;

/**
 * The remote key that mirrors a local object (bucket names cannot start with '.', so it never meets RESERVED_PREFIX).
 */
export function mirrorKey(bucket: string, key: string): string {
  return `${bucket}/${key}`;
}

/** System headers sent with an object (they come back on the target's GET). */
export interface RemoteObjectHeaders {
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  contentDisposition?: string | undefined;
  contentLanguage?: string | undefined;
  cacheControl?: string | undefined;
  expires?: string | undefined;
}

export interface RemotePutInput {
  key: string;
  /** Plaintext bytes; read once, never buffered whole (multipart above the client's threshold). */
  body: Readable;
  /** Exact length of `body`. */
  size: number;
  headers?: RemoteObjectHeaders;
  /** User metadata (sent as x-amz-meta-*). */
  metadata?: Record<string, string>;
  tags?: readonly { key: string; value: string }[];
  /**
   * The object's canned ACL when it is one that grants others (public-read, ...): set on the copy after the upload
   * (putCannedAcl), where the target accepts ACLs.
   */
  cannedAcl?: string | undefined;
  signal?: AbortSignal;
}

export interface RemoteObjectInfo {
  size: number;
  /** Unquoted ETag, when the target sent one. */
  etag: string | undefined;
  metadata: Record<string, string>;
}

export interface RemoteListItem {
  key: string;
  size: number;
  /** Unquoted ETag. */
  etag: string;
}

export interface RemoteListPage {
  items: RemoteListItem[];
  /** Pass back as `token` for the next page; undefined on the last page. */
  nextToken: string | undefined;
}

/** The target bucket as last checked: ok, missing (NoSuchBucket), or the error class that prevented the check. */
export type TargetBucketState = 'ok' | 'missing' | RemoteErrorClass;

export interface RemoteStore {
  /** Uploads an object (streamed multipart above the configured threshold). Throws RemoteError. */
  put(input: RemotePutInput): Promise<void>;
  /** The object's bytes (a range, inclusive), as a stream. Throws RemoteError ('not-found' for a missing key). */
  get(key: string, opts?: { range?: { start: number; end: number }; signal?: AbortSignal }): Promise<Readable>;
  /** Size, ETag and user metadata, or undefined when the key does not exist. Throws RemoteError. */
  head(key: string, signal?: AbortSignal): Promise<RemoteObjectInfo | undefined>;
  /** Deletes a key; a missing key is not an error. Throws RemoteError. */
  delete(key: string, signal?: AbortSignal): Promise<void>;
  /** Replaces the object's tag set. Throws RemoteError ('not-found' for a missing key). */
  putTags(key: string, tags: readonly { key: string; value: string }[], signal?: AbortSignal): Promise<void>;
  /**
   * Sets a canned ACL on an object (x-amz-acl). Resolves false when the target does not take ACLs (it answered
   * AccessControlListNotSupported or NotImplemented: the copy stays private there). Throws RemoteError otherwise.
   * Optional: a target without it keeps every copy private.
   */
  putCannedAcl?(key: string, acl: string, signal?: AbortSignal): Promise<boolean>;
  /**
   * One page of keys under `prefix` in UTF-8 byte order, after `startAfter` or continuing `token`. Throws RemoteError.
   */
  list(opts: {
    prefix: string;
    startAfter?: string;
    token?: string;
    limit: number;
    signal?: AbortSignal;
  }): Promise<RemoteListPage>;
  /**
   * A presigned GET URL valid for `ttlSeconds` (it names the target and carries the access key id, never the secret).
   */
  presignGet(
    key: string,
    ttlSeconds: number,
    opts?: { responseContentType?: string; responseContentDisposition?: string },
  ): Promise<string>;
  /** HEAD of the target bucket. Never throws. */
  checkBucket(signal?: AbortSignal): Promise<TargetBucketState>;
  /** Closes idle sockets. */
  close(): void;
}

/**
 * Bounded error classes: what status, logs and the outbox record about a remote failure. Never a message, URL,
 * key or credential (SDK errors can embed all of these).
 */
export const REMOTE_ERROR_CLASSES = [
  'unreachable',
  'timeout',
  'auth',
  'no-bucket',
  'not-found',
  'throttled',
  'server-error',
  'client-error',
  'integrity',
  'local-read',
  'aborted',
  'unknown',
] as const;
export type RemoteErrorClass = (typeof REMOTE_ERROR_CLASSES)[number];

/** A remote failure, by class (and HTTP status when there was one). Its message is the class, nothing more. */
export class RemoteError extends Error {
  constructor(
    readonly errorClass: RemoteErrorClass,
    readonly httpStatus?: number,
  ) {
    super(httpStatus === undefined ? `remote ${errorClass}` : `remote ${errorClass} (HTTP ${httpStatus})`);
    this.name = 'RemoteError';
  }
}

/** The class of any error from remote work: a RemoteError's own, 'aborted' for an abort, else 'unknown'. */
export function remoteErrorClass(err: unknown): RemoteErrorClass {
  if (err instanceof RemoteError) return err.errorClass;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return 'aborted';
  return 'unknown';
}
