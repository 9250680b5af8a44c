// TypeBox schemas of the admin object routes. An object is named by the `key` query parameter on every per-object
// route (never by a path segment): any S3 key survives it, slashes, spaces, `..`, `%`, `?`, `#` and Unicode included,
// with plain encodeURIComponent on the client.

import { Type } from '@sinclair/typebox';
import { Strict, StringEnum, Tag } from './bucket-schemas.js';

export const MAX_PAGE = 1000;

const Key = Type.String({ minLength: 1, description: 'The object key (URL-encode it; at most 1024 bytes of UTF-8)' });
const VersionId = Type.String({
  minLength: 1,
  description: 'A version id (`null` names the null version); default: the current version',
});
const Iso = (description: string) => Type.String({ format: 'date-time', description });
const Cursor = Type.String({ minLength: 1, description: 'nextCursor of the previous page, unchanged' });
const Limit = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE,
  default: MAX_PAGE,
  description: 'Entries (objects plus prefixes) per page',
});

export const ObjectKeyQuery = Type.Object({ key: Key, versionId: Type.Optional(VersionId) });
export const DeleteObjectQuery = Type.Object({
  key: Key,
  versionId: Type.Optional(VersionId),
  bypassGovernance: Type.Optional(Type.Boolean({ description: 'Remove a version under GOVERNANCE retention' })),
});

export const BrowseQuery = Type.Object({
  prefix: Type.String({ default: '', description: 'Only keys starting with this' }),
  delimiter: Type.String({ default: '', description: 'Roll keys up into prefixes at this string (usually /)' }),
  cursor: Type.Optional(Cursor),
  limit: Limit,
});

export const ListedObjectSchema = Type.Object({
  key: Type.String(),
  size: Type.Integer(),
  etag: Type.String({ description: 'Hex MD5 (or <hex>-<parts> for multipart uploads), unquoted' }),
  lastModified: Iso('Time of the write'),
  storageClass: Type.String(),
});

export const BrowsePage = Type.Object({
  objects: Type.Array(ListedObjectSchema),
  prefixes: Type.Array(Type.String(), { description: 'Common prefixes (folders) at the delimiter' }),
  nextCursor: Type.Optional(Type.String({ description: 'Present when there is a next page' })),
});

export const VersionsQuery = Type.Object({
  prefix: Type.String({ default: '' }),
  delimiter: Type.String({ default: '' }),
  cursor: Type.Optional(Cursor),
  limit: Limit,
});

export const VersionsPageSchema = Type.Object({
  versions: Type.Array(
    Type.Object({
      key: Type.String(),
      versionId: Type.String(),
      isLatest: Type.Boolean(),
      isDeleteMarker: Type.Boolean(),
      size: Type.Integer(),
      etag: Type.String(),
      lastModified: Iso('Time of the write'),
      storageClass: Type.String(),
    }),
    { description: 'By key, newest first within a key' },
  ),
  prefixes: Type.Array(Type.String()),
  nextCursor: Type.Optional(Type.String()),
});

export const BatchDeleteBody = Strict({
  keys: Type.Array(Strict({ key: Type.String({ minLength: 1 }), versionId: Type.Optional(VersionId) }), {
    minItems: 1,
    maxItems: 1000,
  }),
  bypassGovernance: Type.Optional(Type.Boolean({ description: 'Also remove versions under GOVERNANCE retention' })),
});

export const BatchDeleteResponse = Type.Object({
  deleted: Type.Integer({ description: 'Entries that succeeded' }),
  failed: Type.Integer({ description: 'Entries refused' }),
  results: Type.Array(
    Type.Object({
      key: Type.String(),
      versionId: Type.Optional(Type.String({ description: 'The version named in the request' })),
      ok: Type.Boolean(),
      deleteMarker: Type.Optional(
        Type.Boolean({ description: 'A delete marker was created, or the version removed was one' }),
      ),
      deleteMarkerVersionId: Type.Optional(Type.String()),
      error: Type.Optional(
        Type.String({ description: 'The error code, for example AccessDenied for a locked version' }),
      ),
      message: Type.Optional(Type.String()),
    }),
    { description: 'One per requested entry, in request order' },
  ),
});

