// POST Object: a browser form upload (multipart/form-data) authenticated by its signed policy document, or anonymous
// where the bucket policy allows it. The file streams into the object service; content-length-range is enforced as
// it streams. https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html

import type { Acl } from '../../../core/acl/acl.js';
import { reportedVersionId } from '../../../core/versioning.js';
import { AppError, isAppError } from '../../../core/errors.js';
import { parseStorageClass, type StorageClass } from '../../../core/storage-class.js';
import { asHeaderBytes, isHeaderName, isHeaderValue } from '../../../core/header-text.js';
import type { Tag } from '../../../core/tagging.js';
import { checkUserMetaSize } from '../../../core/user-metadata.js';
import type { ObjectHeaders } from '../../../services/objects/object-service.js';
import type { RegionRule } from '../../../sigv4/auth-params.js';
import type { AuthScheme, SecretLookup } from '../../../sigv4/types.js';
import { writeAcl } from './acl-header.js';
import { ANONYMOUS, operationChecks, type Principal, type RequestAuthorizer } from '../authorize.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import type { BucketOp } from '../endpoints.js';
import { authenticateForm } from '../post-auth.js';
import { missingField, readPostForm, type FormFields, type FormFile } from '../post-form.js';
import { checkPostPolicy, type SizeRange } from '../post-policy.js';
import { xmlResponse } from '../respond.js';
import { parseTagging } from '../xml/config-tagging.js';
import { buildPostResponse } from '../xml/post-response.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** What the plane gives POST Object, which authenticates and authorizes from its form rather than its headers. */
export interface PostObjectDeps {
  lookup: SecretLookup;
  region: RegionRule;
  /** STORE_SIGV2: whether a SigV2-signed form is verified or refused. */
  sigv2: boolean;
  /** Told how the form was signed (store_s3_auth_total{scheme}). */
  onAuth?: ((scheme: AuthScheme) => void) | undefined;
  now: () => Date;
  /** The principal of a verified access key. */
  principalOf: (accessKeyId: string) => Principal;
  /** An authorizer for this request as `principal`, whose condition keys read the form's fields. */
  authorizerFor: (principal: Principal, facts: FormFacts) => RequestAuthorizer;
  /** The object's URL, for Location. */
  objectUrl: (bucket: string, key: string) => string;
}

export interface FormFacts {
  authType: 'POST' | undefined;
  signatureVersion: 'AWS' | 'AWS4-HMAC-SHA256';
  signedAt: number | undefined;
  /** The form's value standing for a request header (x-amz-acl is the `acl` field, and so on). */
  header: (name: string) => string | undefined;
  requestTags: readonly Tag[] | undefined;
}

/** Form fields that set the stored object's system headers. */
const HEADER_FIELDS: Readonly<Record<string, keyof ObjectHeaders>> = {
  'content-type': 'contentType',
  'cache-control': 'cacheControl',
  'content-disposition': 'contentDisposition',
  'content-encoding': 'contentEncoding',
  'content-language': 'contentLanguage',
  expires: 'expires',
};
const FIELD_FOR_HEADER: Readonly<Record<string, string>> = { 'x-amz-acl': 'acl', 'x-amz-tagging': 'tagging' };

interface Upload {
  key: string;
  size: SizeRange;
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  tags: Tag[] | undefined;
  storageClass: StorageClass;
  acl: Acl | undefined;
}

/**
 * The HANDLERS entry for PostObject. Never called: the plane binds postObject with its dependencies, because a form
 * upload authenticates from its fields, not from its headers.
 */
export async function postObjectUnbound(): Promise<S3Response> {
  throw new AppError('InternalError', { message: 'POST Object is dispatched by the S3 plane.' });
}

/**
 * Handles POST Object. Throws PreconditionFailed (412) for a body that is not multipart/form-data, the errors of
 * readPostForm, authenticateForm and checkPostPolicy, AccessDenied (the bucket policy or key policy refuses the
 * upload), AccessControlListNotSupported, NotImplemented (aws:kms, object lock fields), MalformedXML / InvalidTag
 * (tagging), MetadataTooLarge, EntityTooLarge / EntityTooSmall (content-length-range), and ObjectService.put's.
 */
