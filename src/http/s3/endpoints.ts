// Request -> typed S3 operation, before anything else happens: path-style (`/bucket/key`), or virtual-hosted style
// (`/key` with the bucket named by the Host, which virtual-hosts.ts resolves).
// The operation name is the S3 API's verbatim: it is the metric label and the audit action too.

import { CONFIG_PART_SUBRESOURCES } from '../../core/bucket-config-parts.js';
import { AppError } from '../../core/errors.js';

export type BucketOp =
  | 'CreateBucket'
  | 'HeadBucket'
  | 'DeleteBucket'
  | 'GetBucketLocation'
  | 'ListObjects'
  | 'ListObjectsV2'
  | 'ListMultipartUploads'
  | 'DeleteObjects'
  | 'PostObject'
  | SubresourceOps<typeof BUCKET_SUBRESOURCE_OPS>
  | SubresourceOps<typeof DEFAULT_ONLY_BUCKET_SUBRESOURCE_OPS>;
export type ObjectOp =
  | 'PutObject'
  | 'CopyObject'
  | 'GetObject'
  | 'HeadObject'
  | 'DeleteObject'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'UploadPartCopy'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListParts'
  | SubresourceOps<typeof OBJECT_SUBRESOURCE_OPS>;

/** Every operation named in a subresource table. */
type SubresourceOps<T> = { [K in keyof T]: T[K][keyof T[K]] }[keyof T];

/**
 * Bucket subresource -> method -> operation. A subresource with no entry for the method is MethodNotAllowed. The
 * configuration parts (tagging, encryption, lifecycle, cors, policy) come from core/bucket-config-parts.ts.
 */
const BUCKET_SUBRESOURCE_OPS = {
  versioning: { GET: 'GetBucketVersioning', PUT: 'PutBucketVersioning' },
  versions: { GET: 'ListObjectVersions' },
  ...CONFIG_PART_SUBRESOURCES,
  policyStatus: { GET: 'GetBucketPolicyStatus' },
  acl: { GET: 'GetBucketAcl', PUT: 'PutBucketAcl' },
  'object-lock': { GET: 'GetObjectLockConfiguration', PUT: 'PutObjectLockConfiguration' },
  notification: { GET: 'GetBucketNotificationConfiguration', PUT: 'PutBucketNotificationConfiguration' },
} as const;

/**
 * Bucket subresources of AWS features Store never configures: reading one answers AWS's default for a bucket that never
 * had it (handlers/bucket-defaults.ts), removing one is a no-op, and a method missing here is NotImplemented (PUT) or
 * MethodNotAllowed. PUT requestPayment is accepted for BucketOwner, which is what every bucket is.
 */
const DEFAULT_ONLY_BUCKET_SUBRESOURCE_OPS = {
  requestPayment: { GET: 'GetBucketRequestPayment', PUT: 'PutBucketRequestPayment' },
  accelerate: { GET: 'GetBucketAccelerateConfiguration' },
  logging: { GET: 'GetBucketLogging' },
  website: { GET: 'GetBucketWebsite', DELETE: 'DeleteBucketWebsite' },
  replication: { GET: 'GetBucketReplication', DELETE: 'DeleteBucketReplication' },
} as const;

const OBJECT_SUBRESOURCE_OPS = {
  tagging: { GET: 'GetObjectTagging', PUT: 'PutObjectTagging', DELETE: 'DeleteObjectTagging' },
  acl: { GET: 'GetObjectAcl', PUT: 'PutObjectAcl' },
  retention: { GET: 'GetObjectRetention', PUT: 'PutObjectRetention' },
  'legal-hold': { GET: 'GetObjectLegalHold', PUT: 'PutObjectLegalHold' },
  attributes: { GET: 'GetObjectAttributes' },
  restore: { POST: 'RestoreObject' },
} as const;

export type Endpoint =
  | { op: 'ListBuckets' }
  | { op: BucketOp; bucket: string }
  | { op: ObjectOp; bucket: string; key: string }
  | { op: 'NotImplemented'; feature: string; bucket?: string; key?: string };

/** Query parameters, decoded. A parameter sent without '=' has the value ''. */
export type Query = Map<string, string>;

export function parseQuery(raw: string): Query {
  const query: Query = new Map();
  if (raw === '') return query;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq < 0 ? pair : pair.slice(0, eq), true);
    if (!query.has(name)) query.set(name, eq < 0 ? '' : decodeComponent(pair.slice(eq + 1), true));
  }
  return query;
}

function decodeComponent(value: string, plusIsSpace: boolean): string {
  try {
    return decodeURIComponent(plusIsSpace ? value.replace(/\+/g, ' ') : value);
  } catch (err) {
    throw new AppError('InvalidURI', { message: "Couldn't parse the specified URI.", cause: err });
  }
}

/** Subresources Store does not implement (yet): answered 501, never a wrong success. */
const UNSUPPORTED_BUCKET_SUBRESOURCES = ['analytics', 'inventory', 'metrics', 'intelligent-tiering', 'session'];
const UNSUPPORTED_OBJECT_SUBRESOURCES = ['select', 'torrent'];

/** The operation for a subresource in the query, if the query names one from the table. */
function subresourceOp<T extends Record<string, Record<string, string>>>(
  table: T,
  method: string,
  query: Query,
): { op: string } | { methodNotAllowed: true } | undefined {
  for (const [name, methods] of Object.entries(table)) {
    if (!query.has(name)) continue;
    const op = methods[method];
    return op === undefined ? { methodNotAllowed: true } : { op };
  }
  return undefined;
}