export const ObjectInfo = Type.Object({
  key: Type.String(),
  versionId: Type.String(),
  isLatest: Type.Boolean(),
  size: Type.Integer(),
  etag: Type.String(),
  lastModified: Iso('Time of the write'),
  storageClass: Type.String(),
  contentType: Type.Optional(Type.String()),
  contentEncoding: Type.Optional(Type.String()),
  contentDisposition: Type.Optional(Type.String()),
  contentLanguage: Type.Optional(Type.String()),
  cacheControl: Type.Optional(Type.String()),
  expires: Type.Optional(Type.String()),
  userMetadata: Type.Object({}, { additionalProperties: Type.String(), description: 'x-amz-meta-* values by name' }),
  partCount: Type.Optional(Type.Integer()),
  checksum: Type.Optional(
    Type.Object({ algorithm: Type.String(), value: Type.String(), type: Type.Optional(Type.String()) }),
  ),
  tags: Type.Array(Tag),
  retention: Type.Optional(Type.Object({ mode: Type.String(), retainUntilDate: Type.String() })),
  legalHold: Type.Boolean(),
});

export const ObjectTagging = Type.Object({ versionId: Type.String(), tags: Type.Array(Tag) });

const RetentionMode = StringEnum(['GOVERNANCE', 'COMPLIANCE'] as const);

export const RetentionBody = Strict(
  {
    mode: Type.Optional(RetentionMode),
    retainUntilDate: Type.Optional(Type.String({ description: 'ISO 8601, in the future' })),
    bypassGovernance: Type.Optional(Type.Boolean({ description: 'Shorten, remove or change a GOVERNANCE retention' })),
  },
  { description: 'mode and retainUntilDate together; neither removes the retention (GOVERNANCE with bypass only)' },
);

export const RetentionResponse = Type.Object({
  versionId: Type.Optional(Type.String()),
  mode: Type.Optional(RetentionMode),
  retainUntilDate: Type.Optional(Type.String()),
});

const LegalHoldStatus = StringEnum(['ON', 'OFF'] as const);
export const LegalHoldBody = Strict({ status: LegalHoldStatus });
export const LegalHoldResponse = Type.Object({ versionId: Type.Optional(Type.String()), status: LegalHoldStatus });

export const PresignBody = Strict({
  key: Key,
  method: StringEnum(['GET', 'PUT'] as const),
  expiresIn: Type.Integer({
    minimum: 1,
    maximum: 604_800,
    description: 'Seconds the URL stays valid (at most 7 days)',
  }),
  versionId: Type.Optional(VersionId),
});
export const PresignResponse = Type.Object({
  id: Type.String({ description: "The share link's id (the access key id of the key that signed it)" }),
  url: Type.String({ description: 'A SigV4 presigned S3 URL for the host this request came to' }),
  method: Type.String(),
  expiresAt: Iso('When the URL stops working'),
});
export const ShareLinkView = Type.Object({
  id: Type.String({ description: 'The access key id of the key that signed the URL' }),
  bucket: Type.String(),
  key: Type.String(),
  versionId: Type.Union([Type.String(), Type.Null()]),
  method: StringEnum(['GET', 'PUT'] as const),
  createdBy: Type.String({ description: 'The admin who created it' }),
  createdAt: Iso('When it was created'),
  expiresAt: Iso('When the URL and its key stop working'),
});
export const ShareLinkList = Type.Object({ items: Type.Array(ShareLinkView) });
export const ShareLinkQuery = Strict({
  bucket: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'Only the links of this bucket' })),
  key: Type.Optional(Type.String({ minLength: 1, description: 'Only the links of this object key' })),
});
export const ShareLinkParams = Strict({ id: Type.String({ pattern: '^[A-Z0-9]{20}$' }) });

export const UploadResponse = Type.Object({
  etag: Type.String({ description: 'Hex MD5 of the bytes, unquoted' }),
  size: Type.Integer(),
  versionId: Type.Optional(Type.String({ description: 'Present when the bucket is versioned' })),
});

export const Binary = Type.Unsafe<unknown>({ type: 'string', format: 'binary' });