export async function postObject(ctx: BucketCtx, deps: PostObjectDeps): Promise<S3Response> {
  const { bucket } = ctx.endpoint;
  if (!/^multipart\/form-data\s*(;|$)/i.test(headerOf(ctx.req, 'content-type') ?? '')) {
    throw new AppError('PreconditionFailed', {
      details: { Condition: 'Bucket POST must be of the enclosure-type multipart/form-data' },
    });
  }
  return readPostForm(ctx.req, async (fields, file) => {
    const upload = prepareUpload(ctx, deps, { fields, filename: file.filename });
    const row = await ctx.services.objects.put({
      bucket,
      key: upload.key,
      body: { source: boundedFile(file, upload.size), size: undefined },
      headers: upload.headers,
      userMeta: upload.userMeta,
      tags: upload.tags,
      storageClass: upload.storageClass,
      acl: upload.acl,
    });
    return successResponse(fields, {
      bucket,
      key: upload.key,
      etag: row.etag,
      versionId: row.versionId,
      location: deps.objectUrl(bucket, upload.key),
    });
  });
}

/** Everything decided before the first byte of the file is read: who, whether allowed, and what to store. */
function prepareUpload(
  ctx: BucketCtx,
  deps: PostObjectDeps,
  { fields, filename }: { fields: FormFields; filename: string | undefined },
): Upload {
  const rawKey = fields.get('key');
  if (rawKey === undefined) throw missingField('key');
  const key = rawKey.replaceAll('${filename}', filename ?? '');
  if (key === '')
    throw new AppError('InvalidArgument', {
      message: 'User key must have a length greater than 0.',
      details: { ArgumentName: 'key' },
    });
  const auth = authenticateForm(fields, { lookup: deps.lookup, region: deps.region, sigv2: deps.sigv2 });
  deps.onAuth?.(auth.kind === 'signed' ? auth.scheme : 'anonymous');
  let size: SizeRange = { min: 0, max: Number.POSITIVE_INFINITY };
  if (auth.kind === 'signed') {
    // The bucket is a form field for the policy (it must be named by a condition), read from the URL.
    const checked = new Map(fields);
    checked.set('bucket', ctx.endpoint.bucket);
    checked.set('key', key);
    size = checkPostPolicy(auth.policy, checked, deps.now());
  }
  // A tagging field that does not parse is reported after authorization, so an unauthorized caller learns nothing.
  const tagging = fields.get('tagging');
  let tags: Tag[] | undefined;
  let tagError: unknown;
  try {
    tags = tagging === undefined ? undefined : parseTagging(tagging, 'object');
  } catch (err) {
    tagError = err;
  }
  const principal = auth.kind === 'signed' ? deps.principalOf(auth.accessKeyId) : ANONYMOUS;
  const header = (name: string): string | undefined =>
    name === 'user-agent' || name === 'referer' ? headerOf(ctx.req, name) : fields.get(FIELD_FOR_HEADER[name] ?? name);
  const authz = deps.authorizerFor(principal, {
    authType: auth.kind === 'signed' ? 'POST' : undefined,
    signatureVersion: auth.kind === 'signed' && auth.scheme === 'sigv2' ? 'AWS' : 'AWS4-HMAC-SHA256',
    signedAt: auth.kind === 'signed' ? auth.signedAt : undefined,
    header,
    requestTags: tags,
  });
  authz.require(operationChecks({ op: 'PostObject', bucket: ctx.endpoint.bucket, key, header }));
  if (tagError !== undefined) throw tagError;
  checkStorableFields(fields);
  // The `acl` field is the form's x-amz-acl (a form has no grant fields).
  const { config } = ctx.services.buckets.get(ctx.endpoint.bucket);
  const acl = writeAcl({
    header: (name) => (name === 'x-amz-acl' ? fields.get('acl') : undefined),
    ownerId: ctx.owner.id,
    config,
  });
  const storageClass = parseStorageClass(fields.get('x-amz-storage-class'));
  return { key, size, headers: objectHeaders(fields), userMeta: userMeta(fields), tags, storageClass, acl };
}