function unsupported(query: Query, names: readonly string[]): string | undefined {
  return names.find((n) => query.has(n));
}

/**
 * The bucket and key a raw path names ('' when absent), decoded. `hostBucket` is the bucket a virtual-hosted–style
 * request's Host names: then the whole path is the key (`//a` is the key `/a`, as in S3). The S3 plane uses it for
 * OPTIONS preflights, which name a resource but no operation. Throws InvalidURI for an undecodable path.
 */
export function resolveResource(path: string, hostBucket?: string): { bucket: string; key: string } {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  if (hostBucket !== undefined) return { bucket: hostBucket, key: decodeComponent(rest, false) };
  const slash = rest.indexOf('/');
  const bucket = decodeComponent(slash < 0 ? rest : rest.slice(0, slash), false);
  const key = slash < 0 ? '' : decodeComponent(rest.slice(slash + 1), false);
  return { bucket, key };
}

export interface EndpointOptions {
  /** An x-amz-copy-source header was sent: a PUT is CopyObject or UploadPartCopy. */
  hasCopySource?: boolean;
  /** The bucket the Host names (virtual-hosted style); undefined: path-style. */
  hostBucket?: string;
}

/**
 * Resolves the operation. `path` is the raw (still percent-encoded) path below the mount point, without the query.
 * Throws InvalidURI for an undecodable path and MethodNotAllowed for a method the resource does not support.
 */
export function resolveEndpoint(
  request: { method: string; path: string; query: Query },
  opts: EndpointOptions = {},
): Endpoint {
  const { method, path, query } = request;
  const { bucket, key } = resolveResource(path, opts.hostBucket);
  if (bucket === '') {
    if (method === 'GET') return { op: 'ListBuckets' };
    throw methodNotAllowed(method);
  }
  if (key === '') return bucketEndpoint(method, bucket, query);
  return objectEndpoint(method, query, { bucket, key, copy: opts.hasCopySource === true });
}

function bucketEndpoint(method: string, bucket: string, query: Query): Endpoint {
  const feature = unsupported(query, UNSUPPORTED_BUCKET_SUBRESOURCES);
  if (feature !== undefined) return { op: 'NotImplemented', feature: `bucket ${feature}`, bucket };
  const byDefault = subresourceOp(DEFAULT_ONLY_BUCKET_SUBRESOURCE_OPS, method, query);
  if (byDefault && 'op' in byDefault) return { op: byDefault.op as BucketOp, bucket };
  if (byDefault && method === 'PUT') {
    const name = Object.keys(DEFAULT_ONLY_BUCKET_SUBRESOURCE_OPS).find((n) => query.has(n));
    return { op: 'NotImplemented', feature: `bucket ${name ?? 'subresource'}`, bucket };
  }
  if (byDefault) throw methodNotAllowed(method);
  const sub = subresourceOp(BUCKET_SUBRESOURCE_OPS, method, query);
  if (sub && 'methodNotAllowed' in sub) throw methodNotAllowed(method);
  if (sub) return { op: sub.op as BucketOp, bucket };
  switch (method) {
    case 'PUT':
      return { op: 'CreateBucket', bucket };
    case 'HEAD':
      return { op: 'HeadBucket', bucket };
    case 'DELETE':
      return { op: 'DeleteBucket', bucket };
    case 'GET':
      if (query.has('location')) return { op: 'GetBucketLocation', bucket };
      if (query.has('uploads')) return { op: 'ListMultipartUploads', bucket };
      return { op: query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects', bucket };
    case 'POST':
      if (query.has('delete')) return { op: 'DeleteObjects', bucket };
      return { op: 'PostObject', bucket };
    default:
      throw methodNotAllowed(method);
  }
}

function objectEndpoint(
  method: string,
  query: Query,
  object: { bucket: string; key: string; copy: boolean },
): Endpoint {
  const { bucket, key, copy } = object;
  const feature = unsupported(query, UNSUPPORTED_OBJECT_SUBRESOURCES);
  if (feature !== undefined) return { op: 'NotImplemented', feature: `object ${feature}`, bucket, key };
  const sub = subresourceOp(OBJECT_SUBRESOURCE_OPS, method, query);
  if (sub && 'methodNotAllowed' in sub) throw methodNotAllowed(method);
  if (sub) return { op: sub.op as ObjectOp, bucket, key };
  const uploadId = query.has('uploadId');
  switch (method) {
    case 'PUT':
      if (uploadId && query.has('partNumber')) return { op: copy ? 'UploadPartCopy' : 'UploadPart', bucket, key };
      return { op: copy ? 'CopyObject' : 'PutObject', bucket, key };
    case 'GET':
      return { op: uploadId ? 'ListParts' : 'GetObject', bucket, key };
    case 'HEAD':
      return { op: 'HeadObject', bucket, key };
    case 'DELETE':
      return { op: uploadId ? 'AbortMultipartUpload' : 'DeleteObject', bucket, key };
    case 'POST':
      if (query.has('uploads')) return { op: 'CreateMultipartUpload', bucket, key };
      if (uploadId) return { op: 'CompleteMultipartUpload', bucket, key };
      throw methodNotAllowed(method);
    default:
      throw methodNotAllowed(method);
  }
}

function methodNotAllowed(method: string): AppError {
  return new AppError('MethodNotAllowed', { details: { Method: method, ResourceType: 'OBJECT' } });
}
