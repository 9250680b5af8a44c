// Request -> typed S3 operation, before anything else happens (path-style addressing only).
// The operation name is the S3 API's verbatim: it is the metric label and the audit action too.

import { AppError } from '../../core/errors.js';

export type BucketOp =
  | 'CreateBucket' | 'HeadBucket' | 'DeleteBucket' | 'GetBucketLocation' | 'ListObjects' | 'ListObjectsV2'
  | 'ListMultipartUploads' | 'DeleteObjects';
export type ObjectOp =
  | 'PutObject' | 'CopyObject' | 'GetObject' | 'HeadObject' | 'DeleteObject' | 'CreateMultipartUpload' | 'UploadPart'
  | 'UploadPartCopy' | 'CompleteMultipartUpload' | 'AbortMultipartUpload' | 'ListParts';

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

/** Bucket subresources Store does not implement yet: answered 501, never a wrong success. */
const UNSUPPORTED_BUCKET_SUBRESOURCES = [
  'versioning', 'versions', 'tagging', 'acl', 'policy', 'policyStatus', 'cors', 'lifecycle', 'encryption', 'object-lock',
  'notification', 'ownershipControls', 'website', 'logging', 'replication', 'accelerate', 'requestPayment', 'analytics',
  'inventory', 'metrics', 'intelligent-tiering', 'publicAccessBlock', 'session',
];
const UNSUPPORTED_OBJECT_SUBRESOURCES = [
  'tagging', 'acl', 'retention', 'legal-hold', 'attributes', 'restore', 'select', 'torrent',
];

function unsupported(query: Query, names: readonly string[]): string | undefined {
  return names.find((n) => query.has(n));
}

/**
 * Resolves the operation. `path` is the raw (still percent-encoded) path below the mount point, without the query.
 * `hasCopySource` (an x-amz-copy-source header) turns a PUT into CopyObject or UploadPartCopy.
 * Throws InvalidURI for an undecodable path and MethodNotAllowed for a method the resource does not support.
 */
export function resolveEndpoint(method: string, path: string, query: Query, hasCopySource = false): Endpoint {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  const slash = rest.indexOf('/');
  const bucket = decodeComponent(slash < 0 ? rest : rest.slice(0, slash), false);
  const key = slash < 0 ? '' : decodeComponent(rest.slice(slash + 1), false);

  if (bucket === '') {
    if (method === 'GET') return { op: 'ListBuckets' };
    throw methodNotAllowed(method);
  }
  if (key === '') return bucketEndpoint(method, bucket, query);
  return objectEndpoint(method, bucket, key, query, hasCopySource);
}

function bucketEndpoint(method: string, bucket: string, query: Query): Endpoint {
  const feature = unsupported(query, UNSUPPORTED_BUCKET_SUBRESOURCES);
  if (feature !== undefined) return { op: 'NotImplemented', feature: `bucket ${feature}`, bucket };
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
      return { op: 'NotImplemented', feature: 'POST Object (browser form uploads)', bucket };
    default:
      throw methodNotAllowed(method);
  }
}

function objectEndpoint(method: string, bucket: string, key: string, query: Query, copy: boolean): Endpoint {
  const feature = unsupported(query, UNSUPPORTED_OBJECT_SUBRESOURCES);
  if (feature !== undefined) return { op: 'NotImplemented', feature: `object ${feature}`, bucket, key };
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