/** Fields Store cannot honour are refused, never ignored. */
function checkStorableFields(fields: FormFields): void {
  const sse = fields.get('x-amz-server-side-encryption');
  if (sse !== undefined && sse !== 'AES256') {
    throw new AppError('NotImplemented', {
      message: `Server-side encryption with ${sse} is not supported; objects are always encrypted with AES256.`,
    });
  }
  if ([...fields.keys()].some((name) => name.startsWith('x-amz-object-lock-'))) {
    throw new AppError('NotImplemented', {
      message: 'Object lock settings are not supported in POST forms; set a default retention on the bucket.',
    });
  }
}

/**
 * A field that becomes a response header on every GET of the object, as a PUT header would have arrived (its UTF-8
 * bytes). Throws InvalidArgument for text no header can carry (CR, LF, other controls): stored, it made the object
 * unreadable (every GET and HEAD failed).
 */
function headerField(field: string, value: string): string {
  const text = asHeaderBytes(value);
  if (!isHeaderValue(text)) {
    throw new AppError('InvalidArgument', {
      message: `The ${field} field holds characters an HTTP header cannot carry.`,
      details: { ArgumentName: field },
    });
  }
  return text;
}

function objectHeaders(fields: FormFields): ObjectHeaders {
  const headers: ObjectHeaders = {};
  for (const [field, name] of Object.entries(HEADER_FIELDS)) {
    const value = fields.get(field);
    if (value !== undefined) headers[name] = headerField(field, value);
  }
  return headers;
}

/** x-amz-meta-* fields, names lower-cased. Throws MetadataTooLarge over S3's 2 KB, InvalidArgument (headerField). */
function userMeta(fields: FormFields): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const [name, raw] of fields) {
    if (!name.startsWith('x-amz-meta-')) continue;
    const key = name.slice('x-amz-meta-'.length);
    if (!isHeaderName(key)) {
      throw new AppError('InvalidArgument', {
        message: `${name} is not a valid metadata name.`,
        details: { ArgumentName: name },
      });
    }
    meta[key] = headerField(name, raw);
  }
  checkUserMetaSize(meta);
  return meta;
}

/**
 * The file's bytes, failing as soon as they pass the policy's maximum (EntityTooLarge) and at the end if they fall
 * short of its minimum (EntityTooSmall), so nothing outside the range is ever committed. A form that breaks off
 * mid-file is MalformedPOSTRequest. Ends only once the whole request has arrived (FormFile.bodyRead).
 */
async function* boundedFile(file: FormFile, size: SizeRange): AsyncGenerator<Buffer> {
  let received = 0;
  try {
    for await (const chunk of file.stream as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > size.max) {
        throw new AppError('EntityTooLarge', { details: { MaxSizeAllowed: String(size.max) } });
      }
      yield chunk;
    }
  } catch (err) {
    throw isAppError(err) ? err : new AppError('MalformedPOSTRequest', { cause: err });
  }
  if (received < size.min) {
    throw new AppError('EntityTooSmall', {
      details: { ProposedSize: String(received), MinSizeAllowed: String(size.min) },
    });
  }
  // The file is complete, but the request may not be: nothing is committed for a client that never finished sending.
  await file.bodyRead;
}

/** A redirect URL S3 can use: absolute http(s). Anything else is ignored, as S3 ignores a URL it cannot interpret. */
function redirectUrl(value: string | undefined): URL | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function successResponse(
  fields: FormFields,
  stored: { bucket: string; key: string; etag: string; versionId: string; location: string },
): S3Response {
  const headers = {
    ETag: `"${stored.etag}"`,
    Location: stored.location,
    'x-amz-server-side-encryption': 'AES256',
    'x-amz-version-id': reportedVersionId(stored.versionId),
  };
  const redirect = redirectUrl(fields.get('success_action_redirect') ?? fields.get('redirect'));
  if (redirect !== undefined) {
    redirect.searchParams.append('bucket', stored.bucket);
    redirect.searchParams.append('key', stored.key);
    redirect.searchParams.append('etag', `"${stored.etag}"`);
    return { status: 303, headers: { ...headers, Location: redirect.toString() } };
  }
  const status = fields.get('success_action_status');
  if (status === '201') {
    return xmlResponse(
      buildPostResponse({ location: stored.location, bucket: stored.bucket, key: stored.key, etag: stored.etag }),
      201,
      headers,
    );
  }
  return { status: status === '200' ? 200 : 204, headers };
}
