// TypeBox schemas of the console's everyday object work (docs/admin-api.md "Object work"): copy and move of a
// selection, metadata edits as a copy in place, folder sums, and emptying a bucket in pages.

import { Type } from '@sinclair/typebox';
import { Strict } from './bucket-schemas.js';

/** Entries of one copy, move or metadata request: the API's DeleteObjects limit, reused. */
export const MAX_WORK_ITEMS = 1000;
/** Current objects a folder sum reads at most before it answers `truncated`. */
export const MAX_SUMMARY_OBJECTS = 100_000;

const Key = Type.String({ minLength: 1, description: 'An object key' });

export const TransferBody = Strict({
  items: Type.Array(Strict({ key: Key, targetKey: Key }), {
    minItems: 1,
    maxItems: MAX_WORK_ITEMS,
    description: 'Each source key (in the bucket of the path) and the key to write it to',
  }),
  targetBucket: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Where to write; default the bucket of the path' }),
  ),
  move: Type.Optional(Type.Boolean({ description: 'Delete each source after its copy is committed (a move)' })),
});

export const TransferResponse = Type.Object({
  done: Type.Integer({ description: 'Entries copied (and, for a move, removed from the source)' }),
  failed: Type.Integer(),
  results: Type.Array(
    Type.Object({
      key: Type.String(),
      targetKey: Type.String(),
      ok: Type.Boolean(),
      copied: Type.Boolean({ description: 'The copy was written (true on a move whose source could not be removed)' }),
      versionId: Type.Optional(Type.String({ description: 'The new version, when the target bucket is versioned' })),
      error: Type.Optional(Type.String({ description: 'The error code, for example NoSuchKey or AccessDenied' })),
      message: Type.Optional(Type.String()),
    }),
    { description: 'One per entry, in request order' },
  ),
});

// Null first: the admin Ajv coerces types, and a string branch tried first would turn null into ''.
const Header = (description: string) =>
  Type.Optional(Type.Union([Type.Null(), Type.String()], { description: `${description}; null removes it` }));

export const MetadataBody = Strict({
  keys: Type.Array(Key, { minItems: 1, maxItems: MAX_WORK_ITEMS, description: 'Current objects to rewrite' }),
  headers: Type.Optional(
    Strict(
      {
        contentType: Header('Content-Type'),
        cacheControl: Header('Cache-Control'),
        contentDisposition: Header('Content-Disposition'),
        contentEncoding: Header('Content-Encoding'),
        contentLanguage: Header('Content-Language'),
        expires: Header('Expires (stored as sent, as S3 does)'),
      },
      { description: 'An absent field keeps each object its own value' },
    ),
  ),
  userMetadata: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.Null(), Type.String()]), {
      description: 'x-amz-meta-* names (without the prefix) to set; null removes that name',
    }),
  ),
  replaceUserMetadata: Type.Optional(
    Type.Boolean({ description: 'userMetadata is the whole new set (names not in it are removed)' }),
  ),
});

export const MetadataResponse = Type.Object({
  done: Type.Integer(),
  failed: Type.Integer(),
  results: Type.Array(
    Type.Object({
      key: Type.String(),
      ok: Type.Boolean(),
      versionId: Type.Optional(Type.String({ description: 'The new version, in a versioned bucket' })),
      error: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
    }),
  ),
});

export const SummaryQuery = Type.Object({
  prefix: Type.String({ default: '', description: 'The folder (every key starting with it, at any depth)' }),
});

export const SummaryResponse = Type.Object({
  prefix: Type.String(),
  objectCount: Type.Integer({ description: 'Current objects counted (delete markers and older versions are not)' }),
  totalBytes: Type.Integer(),
  truncated: Type.Boolean({ description: `The sum stopped at the bound: there are more than objectCount objects` }),
  bound: Type.Integer({ description: 'Objects read at most' }),
});

export const EmptyBody = Strict({
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'nextCursor of the previous call, unchanged' })),
});

export const EmptyResponse = Type.Object({
  deleted: Type.Integer({ description: 'Versions and delete markers removed by this call' }),
  uploadsAborted: Type.Integer({ description: 'Multipart uploads aborted by this call' }),
  locked: Type.Array(
    Type.Object({
      key: Type.String(),
      versionId: Type.String(),
      error: Type.String({ description: 'AccessDenied: under retention or legal hold' }),
      message: Type.String(),
    }),
    { description: 'Versions object lock kept in place in this call' },
  ),
  nextCursor: Type.Optional(Type.String({ description: 'Present while there is more to examine: call again with it' })),
});
